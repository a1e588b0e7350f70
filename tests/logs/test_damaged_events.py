"""Damaged events, one kind at a time, on a real log (Spark 2.3, tests/data/public): each bad
line is skipped with its reason and line number and said in one line by every answer; events
out of order or repeated make the same one row per task attempt; two different ends of one
attempt are reported and resolved by the stated rule whatever their order."""

from __future__ import annotations

import re
import subprocess
import sys

import orjson
import pandas as pd
import pytest

from perfx.logs.eventlog.tables import unique_ids
from perfx.logs.loader import load_log
from perfx.logs.model import SkippedLine, implausible_tasks, log_notes, reason_kind, skipped_note
from tests.data_files import fixture_log, public_log
from tests.logs.fuzzing import question, run_cli

SOURCE = public_log("qubole__sparklens/local-1532512550423")
LINES = SOURCE.read_bytes().splitlines(keepends=True)


def _where(event: str, lines: list[bytes] = LINES) -> list[int]:
    return [i for i, line in enumerate(lines) if line.startswith(b'{"Event":"' + event.encode())]


ENDS, STARTS = _where("SparkListenerTaskEnd"), _where("SparkListenerTaskStart")


def _edited(at: int, edit, lines: list[bytes] = LINES) -> bytes:
    event = orjson.loads(lines[at])
    edit(event)
    return orjson.dumps(event) + b"\n"


def _write(tmp_path, lines: list[bytes]):
    path = tmp_path / "app"
    path.write_bytes(b"".join(lines))
    return path


def _sorted(table: pd.DataFrame) -> pd.DataFrame:
    return table.drop(columns=["source"], errors="ignore").sort_values("id").reset_index(drop=True)


def test_each_bad_line_is_skipped_with_its_reason_and_line_number(tmp_path):
    lines = list(LINES)
    flipped = bytearray(lines[ENDS[0]])
    flipped[flipped.index(b'"Host":"') + 8] = 0xB5
    lines[ENDS[0]] = bytes(flipped)
    lines[ENDS[1]] = _edited(ENDS[1], lambda e: e["Task Info"].update({"Launch Time": "12abc"}))
    lines[ENDS[2]] = _edited(ENDS[2], lambda e: e.update({"Task Metrics": [1, 2]}))
    lines[ENDS[3]] = _edited(ENDS[3], lambda e: e.pop("Task Info"))
    lines[ENDS[4]] = _edited(ENDS[4], lambda e: e["Task Metrics"].update({"JVM GC Time": {}}))
    lines.insert(ENDS[5], b'{"Event":"SparkListenerTaskEnd","Stage ID":\n')
    log = load_log(_write(tmp_path, lines))
    kinds = [(s.line, s.reason.split(":")[0]) for s in log.skipped]
    column = lines[ENDS[0]].index(b'"Host":"') + 9
    assert log.skipped[0].reason == f"not UTF-8: byte 0xb5 at column {column}"
    assert kinds == [
        (ENDS[0] + 1, "not UTF-8"),
        (ENDS[1] + 1, "wrong type for Task Info/Launch Time"),
        (ENDS[2] + 1, "wrong type for Task Metrics"),
        (ENDS[3] + 1, "missing Task Info"),
        (ENDS[4] + 1, "wrong type for Task Metrics/JVM GC Time"),
        (ENDS[5] + 1, "not JSON"),
    ]
    # the five attempts whose end is unusable are still there, started and never ended
    tasks = log.tasks
    assert len(tasks) == len(ENDS) and tasks["id"].is_unique
    assert (tasks["status"] == "UNKNOWN").sum() == 5
    assert skipped_note(log.skipped) == (
        f"6 lines of {tmp_path.name}/app skipped: 1 missing Task Info, 1 not JSON, "
        "1 not UTF-8, 1 wrong type for Task Info/Launch Time, 1 wrong type for Task Metrics, "
        "1 wrong type for Task Metrics/JVM GC Time (perfx logs lists them)"
    )


