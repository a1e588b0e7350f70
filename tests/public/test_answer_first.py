"""Answer first (issue 24): snapshot tests of every command's terminal output on three public
logs. The summary paragraph is in the first 15 lines, no table passes 40 rows without --all,
ids are ordered as numbers, and --format json carries the same summary.

The snapshots are the commands' text at 120 columns; PERFX_UPDATE_GOLDEN=1 rewrites them
(after a change to what a command says, read the diff before committing it)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfx.cli import cli
from perfx.results.headline import ROWS, id_order
from tests.data_files import PUBLIC

SNAPSHOTS = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots"
ROOT = Path(__file__).resolve().parents[2]
"""The commands run from the repository's root on paths relative to it (``_run``): a path a
table shows (a cut-off file) is then cut to its column alike wherever the repository is."""
CORPUS = PUBLIC.relative_to(ROOT)

LOGS = {
    # many jobs and stages: the tables are cut at 40 rows
    "q88": CORPUS / "NVIDIA__spark-rapids-tools" / "nds_q88_photon_db_13_3.zstd",
    # long-running stragglers with GC and cold starts (Spark 1.6 on YARN)
    "sparklint": CORPUS / "groupon__sparklint" / "application_1472176676028_407508_1",
    # a small local application (Spark 3)
    "sparklens": CORPUS / "Netflix-Skunkworks__sparklens" / "local-fresh",
}
LARGE = {"q88"}
"""Logs whose commands take seconds each (``slow``)."""
ASKED = {
    "q88": "WHY TASK 'app-20240919162642-0000/13' SLOWER",
    "sparklint": "WHY TASK 554 SLOWER",
    "sparklens": "WHY TASK 1 SLOWER",
}
COMMANDS = {
    "logs": lambda log, name: ["logs", log],
    "features": lambda log, name: ["features", "--log", log],
    "stragglers": lambda log, name: ["stragglers", "--log", log],
    "whatif": lambda log, name: ["whatif", "--log", log],
    "skew": lambda log, name: ["skew", "--log", log],
    "explain": lambda log, name: ["explain", "--log", log, ASKED[name]],
}
SUMMARY_KEY = {"logs", "features", "stragglers", "whatif", "skew"}
"""Commands whose JSON carries ``summary`` (explain's JSON carries its sentence)."""


def _run(args: list[str]) -> str:
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(cli, args, terminal_width=120, env={"COLUMNS": "120"})
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    return result.output


class _Outputs(dict):
    """(log name, command) -> the command's text on the log, run once when first asked for:
    a run of some of the tests (``./dev test --quick`` leaves the large log out) runs only
    the commands they read."""

    def __missing__(self, key: tuple[str, str]) -> str:
        name, command = key
        self[key] = text = _run(COMMANDS[command](str(LOGS[name]), name))
        return text


@pytest.fixture(scope="module")
def outputs() -> dict[tuple[str, str], str]:
    return _Outputs()


def _table_rows(text: str) -> list[int]:
    """The number of rows of each table in ``text``: body lines whose first cell is not
    blank (a row folded over several lines continues with a blank first cell)."""
    counts, rows, inside = [], 0, False
    for line in text.splitlines():
        if line.startswith("┡"):
            inside, rows = True, 0
        elif line.startswith("└") and inside:
            counts.append(rows)
            inside = False
        elif inside and line.startswith("│") and line[1:].split("│", 1)[0].strip():
            rows += 1
    return counts


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=[pytest.mark.slow] if n in LARGE else []) for n in sorted(LOGS)]
)
def test_the_answer_is_on_top_and_tables_are_short(outputs, name, command):
    text = outputs[(name, command)]
    golden = SNAPSHOTS / f"{name}.{command}.txt"
    if os.environ.get("PERFX_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text()
    first = text.splitlines()[0]
    # the first line is prose (the summary), not a table's title or border
    assert re.match(r"^\S.*\w", first) and not first.startswith(("┏", "┌")), first
    if command in SUMMARY_KEY:
        summary = json.loads(_run([*COMMANDS[command](str(LOGS[name]), name), "--format", "json"]))
        sentence = summary["summary"]["text"]
        head = " ".join(line.strip() for line in text.splitlines()[:15])
        assert sentence[:60] in head  # the same summary, within the first 15 lines
    assert all(rows <= ROWS for rows in _table_rows(text)), _table_rows(text)


@pytest.mark.slow
def test_all_lists_every_row():
    log = str(LOGS["q88"])
    cut = _table_rows(_run(["stragglers", "--log", log]))
    every = _table_rows(_run(["stragglers", "--log", log, "--all"]))
    stages = json.loads(_run(["stragglers", "--log", log, "--format", "json"]))["stages"]
    assert every[0] == len(stages) > ROWS >= cut[0]
    jobs = _table_rows(_run(["whatif", "--log", log, "--all"]))
    assert jobs[0] == 57 > ROWS  # the log's 57 jobs


@pytest.mark.slow
def test_jobs_are_ordered_as_numbers_and_by_time_at_stake(outputs):
    data = json.loads(_run(["whatif", "--log", str(LOGS["q88"]), "--format", "json"]))
    ids = [job["job_id"] for job in data["jobs"]]
    assert ids == sorted(ids, key=id_order) and ids[:3] == ["0", "1", "2"]
    text = outputs[("q88", "whatif")]
    shown = [
        line.split("│")[1].strip()
        for line in text.split("┡", 1)[1].split("└", 1)[0].splitlines()
        if line.startswith("│") and line.split("│")[1].strip()
    ]
    stake = {
        job["job_id"]: max(
            max(job["modelled_ms"] - s["ms"], 0) for s in job["whatif"].values() if s["ms"]
        )
        for job in data["jobs"]
    }
    assert [stake[j] for j in shown] == sorted((stake[j] for j in shown), reverse=True)
    assert id_order("app_10") > id_order("app_2")


def test_counts_agree_with_their_nouns():
    """One hidden row is '1 more stage', not '1 more stages' (as under a stragglers table
    that hides one stage); the closing line of stragglers says '1 straggler'."""
    from perfx.results.headline import more

    assert (
        more(1, "stage").plain == "... and 1 more stage with less time at stake (--all shows them)"
    )
    assert (
        more(1_200, "job", "of less").plain == "... and 1,200 more jobs of less (--all shows them)"
    )


def test_a_list_cut_short_says_so():
    """The summary of 4 skip reasons named 3, as if there were no other."""
    from perfx.results.headline import listing

    assert listing([("a", 3), ("b", 2), ("c", 1)]) == "a 3, b 2 and c 1"
    assert listing([("a", 3), ("b", 2), ("c", 1), ("d", 1)]) == "a 3, b 2, c 1 and 1 more"


def test_one_straggler_is_said_as_one():
    """A log with one straggler (an Ousterhout job log's 5-task stage) said '1 stragglers'
    in the closing line; the headline and the closing line agree with their counts."""
    from click.testing import CliRunner

    from perfx.cli import cli
    from tests.data_files import fixture_log

    log = fixture_log("ousterhout-traces/test_files/test_job_log")
    out = CliRunner(env={"COLUMNS": "400"}).invoke(cli, ["stragglers", "--log", str(log)]).output
    assert out.startswith("1 straggler in 1 of 1 stage took 150 ms")
    assert "\n1 straggler; 0 (0%) have one of the table's rule causes (evaluated: " in out
