"""The TaskEnd fast path: a typed msgspec decoder for the TaskEnd of a successful task.

TaskEnds are most of an event log's bytes and all of its rows. msgspec decodes a line straight
into small structs that name only the fields perfx reads, skipping the rest (accumulables,
executor metrics, updated blocks) in C without building dicts: about a third of the time of
``orjson.loads`` plus field lookups, and the whole line is still validated as JSON.

Anything else — a failed or killed task, a field of an unexpected type, a truncated line —
returns None, and the caller parses the line with orjson (events.task_end), which stays the
reference: both paths give the same values (tests/logs/test_fastend.py).
"""

from __future__ import annotations

from collections.abc import Callable
from sys import intern

import msgspec
import numpy as np
import pandas as pd

from .. import spark_metrics


def _f(name: str, default=msgspec.NODEFAULT):
    return msgspec.field(name=name, default=default)


class _Reason(msgspec.Struct, kw_only=True):
    reason: str = _f("Reason")


class _Info(msgspec.Struct, kw_only=True):
    task_id: int = _f("Task ID")
    index: int = _f("Index")
    attempt: int = _f("Attempt")
    partition_id: int = _f("Partition ID", -1)
    launch: int = _f("Launch Time")
    executor: str = _f("Executor ID")
    host: str = _f("Host")
    locality: str = _f("Locality")
    speculative: bool = _f("Speculative")
    getting_result: int = _f("Getting Result Time", 0)
    finish: int = _f("Finish Time", 0)
    failed: bool = _f("Failed", False)
    killed: bool = _f("Killed", False)


def _metrics_struct(name: str, group: str, *more: tuple) -> type[msgspec.Struct]:
    """A struct of the group's metrics (logs.spark_metrics), each 0 when absent, as in
    Spark's ``JsonProtocol``; attributes are the metrics' column names."""
    fields = [(metric.column, int, _f(metric.field, 0)) for metric in spark_metrics.in_group(group)]
    return msgspec.defstruct(name, [*fields, *more], kw_only=True, frozen=True)


_GROUP_ATTRIBUTES = {
    group: group.removesuffix(" Metrics").lower().replace(" ", "_")
    for group in spark_metrics.GROUPS
}
"""Each nested metric object's attribute on ``_Metrics``: ``shuffle_read``, ..., ``output``."""
_GROUP_STRUCTS = {
    group: _metrics_struct(f"_{attribute}", group) for group, attribute in _GROUP_ATTRIBUTES.items()
}
_Metrics = _metrics_struct(
    "_Metrics",
    spark_metrics.TOP,
    *(
        (_GROUP_ATTRIBUTES[group], struct, _f(group, struct()))
        for group, struct in _GROUP_STRUCTS.items()
    ),
)


class _TaskEnd(msgspec.Struct, kw_only=True):
    stage: int = _f("Stage ID")
    stage_attempt: int = _f("Stage Attempt ID", 0)
    task_type: str = _f("Task Type")
    reason: _Reason = _f("Task End Reason")
    info: _Info = _f("Task Info")
    metrics: _Metrics | None = _f("Task Metrics", None)  # type: ignore[valid-type]  # built by defstruct from the metric table


_DECODE = msgspec.json.Decoder(_TaskEnd).decode


def read(line: bytes) -> tuple[tuple, tuple] | None:
    """(numeric, nominal) values of a successful task's TaskEnd in events.task_end's order,
    or None for any other line."""
    try:
        end = _DECODE(line)
    except msgspec.DecodeError:
        return None
    info, m = end.info, end.metrics
    if m is None or end.reason.reason != "Success" or info.failed or info.killed or not info.finish:
        return None
    numeric = (
        info.task_id,
        info.index,
        info.attempt,
        info.partition_id,
        info.launch,
        info.finish,
        info.getting_result,
        end.stage,
        end.stage_attempt,
        1,
        *_metric_values(m),
    )
    nominal = (
        info.executor,
        info.host,
        info.locality,
        "T" if info.speculative else "F",
        end.task_type,
        "SUCCESS",
        "Success",
        "",
    )
    return numeric, nominal


def _values_reader() -> Callable[[msgspec.Struct], tuple]:
    """A function returning every metric value of a ``_Metrics`` in logs.spark_metrics' order.

    Written out from the table at import, as ``dataclasses`` writes ``__init__``: one tuple of
    attribute reads is about twice as fast as assembling it from the structs' tuples, and this
    runs once per task of every log."""
    reads = ", ".join(
        f"m.{_GROUP_ATTRIBUTES[metric.group]}.{metric.column}"
        if metric.group
        else f"m.{metric.column}"
        for metric in spark_metrics.TASK_METRICS
    )
    namespace: dict = {}
    exec(f"def metric_values(m):\n    return ({reads},)", namespace)
    return namespace["metric_values"]


_metric_values = _values_reader()


RAW_NOMINAL = ("executor_id", "host", "locality", "task_type")
"""The nominal columns read as one str object per task: decode_column keeps one per value."""


def decode_column(values: tuple) -> np.ndarray:
    """A nominal column as an object array holding one (interned) str object per distinct
    value, whatever the rows held (UTF-8 bytes are decoded)."""
    codes, uniques = pd.factorize(np.array(values, dtype=object))
    texts = [intern(u.decode() if isinstance(u, bytes) else u) for u in uniques.tolist()]
    return np.array(texts, dtype=object)[codes]
