"""GC pressure a task paid for another: a JVM's collections pause every task running on it,
and Spark charges each running task the whole pause (a task's GC time is the JVM's GC time
over its run). A task whose own input was its peers' can spend most of its time in
collections a task beside it caused, by holding far more data. Its own GC time is then a
symptom; the task that made the garbage is the one to look at.

A probe's held-out cause (a hot key's 16x shuffle read, collected into one list on a small
heap) showed it: the hot task collected for 1.96 s, and a task of normal input that ran
inside its span collected for 766 ms of its 998 ms, the stage's only straggler, and was
diagnosed "GC pressure" as if its own records had made the garbage."""

from __future__ import annotations

import numpy as np

from perfx.grammar.units import format_ms

from .columns import Columns
from .diagnosis import Diagnosis
from .executors import executor_rows

NEEDED = ("launch_time", "finish_time", "executor_id", "app_key", "gc_time", "bytes_in")

MORE_DATA_FOLD = 2.0
"""Times the task's own input (``bytes_in``) the other task must have read to be taken for
the one that made the garbage."""


def garbage_of_another(cols: Columns, row: int, percent: str) -> Diagnosis | None:
    """``GC from a concurrent task`` where a task that ran on ``row``'s executor while it ran
    collected at least as long as ``row`` did and read ``MORE_DATA_FOLD`` times its input;
    None otherwise. ``percent``: GC's share of the gap, in words."""
    if cols.entity != "task" or not set(NEEDED) <= cols.present:
        return None
    launch, finish = cols.numeric("launch_time"), cols.numeric("finish_time")
    gc, data = cols.numeric("gc_time"), cols.numeric("bytes_in")
    if not data[row] > 0:  # a task that read nothing may make its own data (spark.range)
        return None
    beside = executor_rows(cols, row)
    beside = beside[
        (beside != row) & (launch[beside] < finish[row]) & (finish[beside] > launch[row])
    ]
    beside = beside[(gc[beside] >= gc[row]) & (data[beside] >= MORE_DATA_FOLD * data[row])]
    if not len(beside):
        return None
    other = beside[np.argmax(gc[beside])]
    fold, collected = data[other] / data[row], format_ms(float(gc[other]))
    return Diagnosis(
        "GC from a concurrent task",
        f"its JVM spent more time collecting garbage ({percent}), garbage that task "
        f"{cols.values('task_id')[other]} made: it ran on the same executor meanwhile, read "
        f"{fold:.1f}x its input and collected for {collected}, and a collection pauses every "
        "task on its JVM; look at that task",
    )


def on_more_input(cols: Columns, first: int, second: int) -> str:
    """Words for GC pressure of ``first``'s own where it read ``MORE_DATA_FOLD`` times its
    reference's input or more: its records made the garbage, and the lead of the answer
    names that volume while the diagnosis named GC alone (a probe's hot key: "because its
    shuffle read bytes were higher", then "GC pressure"); "" otherwise."""
    if "bytes_in" not in cols.present:
        return ""
    data = cols.numeric("bytes_in")
    own, reference = float(data[first]), float(data[second])
    if not reference > 0 or not own >= MORE_DATA_FOLD * reference:
        return ""
    return f", on {own / reference:.1f}x the input bytes of its reference (read and shuffled in)"
