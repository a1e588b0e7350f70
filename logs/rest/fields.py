"""Spark's REST JSON -> the values the event-log reader's ``AppState`` accumulates, so that a
REST application becomes the very tables an event log gives (logs.eventlog.log.log_of_states).

Field names are those of Spark's ``status/api/v1/api.scala`` (``TaskData``, ``TaskMetrics``,
``StageData``, ``JobData``, ``ApplicationAttemptInfo``). Units are the event log's: the REST
API passes the nanosecond CPU and shuffle-write times through raw, as the log has them.

What the REST API does not carry is missing (None): the kind of a task's failure
(``end_reason`` of failed tasks: an exception, a fetch failure, a lost executor), why a job
failed, and the parent stages of a stage. A killed task's reason is ``TaskKilled``, which
counts as the log's ``TaskCommitDenied`` does.
``task_type`` is not carried either but follows from the job: a job's result stage is the one
with its highest stage id (Spark creates the parents first), the others are map stages.
"""

from __future__ import annotations

import calendar
import time

from .. import spark_metrics
from ..eventlog.events import TASK_NOMINAL, TASK_NUMERIC

GROUPS = {
    spark_metrics.TOP: "",
    spark_metrics.SHUFFLE_READ: "shuffleReadMetrics",
    spark_metrics.SHUFFLE_WRITE: "shuffleWriteMetrics",
    spark_metrics.INPUT: "inputMetrics",
    spark_metrics.OUTPUT: "outputMetrics",
}
"""Each event-log metric group -> its object in REST's ``taskMetrics`` ('' for the top level)."""

METRIC_FIELDS = {
    "deserialize_time": "executorDeserializeTime",
    "deserialize_cpu_time": "executorDeserializeCpuTime",
    "executor_run_time": "executorRunTime",
    "executor_cpu_time": "executorCpuTime",
    "peak_execution_memory": "peakExecutionMemory",
    "result_size": "resultSize",
    "gc_time": "jvmGcTime",
    "result_serialization_time": "resultSerializationTime",
    "memory_bytes_spilled": "memoryBytesSpilled",
    "disk_bytes_spilled": "diskBytesSpilled",
    "shuffle_remote_blocks_fetched": "remoteBlocksFetched",
    "shuffle_local_blocks_fetched": "localBlocksFetched",
    "shuffle_fetch_wait_time": "fetchWaitTime",
    "shuffle_remote_bytes_read": "remoteBytesRead",
    "shuffle_remote_bytes_read_to_disk": "remoteBytesReadToDisk",
    "shuffle_local_bytes_read": "localBytesRead",
    "shuffle_read_records": "recordsRead",
    "shuffle_remote_reqs_duration": "remoteReqsDuration",
    "shuffle_write_bytes": "bytesWritten",
    "shuffle_write_time": "writeTime",
    "shuffle_write_records": "recordsWritten",
    "input_bytes": "bytesRead",
    "input_records": "recordsRead",
    "output_bytes": "bytesWritten",
    "output_records": "recordsWritten",
}
"""Each task metric's column (logs.spark_metrics) -> its field in its REST group."""

REST_NOTES = {
    "task": {
        "end_reason": "Missing for failed tasks read from Spark's REST API, which does not say "
        "which kind of failure it was.",
        "failure": "Read from Spark's REST API: its error without the stack trace (the log's "
        "words for an exception).",
    },
    "stage": {"parent_ids": "Missing when read from Spark's REST API, which does not carry it."},
    "job": {
        "failure_reason": "Missing for failed jobs read from Spark's REST API, which does not "
        "carry it."
    },
}
"""entity -> column -> what its feature's description adds for a log read over REST."""

_NO_METRICS = (0,) + (None,) * len(spark_metrics.TASK_METRICS)


def epoch_ms(date: str | None) -> int | None:
    """Spark's REST date (``2022-01-13T02:04:56.413GMT``) as epoch ms; None for none."""
    if not date:
        return None
    seconds, _, rest = date.partition(".")
    millis = int(rest[:3]) if rest[:3].isdigit() else 0
    return calendar.timegm(time.strptime(seconds, "%Y-%m-%dT%H:%M:%S")) * 1000 + millis


def _metrics(metrics: dict | None) -> tuple:
    """(has_metrics, every metric in logs.spark_metrics order) of a REST ``taskMetrics``."""
    if not metrics:
        return _NO_METRICS
    values = [1]
    for metric in spark_metrics.TASK_METRICS:
        group = GROUPS[metric.group]
        where = metrics.get(group) or {} if group else metrics
        values.append(where.get(METRIC_FIELDS[metric.column], 0))
    return tuple(values)


def task_row(task: dict, stage_id: int, stage_attempt: int, task_type: str) -> tuple[tuple, tuple]:
    """(numeric, nominal) values of one REST ``TaskData``, in the order of the event log's
    ``events.TASK_NUMERIC`` and ``events.TASK_NOMINAL``. A running task has no finish time,
    no metrics and status UNKNOWN, as a task the log saw start and never end."""
    status = task.get("status", "")
    running = status not in ("SUCCESS", "FAILED", "KILLED")
    launch = epoch_ms(task.get("launchTime"))
    duration = task.get("duration")
    finish = launch + duration if not running and launch is not None and duration else None
    numeric = (
        task["taskId"],
        task.get("index", -1),
        task.get("attempt", 0),
        task.get("partitionId", -1),
        launch,
        finish,
        epoch_ms(task.get("resultFetchStart")) or 0,
        stage_id,
        stage_attempt,
    ) + (_NO_METRICS if running else _metrics(task.get("taskMetrics")))
    reason = {"SUCCESS": "Success", "KILLED": "TaskKilled"}.get(status)
    nominal = (
        task.get("executorId", ""),
        task.get("host", ""),
        task.get("taskLocality", ""),
        "T" if task.get("speculative") else "F",
        "" if running else task_type,
        "UNKNOWN" if running else status,
        "" if running else reason,
        "" if running or status == "SUCCESS" else failure(task.get("errorMessage") or ""),
    )
    assert len(numeric) == len(TASK_NUMERIC) and len(nominal) == len(TASK_NOMINAL)
    return numeric, nominal


def failure(message: str) -> str:
    """The event log's ``failure`` of a REST ``errorMessage``: Spark's error string without
    its stack trace, which for an exception is the log's ``Class: Description``."""
    head, stack, _ = message.partition("\n\tat ")
    return head if stack else head.rstrip("\n")


def stage_info(stage: dict | None, stage_id: int, *, at_job_start: int | None = None) -> dict:
    """The event log's ``Stage Info`` of a REST ``StageData``. ``at_job_start`` (epoch ms):
    the info a JobStart carries, which has a completion time only for a stage that had
    already completed then (a stage the job will skip)."""
    stage = stage or {"stageId": stage_id}
    completion = epoch_ms(stage.get("completionTime"))
    submission = epoch_ms(stage.get("submissionTime"))
    if at_job_start is not None:
        done_before = completion is not None and completion <= at_job_start
        completion = completion if done_before else None
        submission = submission if done_before else None
    return {
        "Stage ID": stage_id,
        "Stage Attempt ID": stage.get("attemptId", 0),
        "Stage Name": stage.get("name", ""),
        "Number of Tasks": stage.get("numTasks", 0),
        "Parent IDs": (),
        "Submission Time": submission,
        "Completion Time": completion,
        "Failure Reason": stage.get("failureReason"),
        "Details": stage.get("details", ""),
    }
