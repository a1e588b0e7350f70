"""A cold start: a task slower than its reference because it began where nothing was warm.

A stage's first tasks on an executor pay what later tasks find ready: a Python worker to
start (and whatever it builds once: a model, a cache), generated code to compile, the JIT
to warm. Every task launched before any of its stage's tasks on that executor finished runs
in that cold spell, not only the first: two slots start two at once, and both pay. A task
after a failed attempt pays it again: PySpark does not reuse the failed task's Python
worker, so the next task to run Python on that executor starts a new one.

Each is read from the log's launch and finish times, executors and statuses; only the
first task of a stage on its executor needs nothing more (``first_task_on_executor``).
Another opener is named cold only where it and the stage's other openers on that executor
were slow (beyond ``NORMAL_FOLD`` times the stage's median): an opener slow on its own
records, its fellow openers normal, is not a start-up's, and an opener of normal time paid
none (a reference launched while a cold first task was still running: called cold too, it
left that task's cold start unnamed, "computation skew", in a CI run).
"""

from __future__ import annotations

import numpy as np

from perfx.grammar.units import format_ms

from .columns import Columns
from .costmodel import NORMAL_FOLD, stage_rows
from .diagnosis import Diagnosis
from .executors import executor_rows, on_executor

STAMPED_LATE_MS = 50.0
"""How long before a task's logged end the task that takes its freed slot may be launched:
the scheduler launches the next task as the end reaches it, and stamps the end a few
milliseconds later (2 ms, and 6 ms after a failure, in a probe's logs)."""

STAMPED_LATE_SHARE = 0.05
"""...or this share of the ended task's duration, where that is longer: a busy driver stamps
later (a probe's warm-up stage: the third task took the slot of a 5 s opener 62 ms before its
logged end, and was taken for a third opener of two slots, so the first opener's cold start
went unnamed, "compute: its own code ran longer"). An opener is launched as its stage starts,
far earlier in the first ender's run than this."""

NEEDED = ("launch_time", "finish_time", "executor_id", "app_key", "stage_key", "duration")


def cold_start(
    cols: Columns, first: int, second: int, percent: str, python: bool
) -> Diagnosis | None:
    """``cold start`` where ``first`` began cold (see the module docstring) and its
    reference ``second`` did not; None otherwise. ``python``: does ``first``'s stage run
    Python (only then does a failure cost the next task a worker)?"""
    if cols.entity != "task":
        return None
    said = began_cold(cols, first, python)
    if said is None or began_cold(cols, second, python) is not None:
        return None
    return Diagnosis("cold start", f"{said} ({percent})")


def began_cold(cols: Columns, row: int, python: bool) -> str | None:
    """Why ``row`` began cold, in words, or None. ``python``: does its stage run Python?"""
    if "first_task_on_executor" in cols.present:
        if cols.values("first_task_on_executor")[row] == "T":
            return "it was the first task of its stage on its executor"
    if not set(NEEDED) <= cols.present:
        return None
    return _opened_with_slow_peers(cols, row, python) or (
        _after_a_failure(cols, row) if python else None
    )


def _opened_with_slow_peers(cols: Columns, row: int, python: bool) -> str | None:
    """Words for a slow task launched before any other task of its stage on its executor
    finished, whose fellow openers there were slow too; None otherwise."""
    rows = stage_rows(cols, row)
    here = on_executor(cols, rows, row)
    others = here[here != row]
    launch, finish = cols.numeric("launch_time"), cols.numeric("finish_time")
    if not len(others):
        return None
    duration = cols.numeric("duration")
    ender = here[np.nanargmin(finish[here])] if np.isfinite(finish[here]).any() else None
    first_end = (
        np.inf
        if ender is None
        else finish[ender] - max(STAMPED_LATE_MS, STAMPED_LATE_SHARE * duration[ender])
    )
    if not launch[row] < first_end:
        return None
    openers = others[launch[others] < first_end]
    slow = NORMAL_FOLD * float(np.nanmedian(duration[rows]))
    if not duration[row] > slow or not len(openers) or not np.all(duration[openers] > slow):
        return None
    n = len(openers)
    fellows = "1 other task" if n == 1 else f"{n} other tasks"
    slowest = format_ms(float(np.min(duration[openers])))
    return (
        f"it opened its stage on its executor with {fellows} launched before any finished, "
        f"{'as slow' if n == 1 else 'all as slow'} ({slowest}{' or more' if n > 1 else ''}): "
        f"each paid the stage's start-up ({'a Python worker, ' if python else ''}generated "
        "code, the JIT), not its records"
    )


def _after_a_failure(cols: Columns, row: int) -> str | None:
    """Words for the first task launched on its executor after a task attempt failed there;
    None otherwise."""
    if "status" not in cols.present:
        return None
    failed = cols.derived.get("failed attempts")
    if failed is None:  # once per table: every straggler of a report asks
        failed = cols.derived["failed attempts"] = np.flatnonzero(
            cols.table["status"].astype(str).to_numpy() == "FAILED"
        )
    failed = on_executor(cols, failed, row)
    launch, finish = cols.numeric("launch_time"), cols.numeric("finish_time")
    failed = failed[finish[failed] - STAMPED_LATE_MS <= launch[row]]
    if not len(failed):
        return None
    last = failed[np.argmax(finish[failed])]  # the failure whose freed slot it may have taken
    ended = finish[last]
    since = executor_rows(cols, row)
    since = since[(launch[since] >= ended - STAMPED_LATE_MS) & (since != last)]
    if launch[row] != np.min(launch[since]):
        return None  # another task took the slot first
    return (
        f"it was the first task launched on its executor after a task attempt failed there "
        f"(task {cols.values('task_id')[last]}): PySpark does not reuse a failed task's Python "
        "worker, so this task paid a new one's start-up and whatever it builds once"
    )