def test_a_lost_end_in_a_finished_application_is_counted_and_said(tmp_path):
    """A task whose end event is gone from a log that reached its application's end: the
    History Server shows it RUNNING for ever; perfx keeps its row (UNKNOWN, no times) and
    says so in ``perfx logs`` and in every answer. The same task in a log cut off before the
    application's end was still running: the cut-off note speaks for it, not this one."""
    lines = list(LINES)
    lost = orjson.loads(lines.pop(ENDS[3]))["Task Info"]["Task ID"]
    log = load_log(_write(tmp_path, lines), cache=False)
    assert log_notes(log) == (
        "1 task has no usable end event though its application ended: its times and metrics "
        "are unknown"
    )
    summary = run_cli(["logs", "--format", "json", str(tmp_path / "app")])
    assert orjson.loads(summary.stdout)["tasks_unended"] == [f"local-1532512550423/{lost}"]
    shown = run_cli(["logs", str(tmp_path / "app")]).stdout
    assert f"{len(ENDS)} tasks (1 without a usable end event in a finished application)" in shown
    assert f"Tasks without a usable end event: local-1532512550423/{lost}" in shown
    cut = load_log(_write(tmp_path, lines[: ENDS[3] + 5]), cache=False)  # not ended yet
    assert (cut.tasks["status"] == "UNKNOWN").any()  # tasks still running: not lost ends
    assert "usable end" not in log_notes(cut)
    assert log_notes(load_log(SOURCE, cache=False)) == ""


SQL_START = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"
OTHER_EVENTS = {
    "SparkListenerExecutorAdded": lambda e: e["Executor Info"].update({"Total Cores": "4"}),
    "SparkListenerBlockManagerAdded": lambda e: e["Block Manager ID"].update({"Port": [1, 2]}),
    "SparkListenerExecutorRemoved": lambda e: e.update({"Timestamp": {"at": 1}}),
    SQL_START: lambda e: e.update({"executionId": "0x1"}),
}
"""Events other than the tasks', stages', jobs' and app's, each with a field of another type."""
ADDED = {
    "SparkListenerExecutorRemoved": {"Timestamp": 1532512560000, "Executor ID": "driver"},
    SQL_START: {"executionId": 0, "physicalPlanDescription": "== Physical Plan ==", "time": 1},
}
"""Those events the log lacks, as Spark writes them: added before its last line."""


@pytest.mark.parametrize("event", OTHER_EVENTS)
def test_an_event_with_a_field_of_another_type_is_skipped_with_its_reason(tmp_path, event):
    """The executors' and SQL plans' fields are checked as the tasks' are: a port that is a
    list once ended every command in an internal error while the executor table was built."""
    lines = list(LINES)
    if event in ADDED:
        lines.insert(len(lines) - 1, orjson.dumps({"Event": event, **ADDED[event]}) + b"\n")
    at = _where(event, lines)[0]
    lines[at] = _edited(at, OTHER_EVENTS[event], lines)
    log = load_log(_write(tmp_path, lines), cache=False)
    assert [s.line for s in log.skipped] == [at + 1]
    assert log.skipped[0].reason.startswith("wrong type for "), log.skipped[0].reason
    assert len(log.tasks) == len(ENDS)
    assert log.executors["port"].map(lambda v: isinstance(v, float)).all()


def test_the_note_counts_lines_and_files_by_kind():
    skipped = [
        SkippedLine("/logs/app-1/events_1", 3, "not JSON: unexpected character"),
        SkippedLine("/logs/app-1/events_1", 9, "not JSON: trailing characters"),
        SkippedLine("/logs/app-1/events_1", 12, "wrong type for Task Metrics: Expected object"),
    ]
    assert skipped_note(skipped) == (
        "3 lines of app-1/events_1 skipped: 2 not JSON, 1 wrong type for Task Metrics "
        "(perfx logs lists them)"
    )
    skipped.append(SkippedLine("/logs/README", 0, "not a Spark event log or Hadoop job history"))
    assert skipped_note(skipped).startswith(
        "3 lines of app-1/events_1 and 1 file skipped: 2 not JSON"
    )
    skipped.append(SkippedLine("/logs/app-2/events_1", 4, "not JSON: unexpected character"))
    assert skipped_note(skipped).startswith("4 lines of 2 files and 1 file skipped: 3 not JSON")
    assert skipped_note([]) == ""


