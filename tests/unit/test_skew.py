"""``perfx skew`` on public event logs (tests/data/public): a task is flagged only when its
excess over its stage's typical task is worth looking at (ratio and absolute ms), the text
lists the --top most costly ones and says how many more there are, rows name the app id, and
a partition Spark did not log is left out."""

from __future__ import annotations

import json

from click.testing import CliRunner

from perfx.cli import cli
from tests.data_files import PUBLIC, fixture_log

DYNAMIC = PUBLIC / "Netflix-Skunkworks__sparklens" / "local-fresh-dynamic"
"""Spark 3.3.4, app "fresh-kube": tasks of a few ms that read nothing (so their rate is their
duration, logs.progress), one of them 142.8x its stage's median."""
SPARK_1_5 = PUBLIC / "groupon__sparklint" / "spark_event_log_example"
"""Spark 1.5.2: no Partition ID in its TaskEnds; 45 tasks flagged by ratio alone."""


def skew(*args: str) -> str:
    result = CliRunner(env={"COLUMNS": "250"}).invoke(cli, ["skew", *args])
    assert result.exit_code == 0, result.output
    return result.output


def skewed_tasks(*args: str) -> list[dict]:
    return [
        t for s in json.loads(skew(*args, "--format", "json"))["stages"] for t in s["skewed_tasks"]
    ]


def test_a_few_ms_above_a_median_of_zero_is_not_skew() -> None:
    by_ratio = skewed_tasks("--log", str(DYNAMIC), "--min-excess", "0")
    assert "task deserialization 2 ms (stage median 0 ms)" in {
        r for t in by_ratio for r in t["reasons"]
    }
    flagged = skewed_tasks("--log", str(DYNAMIC))
    assert [(t["task_id"], t["reasons"]) for t in flagged] == [
        (1, ["142.8x the stage's median duration"])
    ]
    assert flagged[0]["excess_ms"] >= 100 and len(by_ratio) > 60


def test_the_minimum_is_an_option() -> None:
    flagged = skewed_tasks("--log", str(SPARK_1_5), "--min-excess", "1000")
    assert 0 < len(flagged) < len(skewed_tasks("--log", str(SPARK_1_5)))
    assert min(t["excess_ms"] for t in flagged) >= 1000


def test_top_lists_the_most_costly_and_counts_the_rest() -> None:
    flagged = skewed_tasks("--log", str(SPARK_1_5))
    assert len(flagged) == 35
    text = skew("--log", str(SPARK_1_5), "--top", "5")
    assert "(application application_1462781278026_205691)" in text  # one app: in the title
    rows = [
        line
        for line in text.split("┡", 1)[1].splitlines()
        if line.startswith("│") and line.split("│")[1].strip()
    ]
    assert len(rows) == 5 and "and 30 more " in text
    costliest = sorted(flagged, key=lambda t: -t["excess_ms"])[:5]
    assert [int(row.split("│")[3]) for row in rows] == [t["task_id"] for t in costliest]
    assert "and 15 more " in skew("--log", str(SPARK_1_5))  # --top 20
    assert not any(
        line.startswith("and ")
        for line in skew("--log", str(SPARK_1_5), "--top", "35").splitlines()
    )


def test_rows_name_the_app_id_and_no_unlogged_partition() -> None:
    text = skew("--log", str(DYNAMIC))
    assert "(application spark-a8d39974ec7b451a92b303fa953434e4)" in text
    assert "│ 2 " in text and "fresh-kube" not in text
    assert "│ 1 (68) " in text  # Spark 3.3 logs the partition
    text = skew("--log", str(SPARK_1_5))
    assert "(-1)" not in text and "│ 42 " in text
    assert {t["partition"] for t in skewed_tasks("--log", str(SPARK_1_5))} == {None}


SLEEP = fixture_log(
    "hadoop-jhist/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-"
    "SUCCEEDED-default.jhist"
)
"""Hadoop 0.23's Sleep job: 10 maps (7 of about 11.4 s, 3 of 3.6-4.7 s) and 2 reduces."""


