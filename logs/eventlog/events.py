"""Field mapping for the events perfx uses, across Spark 1.x-4.x.

Each function takes one parsed event (a dict from orjson) and returns plain values in
canonical units and order. Spellings differ between versions only by absence (Spark 1.2 has
no ``Local Bytes Read`` or ``Killed``, 2.x no ``Peak Execution Memory`` task metric, < 3.3 no
``Partition ID``): a metric group that is absent counts as 0, as in Spark's own
``JsonProtocol.taskMetricsFromJson``, so perfx's numbers equal the history server's.
Nanosecond fields stay raw here (the builder converts whole columns at once).
"""

from __future__ import annotations

from operator import itemgetter
from sys import intern

EMPTY: dict = {}

TASK_NUMERIC = (
    "task_id",
    "task_index",
    "attempt",
    "partition_id",
    "launch_time",
    "finish_time",
    "result_fetch_start",
    "stage_id",
    "stage_attempt_id",
    "has_metrics",
    "deserialize_time",
    "deserialize_cpu_time",
    "executor_run_time",
    "executor_cpu_time",
    "peak_execution_memory",
    "result_size",
    "gc_time",
    "result_serialization_time",
    "memory_bytes_spilled",
    "disk_bytes_spilled",
    "shuffle_remote_blocks_fetched",
    "shuffle_local_blocks_fetched",
    "shuffle_fetch_wait_time",
    "shuffle_remote_bytes_read",
    "shuffle_remote_bytes_read_to_disk",
    "shuffle_local_bytes_read",
    "shuffle_read_records",
    "shuffle_remote_reqs_duration",
    "shuffle_write_bytes",
    "shuffle_write_time",
    "shuffle_write_records",
    "input_bytes",
    "input_records",
    "output_bytes",
    "output_records",
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

NO_METRICS = (0,) + (None,) * 25

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


_METRICS = itemgetter(
    "Executor Deserialize Time",
    "Executor Deserialize CPU Time",
    "Executor Run Time",
    "Executor CPU Time",
    "Peak Execution Memory",
    "Result Size",
    "JVM GC Time",
    "Result Serialization Time",
    "Memory Bytes Spilled",
    "Disk Bytes Spilled",
    "Shuffle Read Metrics",
    "Shuffle Write Metrics",
    "Input Metrics",
    "Output Metrics",
)
_READ = itemgetter(
    "Remote Blocks Fetched",
    "Local Blocks Fetched",
    "Fetch Wait Time",
    "Remote Bytes Read",
    "Remote Bytes Read To Disk",
    "Local Bytes Read",
    "Total Records Read",
)
_WRITE = itemgetter("Shuffle Bytes Written", "Shuffle Write Time", "Shuffle Records Written")
_INPUT = itemgetter("Bytes Read", "Records Read")
_OUTPUT = itemgetter("Bytes Written", "Records Written")


def task_metrics(m: dict) -> tuple:
    """The metric values of a ``Task Metrics`` object, raw units, absent groups as 0.

    Logs of Spark 3.x-4.x have every field but ``Remote Requests Duration`` (3.4+): one C-level
    lookup each for them; older logs take the field-by-field path."""
    try:
        *scalars, read, write, inp, out = _METRICS(m)
        return (
            1,
            *scalars,
            *_READ(read),
            read.get("Remote Requests Duration", 0),
            *_WRITE(write),
            *_INPUT(inp),
            *_OUTPUT(out),
        )
    except (KeyError, TypeError):
        return task_metrics_any_version(m)


def task_metrics_any_version(m: dict) -> tuple:
    """``task_metrics`` for logs that lack some fields (Spark 1.x-2.x, partial metrics)."""
    read = m.get("Shuffle Read Metrics") or EMPTY
    write = m.get("Shuffle Write Metrics") or EMPTY
    inp = m.get("Input Metrics") or EMPTY
    out = m.get("Output Metrics") or EMPTY
    return (
        1,
        m.get("Executor Deserialize Time", 0),
        m.get("Executor Deserialize CPU Time", 0),
        m.get("Executor Run Time", 0),
        m.get("Executor CPU Time", 0),
        m.get("Peak Execution Memory", 0),
        m.get("Result Size", 0),
        m.get("JVM GC Time", 0),
        m.get("Result Serialization Time", 0),
        m.get("Memory Bytes Spilled", 0),
        m.get("Disk Bytes Spilled", 0),
        read.get("Remote Blocks Fetched", 0),
        read.get("Local Blocks Fetched", 0),
        read.get("Fetch Wait Time", 0),
        read.get("Remote Bytes Read", 0),
        read.get("Remote Bytes Read To Disk", 0),
        read.get("Local Bytes Read", 0),
        read.get("Total Records Read", 0),
        read.get("Remote Requests Duration", 0),
        write.get("Shuffle Bytes Written", 0),
        write.get("Shuffle Write Time", 0),
        write.get("Shuffle Records Written", 0),
        inp.get("Bytes Read", 0),
        inp.get("Records Read", 0),
        out.get("Bytes Written", 0),
        out.get("Records Written", 0),
    )


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


def task_end_any_version(event: dict) -> tuple[tuple, tuple]:
    """``task_end`` for events that lack some fields."""
    info = event["Task Info"]
    reason = event.get("Task End Reason") or EMPTY
    metrics = event.get("Task Metrics")
    numeric = (
        info["Task ID"],
        info.get("Index", -1),
        info.get("Attempt", 0),
        info.get("Partition ID", -1),
        info.get("Launch Time"),
        info.get("Finish Time") or None,
        info.get("Getting Result Time", 0),
        event.get("Stage ID", -1),
        event.get("Stage Attempt ID", 0),
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
    numeric = (
        info["Task ID"],
        info.get("Index", -1),
        info.get("Attempt", 0),
        info.get("Partition ID", -1),
        info.get("Launch Time"),
        None,
        0,
        event.get("Stage ID", -1),
        event.get("Stage Attempt ID", 0),
    ) + NO_METRICS
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
