"""The components of a task's time that it spends blocked, each named once.

The paper's question "what if X had taken zero time?" is asked of the same components by the
straggler attribution (per cause) and by the what-if replay (per resource, grouping causes:
``disk`` is shuffle write plus input read). Input read time is not a standard Spark metric;
it exists only in instrumented traces (Ousterhout's ``READ_BLOCKED_TIME``), so a component
counts as *available* only when one of its columns is in the task table with a value. The
causes and their columns are logs.time_parts'.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from perfx.logs.time_parts import CAUSES

RESOURCES: dict[str, tuple[str, ...]] = {
    "gc": ("gc",),
    "network": ("shuffle_read",),
    "disk": ("shuffle_write", "input_read"),
    "scheduler": ("scheduler_delay",),
    "serialization": ("task_deserialization", "result_serialization"),
    **{cause: (cause,) for cause in CAUSES},
}
"""What-if names (``--without``) -> the causes whose time is removed. ``network`` is time
blocked on shuffle fetches and ``disk`` time blocked writing shuffle data and reading input,
as in the paper (section 2.3)."""


def available(tasks: pd.DataFrame, causes: Iterable[str]) -> list[str]:
    """The causes whose time the task table records (one of its columns has a value)."""
    return [
        c
        for c in causes
        if any(col in tasks.columns and tasks[col].notna().any() for col in CAUSES[c])
    ]


def blocked_ms(tasks: pd.DataFrame, causes: Iterable[str]) -> pd.Series:
    """Time each task spent on ``causes`` (ms); missing columns and values count as zero."""
    columns = list(dict.fromkeys(col for c in causes for col in CAUSES[c] if col in tasks.columns))
    if not columns:
        return pd.Series(0.0, index=tasks.index)
    if tasks.empty:  # the dtype an empty table's row sum has
        frame = tasks[columns].apply(pd.to_numeric, errors="coerce")
        return frame.fillna(0.0).clip(lower=0.0).sum(axis=1)
    # column by column, in order (what a row sum of these few columns adds), without a
    # frame of them
    parts = (
        pd.to_numeric(tasks[col], errors="coerce").fillna(0.0).clip(lower=0.0) for col in columns
    )
    total = next(parts)
    for part in parts:
        total = total + part
    return total.rename(None)


def expand(names: Iterable[str]) -> list[str]:
    """Resource or cause names -> the distinct causes they stand for; unknown names raise."""
    unknown = [n for n in names if n not in RESOURCES]
    if unknown:
        raise KeyError(", ".join(unknown))
    return list(dict.fromkeys(c for n in names for c in RESOURCES[n]))
