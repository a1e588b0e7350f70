"""Computation-skew detection from the original run's event log (PerfDebug section 4.1).

A task is flagged when its inverse progress rate (logs.progress: time per byte read, else per
record, else its duration, one basis per stage) exceeds ``factor`` x its stage's median, or when
its GC, result-serialization or deserialization time is far above its stage's: more than
``cost_factor`` x the stage median of that time and at least ``min_share`` of the task's
duration. Both are signs that some records cost far more than others: the cue to re-run the
program traced.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfx.grammar.units import format_ms
from perfx.logs.progress import BASIS_WORDS, THRESHOLD, inverse_rate
from perfx.logs.time_parts import BY_NAME

COSTS = {
    BY_NAME[part].columns[0]: BY_NAME[part].label
    for part in ("gc", "task_deserialization", "result_serialization")
}
"""The parts of a task's time that grow with what its records cost (logs.time_parts):
task column -> how a reason names it."""
COLUMNS = [
    "app_id",
    "stage_id",
    "stage_key",
    "task_id",
    "partition_id",
    "duration",
    "rate",
    "stage_median_rate",
    "rate_ratio",
    "reasons",
]


def skewed_tasks(
    tasks: pd.DataFrame,
    factor: float = THRESHOLD,
    cost_factor: float = 3.0,
    min_share: float = 0.1,
) -> pd.DataFrame:
    """The flagged tasks of stages with at least two tasks, slowest (relative) first."""
    tasks = tasks.copy()
    for column in ["records_in", "bytes_in", *COSTS]:
        if column not in tasks:
            tasks[column] = np.nan
    tasks = tasks[tasks.groupby("stage_key")["stage_key"].transform("size") >= 2]
    if tasks.empty:
        return pd.DataFrame(columns=COLUMNS)
    rates = inverse_rate(tasks)
    tasks["rate"] = rates["rate"]
    tasks["stage_median_rate"] = tasks.groupby("stage_key")["rate"].transform("median")
    tasks["rate_ratio"] = tasks["rate"] / tasks["stage_median_rate"].replace(0, np.nan)
    rate_words = rates["basis"].map(BASIS_WORDS)
    reasons = pd.Series([[] for _ in range(len(tasks))], index=tasks.index)
    for index in tasks.index[tasks["rate_ratio"] > factor]:
        reasons[index].append(
            f"{tasks.at[index, 'rate_ratio']:.1f}x the stage's median {rate_words[index]}"
        )
    for column, label in COSTS.items():
        median = tasks.groupby("stage_key")[column].transform("median").fillna(0)
        high = (
            (tasks[column] > cost_factor * median)
            & (tasks[column] >= min_share * tasks["duration"])
            & (tasks[column] > 0)
        )
        for index in tasks.index[high]:
            reasons[index].append(
                f"{label} {format_ms(tasks.at[index, column])} "
                f"(stage median {format_ms(median[index])})"
            )
    tasks["reasons"] = reasons
    flagged = tasks[tasks["reasons"].map(bool)]
    return flagged[COLUMNS].sort_values("rate_ratio", ascending=False, ignore_index=True)
