"""Field mapping for the events perfx uses, across Spark 1.x-4.x.

Each function takes one parsed event (a dict from orjson) and returns plain values in
canonical units and order. Spellings differ between versions only by absence (Spark 1.2 has
no ``Local Bytes Read`` or ``Killed``, 2.x no ``Peak Execution Memory`` task metric, < 3.3 no
``Partition ID``): a metric group that is absent counts as 0, as in Spark's own
``JsonProtocol.taskMetricsFromJson``, so perfx's numbers equal the history server's.
Nanosecond fields stay raw here (the builder converts whole columns at once).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from sys import intern

from .. import spark_metrics

EMPTY: dict = {}

TASK_IDENTITY = ("task_id", "task_index", "attempt", "partition_id", "launch_time", "finish_time")
"""Which attempt of which task, and when it ran: the first numeric values of an attempt."""

TASK_NUMERIC = (
    *TASK_IDENTITY,
    "result_fetch_start",
    "stage_id",
    "stage_attempt_id",
    "has_metrics",
    *spark_metrics.COLUMNS,
)
"""Numeric values of one task attempt, in the order ``task_end`` returns them."""

TASK_NOMINAL = (
    "executor_id",
    "host",
    "locality",
    "speculative",
    "task_type",
    "status",
    "end_reason",
    "failure",
)
"""Nominal values of one task attempt, in the order ``task_end`` returns them."""

NO_METRICS = (0,) + (None,) * len(spark_metrics.TASK_METRICS)

# Nominal values repeat across tasks (hosts, executors, localities, reasons): ``intern`` keeps
# one string object per distinct value instead of one per task.


def task_status(info: dict) -> str:
    """Spark's ``TaskInfo.status`` for a finished attempt."""
    if info.get("Failed"):
        return "FAILED"
    if info.get("Killed"):
        return "KILLED"
    return "SUCCESS" if info.get("Finish Time") else "UNKNOWN"


def failure_text(reason: dict) -> str:
    """A one-line description of why an attempt did not succeed ('' when it did)."""
    kind = reason.get("Reason", "")
    if kind == "Success":
        return ""
    if kind == "ExceptionFailure":
        return f"{reason.get('Class Name', '')}: {reason.get('Description', '')}".strip(": ")
    if kind == "ExecutorLostFailure":
        return str(reason.get("Loss Reason") or "executor lost")
    if kind == "FetchFailed":
        return str(reason.get("Message") or "fetch failed")
    if kind == "TaskKilled":
        return str(reason.get("Kill Reason") or "killed")
    return kind


def _fields(names: list[str]) -> Callable[[dict], tuple]:
    """A C-level getter of ``names`` from a dict that always returns a tuple."""
    if len(names) == 1:
        name = names[0]
        return lambda values: (values[name],)
    return itemgetter(*names)


def _group_getter(group: str) -> Callable[[dict], tuple]:
    """The values of one nested metric object: its fields in table order, a recent field 0
    when the log's Spark predates it."""
    metrics = spark_metrics.in_group(group)
    required = _fields([m.field for m in metrics if not m.recent])
    recent = [m.field for m in metrics if m.recent]
    if not recent:
        return required
    return lambda values: (*required(values), *[values.get(field, 0) for field in recent])


_METRICS = _fields(
    [m.field for m in spark_metrics.in_group(spark_metrics.TOP)] + list(spark_metrics.GROUPS)
)
_READ, _WRITE, _INPUT, _OUTPUT = map(_group_getter, spark_metrics.GROUPS)


def task_metrics(m: dict) -> tuple:
    """The metric values of a ``Task Metrics`` object (logs.spark_metrics order), raw units,
    absent groups as 0.

    Logs of Spark 3.x-4.x have every field but the recent ones (``Remote Requests Duration``,
    3.4+): one C-level lookup per group for them; older logs take the field-by-field path."""
    try:
        *scalars, read, write, inp, out = _METRICS(m)
        return (1, *scalars, *_READ(read), *_WRITE(write), *_INPUT(inp), *_OUTPUT(out))
    except (KeyError, TypeError, AttributeError):
        return task_metrics_any_version(m)