def test_a_start_after_its_end_and_repeated_lines_make_the_same_rows(tmp_path):
    lines = list(LINES)
    start = lines.pop(STARTS[0])
    lines.insert(ENDS[-1], start)  # far after its end
    lines.insert(ENDS[2], LINES[ENDS[0]])  # an end replayed
    lines.append(LINES[STARTS[1]])  # a start replayed after everything
    job_end = _where("SparkListenerJobEnd")[0]
    lines.insert(_where("SparkListenerJobStart")[0], LINES[job_end])  # a job's end first
    log, original = load_log(_write(tmp_path, lines)), load_log(SOURCE)
    for entity in ("task", "stage", "job"):
        pd.testing.assert_frame_equal(_sorted(log.table(entity)), _sorted(original.table(entity)))
    assert [s.reason.split(":")[0] for s in log.skipped] == ["duplicate event"]


@pytest.mark.parametrize("later_first", [False, True])
def test_two_different_ends_of_one_attempt_are_reported_and_the_later_kept(tmp_path, later_first):
    def later(event):
        event["Task Info"]["Finish Time"] += 1000
        event["Task Metrics"]["Executor Run Time"] += 1000

    lines = list(LINES)
    conflicting = _edited(ENDS[0], later)
    lines.insert(ENDS[0] if later_first else ENDS[0] + 1, conflicting)
    log = load_log(_write(tmp_path, lines))
    assert len(log.tasks) == len(ENDS) and log.tasks["id"].is_unique
    [reported] = log.skipped
    assert re.match(r"conflicting end: task \d+ .*kept the last to finish", reported.reason)
    assert (
        reason_kind(reported.reason) == "conflicting end"
    )  # one kind in the note, whatever the task
    original = load_log(SOURCE).tasks.set_index("id")
    task = log.tasks.set_index("id").loc[original.index[0]]
    assert task["duration"] == original.iloc[0]["duration"] + 1000
    assert task["executor_run_time"] == original.iloc[0]["executor_run_time"] + 1000


def test_ids_are_unique_or_perfx_says_it_is_its_own_bug():
    with pytest.raises(AssertionError, match="names several rows"):
        unique_ids(pd.DataFrame({"id": ["a/1", "a/1"]}))


@pytest.mark.slow
def test_answers_from_a_log_with_skipped_lines_say_so_in_one_line(tmp_path):
    lines = list(LINES)
    lines.insert(3, b"not json at all\n")
    path = str(_write(tmp_path, lines))
    note = f"1 line of {tmp_path.name}/app skipped: 1 not JSON (perfx logs lists them)"
    report = ["report", "--log", path, "--questions", "1", "--out", str(tmp_path / "r.html")]
    for argv in (
        ["stragglers", "--log", path],
        ["whatif", "--log", path],
        ["explain", "--log", path, question("spark-2.3")],
        report,
    ):
        text = run_cli(argv)
        assert text.exit_code == 0 and text.stdout.rstrip("\n").endswith(note)
        json_run = run_cli([*argv, "--format", "json"])
        assert orjson.loads(json_run.stdout)["log_note"] == note
    assert note in (tmp_path / "r.html").read_text()  # the page says it too
    clean = run_cli(["stragglers", "--log", str(SOURCE), "--format", "json"])
    assert "log_note" not in orjson.loads(clean.stdout)


def test_a_log_saved_with_a_byte_order_mark_reads_as_the_log(tmp_path):
    """An editor's UTF-8 byte order mark before the first event: the event (the log's Spark
    version) was skipped as not JSON, and the version read as unknown."""
    marked = tmp_path / "marked"
    marked.write_bytes(b"\xef\xbb\xbf" + b"".join(LINES))
    log, plain = load_log(marked, cache=False), load_log(SOURCE, cache=False)
    assert log.skipped == [] and list(log.apps["spark_version"]) == list(
        plain.apps["spark_version"]
    )
    pd.testing.assert_frame_equal(log.tasks, plain.tasks)


def test_headlines_say_a_job_whose_start_the_log_lacks_is_unknown(tmp_path):
    """A log without its jobs' starts has no job for its stages: the headlines read "stage 0
    (job )" and "Job  has the most at stake" (a probe of damaged logs)."""
    lines = fixture_log("spark-events/local-1430917381534").read_bytes().splitlines(True)
    path = str(_write(tmp_path, [line for line in lines if b"SparkListenerJobStart" not in line]))
    stragglers = run_cli(["stragglers", "--log", path, "--no-cache"]).stdout
    assert re.search(r"stage \d+ \(job unknown\) has the most at stake", stragglers), stragglers
    whatif = run_cli(["whatif", "--log", path, "--no-cache"]).stdout
    assert "A job whose start the log lacks has the most at stake" in whatif, whatif
    assert "(job )" not in stragglers and "Job  " not in whatif


