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

from sys import intern

import msgspec
import numpy as np
import pandas as pd


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


class _Read(msgspec.Struct, kw_only=True, frozen=True):
    remote_blocks: int = _f("Remote Blocks Fetched", 0)
    local_blocks: int = _f("Local Blocks Fetched", 0)
    fetch_wait: int = _f("Fetch Wait Time", 0)
    remote_bytes: int = _f("Remote Bytes Read", 0)
    remote_to_disk: int = _f("Remote Bytes Read To Disk", 0)
    local_bytes: int = _f("Local Bytes Read", 0)
    records: int = _f("Total Records Read", 0)
    requests: int = _f("Remote Requests Duration", 0)


class _Write(msgspec.Struct, kw_only=True, frozen=True):
    bytes: int = _f("Shuffle Bytes Written", 0)
    time: int = _f("Shuffle Write Time", 0)
    records: int = _f("Shuffle Records Written", 0)


class _Input(msgspec.Struct, kw_only=True, frozen=True):
    bytes: int = _f("Bytes Read", 0)
    records: int = _f("Records Read", 0)


class _Output(msgspec.Struct, kw_only=True, frozen=True):
    bytes: int = _f("Bytes Written", 0)
    records: int = _f("Records Written", 0)


_NO_READ, _NO_WRITE, _NO_INPUT, _NO_OUTPUT = _Read(), _Write(), _Input(), _Output()


class _Metrics(msgspec.Struct, kw_only=True):
    deserialize: int = _f("Executor Deserialize Time", 0)
    deserialize_cpu: int = _f("Executor Deserialize CPU Time", 0)
    run: int = _f("Executor Run Time", 0)
    cpu: int = _f("Executor CPU Time", 0)
    peak_memory: int = _f("Peak Execution Memory", 0)
    result_size: int = _f("Result Size", 0)
    gc: int = _f("JVM GC Time", 0)
    serialization: int = _f("Result Serialization Time", 0)
    memory_spilled: int = _f("Memory Bytes Spilled", 0)
    disk_spilled: int = _f("Disk Bytes Spilled", 0)
    read: _Read = _f("Shuffle Read Metrics", _NO_READ)
    write: _Write = _f("Shuffle Write Metrics", _NO_WRITE)
    input: _Input = _f("Input Metrics", _NO_INPUT)
    output: _Output = _f("Output Metrics", _NO_OUTPUT)


class _TaskEnd(msgspec.Struct, kw_only=True):
    stage: int = _f("Stage ID")
    stage_attempt: int = _f("Stage Attempt ID", 0)
    task_type: str = _f("Task Type")
    reason: _Reason = _f("Task End Reason")
    info: _Info = _f("Task Info")
    metrics: _Metrics | None = _f("Task Metrics", None)


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
    r, w, i, o = m.read, m.write, m.input, m.output
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
        m.deserialize,
        m.deserialize_cpu,
        m.run,
        m.cpu,
        m.peak_memory,
        m.result_size,
        m.gc,
        m.serialization,
        m.memory_spilled,
        m.disk_spilled,
        r.remote_blocks,
        r.local_blocks,
        r.fetch_wait,
        r.remote_bytes,
        r.remote_to_disk,
        r.local_bytes,
        r.records,
        r.requests,
        w.bytes,
        w.time,
        w.records,
        i.bytes,
        i.records,
        o.bytes,
        o.records,
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


RAW_NOMINAL = ("executor_id", "host", "locality", "task_type")
"""The nominal columns read as one str object per task: decode_column keeps one per value."""


def decode_column(values: tuple) -> np.ndarray:
    """A nominal column as an object array holding one (interned) str object per distinct
    value, whatever the rows held (UTF-8 bytes are decoded)."""
    codes, uniques = pd.factorize(np.array(values, dtype=object))
    texts = [intern(u.decode() if isinstance(u, bytes) else u) for u in uniques.tolist()]
    return np.array(texts, dtype=object)[codes]
