"""Where every event perfx reads is validated, once, before any handler sees it: the one place
that says which fields an event must have and of which type.

A damaged log (a flipped byte, a cut, a tool that writes a field as a string) must cost the
line, never the log: a value of the wrong type that reached the tables would fail far away
(``float()`` of a dict while building a block of rows, pandas on duplicate ids). So a line is
checked here and, if it is not UTF-8, not JSON, or lacks a field or has one of another type,
``problem`` says why in a few words and the reader skips and counts it.

The checks ride on msgspec's typed decoding (C, skipping the fields no schema names), on the
lines the fast path (eventlog.fastend, itself a typed msgspec decoder of successful
TaskEnds) did not take: failed and killed tasks, stage, job and app events, and the
TaskStarts of attempts that never ended. The schemas are lenient where Spark versions differ
(a field some version lacks has Spark's default) and strict on the types.

Reasons read ``<kind>[: <detail>]``; ``model.skipped_notes`` counts lines by kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec
import orjson

from .. import spark_metrics

NOT_UTF8 = "not UTF-8"
NOT_JSON = "not JSON"
CUT = "truncated last line"


def _f(name: str, default=msgspec.NODEFAULT):
    return msgspec.field(name=name, default=default)


Number = int | float
"""A metric: Spark writes longs; other writers' floats are read as they are."""


def _group(name: str, group: str) -> type[msgspec.Struct]:
    """The metric fields of one group of ``Task Metrics``, each a number, 0 when absent."""
    fields = [(m.column, Number, _f(m.field, 0)) for m in spark_metrics.in_group(group)]
    return msgspec.defstruct(name, fields, kw_only=True)


_TaskMetrics = msgspec.defstruct(
    "_TaskMetrics",
    [
        *((m.column, Number, _f(m.field, 0)) for m in spark_metrics.in_group(spark_metrics.TOP)),
        *(
            (f"group_{i}", _group(f"_Group{i}", group) | None, _f(group, None))
            for i, group in enumerate(spark_metrics.GROUPS)
        ),
    ],
    kw_only=True,
)


class _TaskInfo(msgspec.Struct, kw_only=True):
    task_id: int = _f("Task ID")
    launch: int = _f("Launch Time")
    index: int = _f("Index", -1)
    attempt: int = _f("Attempt", 0)
    partition_id: int = _f("Partition ID", -1)
    finish: int | None = _f("Finish Time", 0)
    getting_result: int | None = _f("Getting Result Time", 0)
    executor: str = _f("Executor ID", "")
    host: str = _f("Host", "")
    locality: str = _f("Locality", "")
    speculative: bool = _f("Speculative", False)
    failed: bool = _f("Failed", False)
    killed: bool = _f("Killed", False)


class _Reason(msgspec.Struct, kw_only=True):
    reason: str = _f("Reason", "")
    class_name: str | None = _f("Class Name", None)
    description: str | None = _f("Description", None)


class _TaskStart(msgspec.Struct, kw_only=True):
    stage: int = _f("Stage ID", -1)
    stage_attempt: int = _f("Stage Attempt ID", 0)
    info: _TaskInfo = _f("Task Info")


class _TaskEnd(_TaskStart, kw_only=True):
    task_type: str = _f("Task Type", "")
    reason: _Reason | None = _f("Task End Reason", None)
    metrics: _TaskMetrics | None = _f("Task Metrics", None)  # type: ignore[valid-type]  # built by defstruct


class _StageInfo(msgspec.Struct, kw_only=True):
    stage_id: int = _f("Stage ID")
    attempt: int = _f("Stage Attempt ID", 0)
    name: str = _f("Stage Name", "")
    num_tasks: int = _f("Number of Tasks", 0)
    parent_ids: list[int] | None = _f("Parent IDs", None)
    submission: int | None = _f("Submission Time", None)
    completion: int | None = _f("Completion Time", None)
    failure: str | None = _f("Failure Reason", None)
    details: str | None = _f("Details", None)


class _Stage(msgspec.Struct, kw_only=True):
    info: _StageInfo = _f("Stage Info")


class _JobStart(msgspec.Struct, kw_only=True):
    job_id: int = _f("Job ID")
    submission: int | None = _f("Submission Time", None)
    stage_infos: list[_StageInfo] | None = _f("Stage Infos", None)
    stage_ids: list[int] | None = _f("Stage IDs", None)
    properties: dict[str, str] | None = _f("Properties", None)


class _JobResult(msgspec.Struct, kw_only=True):
    result: str = _f("Result", "")


class _JobEnd(msgspec.Struct, kw_only=True):
    job_id: int = _f("Job ID")
    completion: int | None = _f("Completion Time", None)
    result: _JobResult | None = _f("Job Result", None)


class _AppStart(msgspec.Struct, kw_only=True):
    name: str = _f("App Name", "")
    app_id: str | None = _f("App ID", None)
    attempt: str | int | None = _f("App Attempt ID", None)
    user: str = _f("User", "")
    timestamp: int | None = _f("Timestamp", None)


class _AppEnd(msgspec.Struct, kw_only=True):
    timestamp: int | None = _f("Timestamp", None)


Properties = dict[str, str | int | float | bool | None] | list[list[str]] | None