def _edited_ends(edits: dict[int, dict]) -> list[bytes]:
    """The lines of a real log with the TaskEnds of some tasks edited: ``{task id: {field
    path: value}}`` (a path of keys separated by "/")."""
    lines = []
    for line in fixture_log("spark-events/local-1430917381534").read_bytes().splitlines(True):
        event = orjson.loads(line)
        task = event.get("Task Info", {}).get("Task ID")
        if event["Event"] == "SparkListenerTaskEnd" and task in edits:
            for path, value in edits[task].items():
                *parents, last = path.split("/")
                holder = event
                for key in parents:
                    holder = holder[key]
                holder[last] = value
            line = orjson.dumps(event) + b"\n"
        lines.append(line)
    return lines


def test_tasks_of_values_no_spark_run_gives_are_listed_and_said(tmp_path):
    """A negative run time, GC longer than its task, a finish before the launch, a launch at
    0, a metric beyond a long: the log read as if they were measurements, and answers built
    on them said nothing (a probe of damaged logs). They are kept as read, listed by perfx
    logs and said by every answer; numpy's warnings over them print no source line."""
    path = _write(
        tmp_path,
        _edited_ends(
            {
                5: {"Task Metrics/Executor Run Time": -500},
                1: {"Task Metrics/JVM GC Time": 99_999},
                2: {"Task Info/Finish Time": 1430917386494 - 100_000},
                3: {"Task Info/Launch Time": 0},
                0: {"Task Metrics/JVM GC Time": 1e300},
            }
        ),
    )
    log = load_log(path, cache=False)
    flagged = log.tasks.loc[implausible_tasks(log), "id"].tolist()
    assert flagged == [f"local-1430917381534/{t}" for t in (0, 1, 2, 3, 5)]
    listed = run_cli(["logs", str(path), "--no-cache"])
    assert "110 tasks (5 with values no Spark run gives)" in listed.stdout
    answer = subprocess.run(  # a process of its own: the warnings as a user sees them
        [sys.executable, "-m", "perfx.cli", "explain", "--log", str(path), "--no-cache"]
        + ["WHY TASK 0 SLOWER"],
        capture_output=True,
        text=True,
    )
    assert answer.returncode == 0 and answer.stderr == ""
    said = " ".join(answer.stdout.split())
    assert said.endswith("their figures are not to be trusted (perfx logs lists them)")
    assert not implausible_tasks(load_log(SOURCE, cache=False)).any()


def test_a_question_on_a_task_whose_end_is_lost_says_it_has_no_duration(tmp_path):
    """A task whose end the log lost has no duration: asked why it was slower, perfx said no
    task of its stage was faster and to name one with THAN (a probe of damaged logs)."""
    lines = fixture_log("spark-events/local-1430917381534").read_bytes().splitlines(True)
    end = b'"Event":"SparkListenerTaskEnd"'
    path = str(_write(tmp_path, [x for x in lines if not (end in x and b'"Task ID":0,' in x)]))
    for asked in ("WHY TASK 0 SLOWER", "WHY TASK 1 SLOWER THAN TASK 0"):
        run = run_cli(["explain", "--log", path, "--no-cache", asked])
        assert (run.exit_code, run.stderr) == (
            1,
            "perfx: task local-1430917381534/0 has no duration to explain (its end is not in "
            "the log): ask about another task\n",
        )


def test_host_metrics_of_no_matching_row_print_no_numpy_warning(tmp_path):
    """Host metrics whose timestamps are no times: numpy's "Mean of empty slice" reached the
    user with numpy's source line (a probe of the CLI)."""
    metrics = tmp_path / "hosts.csv"
    metrics.write_text("host,timestamp,cpu\nlocalhost,notatime,5\n")
    log = str(fixture_log("spark-events/local-1430917381534"))
    answer = subprocess.run(
        [sys.executable, "-m", "perfx.cli", "explain", "--log", log, "--no-cache"]
        + ["--host-metrics", str(metrics), "WHY TASK 1 SLOWER"],
        capture_output=True,
        text=True,
    )
    assert answer.returncode == 0 and answer.stderr == "", answer.stderr