def task_metrics_any_version(m: dict) -> tuple:
    """``task_metrics`` for logs that lack some fields (Spark 1.x-2.x, partial metrics)."""
    groups = {group: m.get(group) or EMPTY for group in spark_metrics.GROUPS}
    groups[spark_metrics.TOP] = m
    return (1, *(groups[t.group].get(t.field, 0) for t in spark_metrics.TASK_METRICS))


_INFO = itemgetter(
    "Task ID",
    "Index",
    "Attempt",
    "Launch Time",
    "Finish Time",
    "Getting Result Time",
    "Executor ID",
    "Host",
    "Locality",
    "Speculative",
    "Failed",
)
_END = itemgetter("Stage ID", "Stage Attempt ID", "Task Type", "Task End Reason", "Task Info")


def task_end(event: dict) -> tuple[tuple, tuple]:
    """(numeric values, nominal values) of a ``SparkListenerTaskEnd``.

    Every Spark since 1.2 writes the fields of the fast path; anything less complete takes
    the field-by-field path with Spark's defaults."""
    try:
        stage, stage_attempt, task_type, reason, info = _END(event)
        (
            task_id,
            index,
            attempt,
            launch,
            finish,
            fetch_start,
            executor,
            host,
            locality,
            speculative,
            _failed,
        ) = _INFO(info)
    except KeyError:
        return task_end_any_version(event)
    metrics = event.get("Task Metrics")
    numeric = (
        task_id,
        index,
        attempt,
        info.get("Partition ID", -1),
        launch,
        finish or None,
        fetch_start,
        stage,
        stage_attempt,
    ) + (task_metrics(metrics) if metrics else NO_METRICS)
    kind = reason["Reason"]
    status = task_status(info)
    nominal = (
        intern(executor),
        intern(host),
        intern(locality),
        "T" if speculative else "F",
        intern(task_type),
        status,
        intern(kind),
        "" if kind == "Success" else failure_text(reason),
    )
    return numeric, nominal


def _attempt_numbers(event: dict, finish: int | None, fetch_start: int) -> tuple:
    """An attempt's numeric values before its metrics (``TASK_NUMERIC``), read from an event
    that may lack some (any Spark version's, or a start with no end yet)."""
    info = event["Task Info"]
    return (
        info["Task ID"],
        info.get("Index", -1),
        info.get("Attempt", 0),
        info.get("Partition ID", -1),
        info.get("Launch Time"),
        finish,
        fetch_start,
        event.get("Stage ID", -1),
        event.get("Stage Attempt ID", 0),
    )


def task_end_any_version(event: dict) -> tuple[tuple, tuple]:
    """``task_end`` for events that lack some fields."""
    info = event["Task Info"]
    reason = event.get("Task End Reason") or EMPTY
    metrics = event.get("Task Metrics")
    numeric = _attempt_numbers(
        event, info.get("Finish Time") or None, info.get("Getting Result Time", 0)
    ) + (task_metrics(metrics) if metrics else NO_METRICS)
    nominal = (
        intern(info.get("Executor ID", "")),
        intern(info.get("Host", "")),
        intern(info.get("Locality", "")),
        "T" if info.get("Speculative") else "F",
        intern(event.get("Task Type", "")),
        task_status(info),
        intern(reason.get("Reason", "")),
        failure_text(reason),
    )
    return numeric, nominal


def task_start(event: dict) -> tuple[tuple, tuple]:
    """(numeric, nominal) values of an attempt that started but never ended in the log."""
    info = event["Task Info"]
    numeric = _attempt_numbers(event, None, 0) + NO_METRICS
    nominal = (
        info.get("Executor ID", ""),
        info.get("Host", ""),
        info.get("Locality", ""),
        "T" if info.get("Speculative") else "F",
        "",
        "UNKNOWN",
        "",
        "",
    )
    return numeric, nominal


def stage_info(info: dict) -> dict:
    """The fields of a ``Stage Info`` object that the stage table keeps."""
    return {
        "stage_id": info["Stage ID"],
        "stage_attempt_id": info.get("Stage Attempt ID", 0),
        "name": info.get("Stage Name", ""),
        "num_tasks": info.get("Number of Tasks", 0),
        "parent_ids": tuple(info.get("Parent IDs") or ()),
        "submission_time": info.get("Submission Time"),
        "completion_time": info.get("Completion Time"),
        "failure_reason": info.get("Failure Reason"),
        "details": info.get("Details", ""),
    }