class _Environment(msgspec.Struct, kw_only=True):
    spark: Properties = _f("Spark Properties", None)
    system: Properties = _f("System Properties", None)


class _LogStart(msgspec.Struct, kw_only=True):
    version: str = _f("Spark Version", "")


ExecutorId = str | int
"""Spark writes an executor's id as a string ("driver", "3"); a number is read as its text."""


class _ExecutorInfo(msgspec.Struct, kw_only=True):
    host: str | None = _f("Host", None)
    total_cores: int | None = _f("Total Cores", None)


class _ExecutorAdded(msgspec.Struct, kw_only=True):
    executor_id: ExecutorId = _f("Executor ID")
    timestamp: int | None = _f("Timestamp", None)
    info: _ExecutorInfo | None = _f("Executor Info", None)


class _BlockManagerId(msgspec.Struct, kw_only=True):
    executor_id: ExecutorId = _f("Executor ID")
    host: str | None = _f("Host", None)
    port: int | None = _f("Port", None)


class _BlockManagerAdded(msgspec.Struct, kw_only=True):
    manager: _BlockManagerId = _f("Block Manager ID")
    max_memory: int | None = _f("Maximum Memory", None)
    timestamp: int | None = _f("Timestamp", None)


class _ExecutorRemoved(msgspec.Struct, kw_only=True):
    executor_id: ExecutorId = _f("Executor ID")
    timestamp: int | None = _f("Timestamp", None)
    reason: str | None = _f("Removed Reason", None)


class _SQLExecutionStart(msgspec.Struct, kw_only=True):
    execution_id: int = _f("executionId")
    plan: str | None = _f("physicalPlanDescription", None)


SCHEMAS: dict[str, type] = {
    "SparkListenerTaskEnd": _TaskEnd,
    "SparkListenerTaskStart": _TaskStart,
    "SparkListenerStageSubmitted": _Stage,
    "SparkListenerStageCompleted": _Stage,
    "SparkListenerJobStart": _JobStart,
    "SparkListenerJobEnd": _JobEnd,
    "SparkListenerApplicationStart": _AppStart,
    "SparkListenerApplicationEnd": _AppEnd,
    "SparkListenerEnvironmentUpdate": _Environment,
    "SparkListenerLogStart": _LogStart,
    "DBCEventLoggingListenerMetadata": _LogStart,
    "SparkListenerExecutorAdded": _ExecutorAdded,
    "SparkListenerBlockManagerAdded": _BlockManagerAdded,
    "SparkListenerExecutorRemoved": _ExecutorRemoved,
    "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart": _SQLExecutionStart,
}
"""Event name -> the schema its line must satisfy: every event eventlog.build handles."""

_DECODERS: dict[str, Callable[[bytes], object]] = {
    name: msgspec.json.Decoder(schema).decode for name, schema in SCHEMAS.items()
}

_AT = re.compile(r"^(.*?) - at `\$(.*)`$")
_MISSING = re.compile(r"^Object missing required field `(.*)`$")


def _where(path: str) -> str:
    """``.Task Info.Launch Time`` (msgspec's path) as ``Task Info/Launch Time``; list indices
    are dropped: ``Stage Infos/Stage ID``."""
    parts = re.split(r"\.|\[[^\]]*\]", path)
    return "/".join(p for p in parts if p)


def _validation_reason(message: str) -> str:
    match = _AT.match(message)
    what, path = (match.group(1), _where(match.group(2))) if match else (message, "")
    missing = _MISSING.match(what)
    if missing:
        field = "/".join(p for p in (path, missing.group(1)) if p)
        return f"missing {field}"
    if path:
        return f"wrong type for {path}: {what.replace('`', '')}"
    return f"wrong type: {what.replace('`', '')}"


def problem(name: str, line: bytes) -> str | None:
    """Why the line of a ``name`` event cannot be used (``wrong type for <field>: ...``,
    ``missing <field>``), or None when its fields are all there with their types."""
    decode = _DECODERS.get(name)
    if decode is None:
        return None
    try:
        decode(line)
    except msgspec.ValidationError as err:
        return _validation_reason(str(err))
    except msgspec.DecodeError as err:  # orjson accepted the line: msgspec's stricter limits
        return f"{NOT_JSON}: {err}"
    return None


def is_utf8(line: bytes) -> bool:
    """Is ``line`` UTF-8? The fast path's typed decoder checks only the strings it reads."""
    try:
        line.decode()
    except UnicodeDecodeError:
        return False
    return True


def unparsable(err: orjson.JSONDecodeError, line: bytes) -> str:
    """Why orjson could not parse ``line``: not UTF-8, a cut last line, or not JSON."""
    if "UTF-8" in str(err):
        # where the bad byte is: orjson's message ("surrogates not allowed: line 1 column 1
        # (char 0)") placed it at the line's start, beside the file's line number
        try:
            line.decode()
        except UnicodeDecodeError as bad:
            return f"{NOT_UTF8}: byte 0x{line[bad.start]:02x} at column {bad.start + 1}"
        return f"{NOT_UTF8}: {err}"
    if not line.endswith(b"\n"):
        return CUT
    return f"{NOT_JSON}: {err}"
