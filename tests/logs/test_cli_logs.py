"""``perfx logs`` and ``perfx features`` on small real logs: exact text and JSON output,
table dumps, and one-line errors for inputs perfx cannot read."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from perfx.cli import cli, main
from tests.data_files import fixture_log

SMALL = fixture_log("spark-events/local-1426533911241")
MALFORMED = fixture_log("spark-rapids-tools-events/malformed_json_eventlog.zstd")

SMALL_TEXT = """\
1 application (Spark unknown (< 1.3)): 1 job, 1 stage, 8 tasks; no line skipped.
                Log                 
┌────────────────┬─────────────────┐
│ applications   │               1 │
│ jobs           │               1 │
│ stages         │               1 │
│ tasks          │               8 │
│ Spark versions │ unknown (< 1.3) │
│ skipped lines  │               0 │
└────────────────┴─────────────────┘
"""


def run(*args: str):
    result = CliRunner(env={"COLUMNS": "80"}).invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_summary_text_is_exact() -> None:
    assert run("logs", str(SMALL)) == SMALL_TEXT


def test_summary_json_is_exact() -> None:
    assert json.loads(run("logs", str(SMALL), "--format", "json")) == {
        "summary": {
            "text": "1 application (Spark unknown (< 1.3)): 1 job, 1 stage, 8 tasks; no line "
            "skipped.",
            "apps": 1,
            "jobs": 1,
            "stages": 1,
            "tasks": 8,
            "spark_versions": ["unknown (< 1.3)"],
            "skipped": 0,
            "cut_off": 0,
        },
        "sources": [str(SMALL)],
        "apps": 1,
        "app_rows": 1,
        "jobs": 1,
        "stages": 1,
        "stages_skipped": 0,
        "tasks": 8,
        "tasks_unended": [],
        "tasks_implausible": [],
        "spark_versions": ["unknown (< 1.3)"],
        "skipped": {"count": 0, "files": 0, "by_reason": {}, "lines": []},
        "cut_off": [],
    }


def test_summary_lists_skipped_lines() -> None:
    data = json.loads(run("logs", str(MALFORMED), "--format", "json"))
    assert data["skipped"]["count"] == 1
    assert data["skipped"]["lines"][0]["line"] == 4 and data["skipped"]["lines"][0]["path"] == str(
        MALFORMED
    )
    assert data["spark_versions"] == ["3.1.1"] and data["tasks"] == 217
    text = run("logs", str(MALFORMED))
    assert "Skipped" in text and "not JSON" in text


def test_files_passed_over_are_not_counted_as_lines(tmp_path) -> None:
    """A file in the folder that is no log is a file not read, not a line skipped (it was
    counted as one); the reason names every format perfx tried."""
    (tmp_path / SMALL.name).write_bytes(SMALL.read_bytes())
    (tmp_path / "pricing.json").write_text('{"instance": "m5.xlarge"}\n')
    other = fixture_log("spark-events/local-1430917381534").read_bytes()
    (tmp_path / "bad-line").write_bytes(other.replace(b"}\n", b"}\n{oops\n", 1))
    data = json.loads(run("logs", str(tmp_path), "--format", "json"))
    assert (data["skipped"]["count"], data["skipped"]["files"]) == (2, 1)
    assert data["summary"]["text"] == (
        "2 applications (Spark unknown (< 1.3), 1.4.0-SNAPSHOT): 2 jobs, 3 stages, 118 tasks; "
        "1 line skipped (not JSON: unexpected character, expected a string key: line 1 column 2 "
        "(char 1): 1); 1 file not read (not a Spark event log, tabular log, Ousterhout "
        "job log or Hadoop job history: 1)."
    )
    rows = [line.split("│")[1:3] for line in run("logs", str(tmp_path)).splitlines()]
    counted = {what.strip(): n.strip() for what, n in (row for row in rows if len(row) == 2)}
    assert (counted["skipped lines"], counted["files not read"]) == ("1", "1")


def test_table_dumps(tmp_path) -> None:
    csv = run("logs", str(SMALL), "--entity", "task")
    assert csv.splitlines()[0].startswith("id,duration,app_id,app_attempt_id,app_key,")
    assert len(csv.splitlines()) == 1 + 8
    rows = json.loads(run("logs", str(SMALL), "--entity", "job", "--format", "json"))
    assert [r["id"] for r in rows] == ["local-1426533911241/0"] and rows[0]["status"] == "SUCCEEDED"
    out = tmp_path / "stages.parquet"
    assert (
        run("logs", str(SMALL), "--entity", "stage", "--format", "parquet", "--out", str(out)) == ""
    )
    assert pd.read_parquet(out)["id"].tolist() == ["local-1426533911241/0/0"]


def test_features_lists_kind_unit_role() -> None:
    data = json.loads(run("features", "--log", str(SMALL), "--format", "json"))
    by_name = {f["name"]: f for f in data["features"]}
    assert by_name["executor_cpu_time"] == {
        "name": "executor_cpu_time",
        "kind": "numeric",
        "unit": "ms",
        "role": "feature",
        "description": "JVM CPU time of the task (ns in the log).",
        "aliases": ["cpu_time"],
        "inputs": [],
        "accounts_for": ["cost"],
        "context": False,
    }
    assert by_name["duration"]["role"] == "outcome" and by_name["task_id"]["role"] == "identity"
    stage = json.loads(
        run("features", "--log", str(SMALL), "--entity", "stage", "--format", "json")
    )
    assert {"num_tasks", "executor_run_time_sum", "duration_skew"} <= {
        f["name"] for f in stage["features"]
    }
    assert "executor_cpu_time" in run("features", "--log", str(SMALL))


@pytest.mark.parametrize(
    "args, message",
    [
        (["logs", "job_1.jhist"], "no such file or directory"),
        (["logs", str(fixture_log("spark-events/README.md"))], "no Spark event log"),
    ],
)
def test_unreadable_inputs_are_one_line_errors(args, message, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("perfx: ") and message in err and "Traceback" not in err


def test_usage_errors() -> None:
    result = CliRunner().invoke(cli, ["logs", str(SMALL), "--format", "csv"])
    assert result.exit_code == 2 and "--format csv needs --entity" in result.output
    result = CliRunner().invoke(
        cli, ["logs", str(SMALL), "--entity", "task", "--format", "parquet"]
    )
    assert result.exit_code == 2 and "--out" in result.output


def test_logs_takes_log_as_the_other_commands_do() -> None:
    assert run("logs", "--log", str(SMALL)) == SMALL_TEXT
    result = CliRunner().invoke(cli, ["logs"])
    assert result.exit_code == 2 and "give the logs to read: perfx logs PATH" in result.output


@pytest.mark.parametrize(
    "kind, told",
    [
        ("zip", "a zip archive: perfx reads no archive; unzip it"),
        ("tar", "a tar archive: perfx reads no archive; extract it"),
        ("lz4", "an LZ4 frame, as the lz4 tool writes"),
    ],
)
def test_a_log_shared_in_an_archive_or_another_lz4_says_what_to_do(kind, told, tmp_path, capsys):
    import io
    import tarfile
    import zipfile

    log = SMALL.read_bytes()
    path = tmp_path / f"app.{kind}"
    if kind == "zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("app", log)
    elif kind == "tar":
        with tarfile.open(path, "w") as archive:
            info = tarfile.TarInfo("app")
            info.size = len(log)
            archive.addfile(info, io.BytesIO(log))
    else:  # the lz4 frame format (the lz4 command line's), not Spark's LZ4Block stream
        import lz4.frame

        path.write_bytes(lz4.frame.compress(log))
    with pytest.raises(SystemExit) as exit_info:
        main(["logs", str(path)])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith(f"perfx: {path}: no Spark event log") and told in err


def test_stages_spark_skipped_are_said() -> None:
    """A job lists in its Stage Infos stages whose output was computed before: they are
    stages of the log, but none of their tasks ran; the headline says how many."""
    log = fixture_log("public/NVIDIA__spark-rapids-tools/gds_ucx_eventlog.zstd")
    data = json.loads(run("logs", str(log), "--format", "json"))
    assert (data["stages"], data["stages_skipped"]) == (18, 8)
    assert "18 stages (8 skipped by Spark)" in data["summary"]["text"]


def test_a_job_historys_summary_counts_no_application_it_does_not_have() -> None:
    """Hadoop job histories name no application: their summary said "1 application: 3
    jobs" (a probe of the CLI)."""
    from tests.data_files import fixture_log

    text = run("logs", str(fixture_log("hadoop-jhist")))
    assert text.startswith("3 jobs, 5 stages, 17 tasks;"), text
