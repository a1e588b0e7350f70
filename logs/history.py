"""Two views the Spark history server derives from task ends, computed from perfx's tables:
per-executor totals (``/executors``) and task-summary quantiles (``/taskSummary``).

They follow ``AppStatusListener`` and ``AppStatusStore`` exactly, so that perfx can be
checked number for number against Spark's own REST answers, and so that users comparing with
the Spark UI see the same numbers."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

DEFAULT_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)

KILLED_REASONS = ("TaskKilled", "TaskCommitDenied")


def task_end_counts(tasks: pd.DataFrame) -> dict[str, np.ndarray]:
    """What each task attempt adds to the history server's task counters ``active``,
    ``completed``, ``failed`` and ``killed`` (int64 arrays, one entry per task).

    Spark counts task *ends*: Success is completed; TaskKilled and TaskCommitDenied are
    killed; anything else is failed, including the extra ``Resubmitted`` end of a map task
    whose output was lost (which perfx keeps as a count on the task's row rather than as a
    second row). A task without an end is active."""
    reason = tasks["end_reason"].to_numpy()
    ended = tasks["status"].to_numpy() != "UNKNOWN"
    completed = reason == "Success"
    killed = np.isin(reason, KILLED_REASONS)
    return {
        "active": (~ended).astype(np.int64),
        "completed": completed.astype(np.int64),
        "failed": (ended & ~completed & ~killed).astype(np.int64)
        + tasks["resubmitted"].to_numpy(dtype=np.int64),
        "killed": killed.astype(np.int64),
    }


def executor_totals(tasks: pd.DataFrame, apps: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per (app_key, executor_id): completed, failed and total tasks, and total duration, GC,
    input, shuffle read and shuffle write.

    As in the history server: killed tasks count in no task counter but their duration
    counts; a ``Resubmitted`` end counts as one more failed task and adds the task's duration
    again, but not its metrics. Given ``apps``, the driver's total duration is the
    application's duration (the history server reports the driver's uptime there), and every
    app has a driver row."""
    counts = task_end_counts(tasks)
    resubmitted = tasks["resubmitted"].astype(np.int64)
    frame = pd.DataFrame(
        {
            "app_key": tasks["app_key"],
            "executor_id": tasks["executor_id"],
            "active_tasks": counts["active"],
            "completed_tasks": counts["completed"],
            "failed_tasks": counts["failed"],
            "total_duration": tasks["duration"].fillna(0) * (1 + resubmitted),
            "total_gc_time": tasks["gc_time"].fillna(0),
            "total_input_bytes": tasks["input_bytes"].fillna(0),
            "total_shuffle_read": tasks["shuffle_read_bytes"].fillna(0),
            "total_shuffle_write": tasks["shuffle_write_bytes"].fillna(0),
        }
    )
    totals = frame.groupby(["app_key", "executor_id"], sort=True).sum()
    if apps is not None and len(apps):
        drivers = pd.MultiIndex.from_arrays(
            [apps["app_key"], ["driver"] * len(apps)], names=totals.index.names
        )
        totals = totals.reindex(totals.index.union(drivers), fill_value=0)
        uptime = apps.set_index("app_key")["duration"].dropna()
        for app_key, duration in uptime.items():
            totals.loc[(app_key, "driver"), "total_duration"] = duration
    totals.insert(
        3,
        "total_tasks",
        totals["active_tasks"] + totals["completed_tasks"] + totals["failed_tasks"],
    )
    return totals.reset_index()


def quantile_values(
    values: Sequence[float] | pd.Series, quantiles: Sequence[float] = DEFAULT_QUANTILES
) -> list[float]:
    """The history server's quantiles: no interpolation, ``sorted[min(floor(q*n), n-1)]``."""
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    n = len(ordered)
    if n == 0:
        return []
    return [float(ordered[min(math.floor(q * n), n - 1)]) for q in quantiles]


def task_summary(
    tasks: pd.DataFrame, columns: Sequence[str], quantiles: Sequence[float] = DEFAULT_QUANTILES
) -> dict[str, list[float]]:
    """Quantiles of each column over the *successful* tasks of ``tasks`` (the history server
    leaves failed and killed attempts out of task summaries)."""
    succeeded = tasks[tasks["status"] == "SUCCESS"]
    return {column: quantile_values(succeeded[column].fillna(0), quantiles) for column in columns}
