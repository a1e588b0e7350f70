"""Where a task's time goes, named once: each measured part of a task's duration, the task
columns that hold it (ms), how a sentence names it, and whether Spark times it inside
``executor_run_time``.

The blocked-time analysis (explain/blocked: its straggler causes and what-ifs), the duration
gap (explain/gap), the compute time (logs/derive: run time minus the parts inside it) and
the skew detector (isolation/detect) all read this table.
"""

from __future__ import annotations

from typing import NamedTuple


class TimePart(NamedTuple):
    name: str
    columns: tuple[str, ...]
    label: str
    in_run_time: bool
    """Spark times it while the task runs (GC, shuffle fetch waits and writes; instrumented
    traces' input reads), so it is inside ``executor_run_time``."""
    cause: bool = True
    """A blocked-time cause whose removal the straggler analysis and the what-ifs consider
    (input read time exists only in instrumented traces, Ousterhout's ``READ_BLOCKED_TIME``)."""


TIME_PARTS: tuple[TimePart, ...] = (
    TimePart("scheduler_delay", ("scheduler_delay",), "scheduler delay", False),
    TimePart("task_deserialization", ("deserialize_time",), "task deserialization", False),
    TimePart("gc", ("gc_time",), "GC", True),
    TimePart("shuffle_read", ("shuffle_fetch_wait_time",), "shuffle fetch wait", True),
    TimePart("shuffle_write", ("shuffle_write_time",), "shuffle write", True),
    TimePart("input_read", ("input_read_time",), "input read", True),
    TimePart("result_serialization", ("result_serialization_time",), "result serialization", False),
    TimePart("getting_result", ("getting_result_time",), "getting result", False, cause=False),
)
"""In the order of a task's life: launched, deserialized, run, its result serialized and
fetched."""

BY_NAME = {part.name: part for part in TIME_PARTS}

CAUSES: dict[str, tuple[str, ...]] = {
    part.name: part.columns
    for part in sorted(TIME_PARTS, key=lambda part: not part.in_run_time)
    if part.cause
}
"""Counterfactual straggler causes -> the task columns holding their time: the parts inside
the run time first, then the others (the order the straggler report lists them in)."""

RUN_TIME_PARTS = tuple(column for part in TIME_PARTS if part.in_run_time for column in part.columns)
"""The measured parts of a Spark task's executor run time; compute is what they leave."""