def test_a_mapreduce_task_is_judged_as_a_spark_task_is(tmp_path) -> None:
    """The Sleep job's map 2 made to run three times as long (its attempt's and its task's
    finish moved on by twice its 11.4 s): it is flagged in its job's MAP phase, named by its
    task id with its job's name, its cause as perfx explain names it; no Spark re-run
    command is offered, and the unchanged history has no skew among its 12 tasks."""
    lines = SLEEP.read_text().splitlines(keepends=True)
    slow = 1329348450537 + 3 * (1329348461952 - 1329348450537)
    for n, line in enumerate(lines):
        if '"taskid":"task_1329348432655_0001_m_000002"' in line and "finishTime" in line:
            lines[n] = line.replace("1329348461952", str(slow))
    path = tmp_path / SLEEP.name
    path.write_text("".join(lines))
    report = json.loads(skew("--log", str(path), "--format", "json"))
    assert report["rerun"] is None
    [stage] = report["stages"]
    assert (stage["app_id"], stage["app_name"], stage["stage_id"], stage["tasks"]) == (
        "job_1329348432655_0001",
        "Sleep job",
        "MAP",
        10,
    )
    [task] = stage["skewed_tasks"]
    assert task["task_id"] == task["id"] == "task_1329348432655_0001_m_000002"
    assert task["reasons"] == ["3.0x the stage's median duration"] and task["cause"]
    assert report["summary"]["mapreduce_tasks"] == 12 and report["summary"]["spark_tasks"] == 0
    text = " ".join(skew("--log", str(path)).split())
    assert "(job job_1329348432655_0001)" in text
    assert "MapReduce tasks get no traced re-run" in text and "perfx isolate PROGRAM" not in text
    assert skew("--log", str(SLEEP)) == "No computation skew found in 12 MapReduce tasks.\n"


def test_only_attempts_that_succeeded_are_judged() -> None:
    """A failed, killed or lost attempt's time ends where it stopped: no measure of what its
    records cost, so no skew (a Spark 1.3 log listed 44 attempts of a lost executor). This
    log's four flagged tasks were its unsuccessful attempts."""
    log = PUBLIC / "kubeflow__mcp-apache-spark-history-server"
    log = log / "application_1713000000000_0001_1.zstd"
    report = json.loads(skew("--log", str(log), "--format", "json"))
    assert report["stages"] == []
    assert report["summary"]["unfinished_attempts"] == 12
    assert report["summary"]["text"] == (
        "No computation skew found in 9 Spark tasks (12 unsuccessful attempts left out)."
    )


def test_each_attempt_of_an_application_has_its_own_stages() -> None:
    """A log of four attempts of one application, each with its own stage 2 of 30 tasks: its
    skewed tasks were said to be in 1 stage, the same task listed thrice with no attempt
    (a probe of the CLI)."""
    log = str(fixture_log("spark-rapids-tools-events/multiple_attempts"))
    report = json.loads(skew("--log", log, "--format", "json", "--no-cache"))
    apps = [s["app_id"] for s in report["stages"]]
    assert len(apps) == len(set(apps)) > 1  # one stage 2 per attempt
    assert all(a.startswith("application_1724877841851_0016/") for a in apps)
    assert all(s["tasks"] == 30 for s in report["stages"])
    text = skew("--log", log, "--no-cache")
    assert text.startswith(f"12 tasks in {len(apps)} stages")


def test_a_factor_or_minimum_that_is_no_number_above_its_bound_is_refused() -> None:
    """``--factor nan``, ``inf``, ``0`` and ``-1`` answered (a comparison with nan is false,
    and no bound was set): a probe of the CLI."""
    log = str(fixture_log("spark-events/local-1430917381534"))
    for flag, value in (("--factor", "nan"), ("--factor", "inf"), ("--factor", "0")) + (
        ("--min-excess", "-1"),
        ("--min-excess", "nan"),
    ):
        result = CliRunner().invoke(cli, ["skew", "--log", log, flag, value])
        assert result.exit_code == 2, (flag, value, result.output)
        assert f"Invalid value for '{flag}'" in result.output
