"""What a task's attempt says of its time, before any of its parts: a speculative copy, an
attempt that failed (its executor lost, or an exception), a retry after failed attempts.

A speculative copy is launched because its partition's first attempt was slow, and one of
the two is killed when the other finishes: neither's time is a completed run of its records.
A failed attempt's time ends at its failure. A retry runs after its partition's earlier
attempts failed, starting its partition over (on another, often fresh, executor it also
recomputes what the lost executor held): its extra time is the failure's cost, not its
records'. Each is read from the log's own fields (``speculative``, ``status``,
``end_reason``, ``failure``, ``attempt``), never guessed from times. ``explain.gap.diagnose``
asks these first (``attempt_diagnosis``), and ``explain.gap.mechanism`` names a retry where
the extra time follows no volume (``retry_diagnosis``).
"""

from __future__ import annotations

import numpy as np

from .columns import Columns
from .diagnosis import Diagnosis

FAILURE_SHOWN = 120
"""Characters of a failure's message the diagnosis quotes (its first line)."""


SPECULATIVE_COPY, FAILED_ATTEMPT, EXECUTOR_LOST = (
    "speculative copy",
    "failed attempt",
    "executor lost",
)
NOT_A_RUN = (SPECULATIVE_COPY, FAILED_ATTEMPT, EXECUTOR_LOST)
"""The diagnoses of an attempt whose time is no completed run of its records: an answer says
so before any pattern of the history (explain.explanation)."""


def attempt_diagnosis(cols: Columns, row: int) -> Diagnosis | None:
    """A speculative copy, or an attempt killed for one; a failed attempt (executor lost, or
    its own failure); None for an attempt that ran to success on its own."""
    status = _text(cols, "status", row)
    speculative = _text(cols, "speculative", row) in ("T", "True", "true")
    reason = _text(cols, "failure", row) or _text(cols, "end_reason", row)
    if speculative or (status == "KILLED" and "another attempt succeeded" in reason):
        partition = _partition(cols, row)
        what = (
            f"this attempt is a speculative copy of {partition}: Spark launched it because "
            "the first attempt was slow"
            if speculative
            else f"this attempt of {partition} was killed when a speculative copy of it "
            "finished first"
        )
        ended = f" ({_first_line(reason)})" if status == "KILLED" and reason else ""
        return Diagnosis(
            SPECULATIVE_COPY,
            f"{what}{ended}; its time is not a completed run of its records: ask about the "
            "attempt that succeeded",
        )
    if status == "FAILED" and reason == "Success":
        # Spark 1.x marks failed the late end of an attempt it gave up (its executor lost)
        # while logging the end's own reason, Success: no failure to quote, nor does its time
        # end at one
        return Diagnosis(
            FAILED_ATTEMPT,
            f"this attempt of {_partition(cols, row)} is marked failed though its end reports "
            "Success: Spark gave it up before its result came (its executor lost, as Spark 1.x "
            "logs it); its time is not a completed run its stage accepted",
        )
    if status == "FAILED":
        partition = _partition(cols, row)
        lost = "ExecutorLost" in _text(cols, "end_reason", row) or "ExecutorLost" in reason
        return Diagnosis(
            EXECUTOR_LOST if lost else FAILED_ATTEMPT,
            f"this attempt of {partition} failed ({_first_line(reason) or 'no reason logged'}): "
            "its time ends at the failure"
            + (
                "; its executor was lost (memory: spark.executor.memoryOverhead, or a "
                "preempted node)"
                if lost
                else ""
            ),
        )
    return None


def retry_diagnosis(cols: Columns, row: int, percent: str) -> Diagnosis | None:
    """A successful attempt after failed attempts of its partition: ``retry``, with how many
    failed and why, or None for a first attempt."""
    attempt = _number(cols, "attempt", row)
    if not attempt or attempt <= 0:
        return None
    earlier = _earlier_attempts(cols, row)
    reasons = [
        _first_line(_text(cols, "failure", r) or _text(cols, "end_reason", r)) for r in earlier
    ]
    lost = any("ExecutorLost" in _text(cols, "end_reason", r) for r in earlier)
    said = f": {reasons[-1]}" if reasons and reasons[-1] else ""
    moved = bool(earlier) and _text(cols, "executor_id", earlier[-1]) != _text(
        cols, "executor_id", row
    )
    return Diagnosis(
        "retry",
        f"it is attempt {attempt:.0f} of {_partition(cols, row)}, after {len(earlier)} failed "
        f"attempt{'s' if len(earlier) != 1 else ''}{said} ({percent}): "
        + (
            "a retry on another executor recomputes what the failed one held"
            if moved
            else "a retry starts its partition over, here on the executor it failed on"
        )
        + (
            "; its executor was lost: give executors more memory (spark.executor.memoryOverhead)"
            if lost
            else "; fix the failure"
        ),
    )


def _earlier_attempts(cols: Columns, row: int) -> list[int]:
    """Rows of the failed attempts of ``row``'s partition in its stage, before it."""
    table = cols.table
    if not {"stage_key", "task_index", "attempt", "status"} <= set(table.columns):
        return []
    stage, index = cols.key("stage_key"), cols.numeric("task_index")
    attempts = cols.numeric("attempt")
    same = np.flatnonzero(
        (stage == stage[row]) & (index == index[row]) & (attempts < attempts[row])
    )
    return [int(r) for r in same if _text(cols, "status", int(r)) == "FAILED"]


def _partition(cols: Columns, row: int) -> str:
    index = _number(cols, "task_index", row)
    return f"partition {index:.0f}'s task" if index is not None else "its task"


def _first_line(text: str) -> str:
    """A failure in one line: its first, or for a Python worker's traceback (whose first line
    only says one follows) the exception it ended with, after the JVM's exception class."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[0]
    if PYTHON_TRACEBACK in line and len(lines) > 1:
        line = f"{line.split(':', 1)[0]}: {lines[-1]}"
    return line if len(line) <= FAILURE_SHOWN else line[: FAILURE_SHOWN - 1] + "…"


PYTHON_TRACEBACK = "Traceback (most recent call last)"


def _text(cols: Columns, column: str, row: int) -> str:
    if column not in cols.present:
        return ""
    value = cols.values(column)[row]
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)


def _number(cols: Columns, column: str, row: int) -> float | None:
    if column not in cols.present:
        return None
    value = float(cols.numeric(column)[row])
    return value if np.isfinite(value) else None
