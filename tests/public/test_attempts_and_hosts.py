"""Mechanisms of a task's attempt and host (issue 30, item 4), each diagnosed by the one cause
model (``explain.cause.task_cause``) on real logs: a speculative copy, a failed attempt
(executor lost, or an exception), a retry after failed attempts, and a slow host.

None of these can be injected in the tests' local[2] PySpark session: it has one host, runs
without speculation (``spark.speculation`` is read when the session starts, and the session
is shared) and fails a job on a task's first failure (local mode allows one attempt). So
the speculative copy is a real one (tests/data/spark-events/application_1628109047826_1317105,
Apache Spark's test data), the failures and retries are real ones on public logs
(tests/data/public, see its SOURCES.md), and the slow host is a real 23-host log edited here
(in a temporary copy): every task of one host in one stage made 3x slower, the control being
the same task of the unedited log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfx.explain.cause import task_cause
from perfx.session import open as open_session
from tests.data_files import PUBLIC, fixture_log


def _cause(path: Path, task_id: str):
    return task_cause(open_session([str(path)]).log, task_id)


def test_a_speculative_copy_is_said_to_be_one():
    app = "application_1628109047826_1317105"
    found = _cause(fixture_log("spark-events") / app, f"{app}/4")
    assert found is not None and found.name == "speculative copy", found
    assert "speculative copy of partition 3's task" in found.detail
    original = _cause(fixture_log("spark-events") / app, f"{app}/3")
    assert original is not None and original.name != "speculative copy", original


NEPTUNE = PUBLIC / "lsds__Neptune" / "application_1538416563558_0014"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "task", "name", "said"),
    [
        (
            NEPTUNE,
            "application_1538416563558_0014/13",
            "executor lost",
            "Container marked as failed",
        ),
        (NEPTUNE, "application_1538416563558_0014/23", "retry", "after 1 failed attempt"),
        (NEPTUNE, "application_1538416563558_0014/23", "retry", "its executor was lost"),
        (  # a retry as long as its stage's other success: slower only than the failed attempt
            NEPTUNE,
            "application_1538416563558_0014/18",
            "no cause stands out",
            "took 3.32 s, within 1.5x the 3.55 s of its stage's only other task",
        ),
        (
            PUBLIC
            / "kubeflow__mcp-apache-spark-history-server"
            / "application_1713000000000_0001_2.zstd",
            "application_1713000000000_0001/5",
            "failed attempt",
            "PythonException: Exception: transient failure for partition 0",
        ),
    ],
)
def test_failed_attempts_and_retries_are_named_from_the_log(path, task, name, said):
    found = _cause(path, task)
    assert found is not None and found.name == name, found
    assert said in found.detail, found.detail


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "task"),
    [
        (NEPTUNE, "application_1538416563558_0014/32"),
        (
            PUBLIC / "kubeflow__mcp-apache-spark-history-server" / "local-1776286786993.zstd",
            "local-1776286786993/13",
        ),
    ],
)
def test_an_answer_about_a_failed_attempt_says_so_before_any_pattern(path, task):
    """The attempt's failure is the answer: its sentence says so, and gives the history's
    pattern (an executor's id, a cold start) as no more than that, where it said the task
    was slower "most likely because its executor id was 8 against 9" (a probe of the CLI)."""
    answer = open_session([str(path)]).explain(f"WHY TASK '{task}' SLOWER")
    sentence = answer.sentence()
    assert answer.gap.diagnosis.name in ("failed attempt", "executor lost")
    assert f", but {answer.gap.diagnosis.detail}. The closest pattern in the log's history: " in (
        sentence
    ), sentence
    assert "most likely" not in sentence


def test_a_late_success_spark_marked_failed_is_said_so(tmp_path):
    """Spark 1.x logs the late end of an attempt it gave up (its executor lost) with reason
    Success and Failed true: the diagnosis said 'failed (Success): its time ends at the
    failure'. Made here from a real log, its slowest task's end marked so."""
    lines = fixture_log("spark-events/local-1430917381534").read_text().splitlines(True)
    ends = [i for i, line in enumerate(lines) if '"SparkListenerTaskEnd"' in line]
    slowest = max(ends, key=lambda i: _ran_ms(json.loads(lines[i])))
    lines[slowest] = lines[slowest].replace('"Failed":false', '"Failed":true', 1)
    (tmp_path / "log").write_text("".join(lines))
    task = json.loads(lines[slowest])["Task Info"]["Task ID"]
    found = _cause(tmp_path / "log", f"local-1430917381534/{task}")
    assert found is not None and found.name == "failed attempt", found
    assert "marked failed though its end reports Success" in found.detail
    assert "(Success)" not in found.detail and "ends at the failure" not in found.detail


def _ran_ms(end: dict) -> int:
    return end["Task Info"]["Finish Time"] - end["Task Info"]["Launch Time"]


def test_a_first_attempt_that_succeeded_is_no_retry():
    found = _cause(NEPTUNE, "application_1538416563558_0014/24")  # attempt 2, but no gap
    assert found is None or found.name not in ("retry", "executor lost", "failed attempt")


SPARKLINT = PUBLIC / "groupon__sparklint" / "application_1472176676028_407508_1"
SLOW_HOST, STAGE = "gdoop-worker284.snc1", 0


def _slowed_host(out: Path, factor: float = 3.0) -> Path:
    """The sparklint log with every task of ``SLOW_HOST`` in stage ``STAGE`` ``factor`` times
    slower (its run time and its finish time; its volumes as they were)."""
    lines = []
    for line in SPARKLINT.read_text().splitlines():
        event = json.loads(line)
        info = event.get("Task Info") or {}
        if (
            event.get("Event") == "SparkListenerTaskEnd"
            and event.get("Stage ID") == STAGE
            and info.get("Host") == SLOW_HOST
        ):
            took = info["Finish Time"] - info["Launch Time"]
            info["Finish Time"] = int(info["Launch Time"] + factor * took)
            metrics = event["Task Metrics"]
            metrics["Executor Run Time"] = int(factor * metrics["Executor Run Time"])
            line = json.dumps(event)
        lines.append(line)
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.slow
def test_a_slow_host_is_named_where_every_task_of_its_stage_there_was_slow(tmp_path):
    edited = open_session([str(_slowed_host(tmp_path / "application_1472176676028_407508_1"))])
    original = open_session([str(SPARKLINT)])
    tasks = edited.log.tasks
    on_host = tasks[(tasks["stage_key"].str.endswith(f"/{STAGE}/0")) & (tasks["host"] == SLOW_HOST)]
    named, control = [], []
    for task_id in on_host["id"].head(8):
        found = task_cause(edited.log, task_id)
        named.append(found.name if found else None)
        before = task_cause(original.log, task_id)
        control.append(before.name if before else None)
    assert named.count("slow host") >= 6, named
    assert "slow host" not in control, control
    found = task_cause(edited.log, on_host["id"].iloc[1])
    assert found is not None and f"on its host {SLOW_HOST} was slow too" in found.detail
