"""Derived task features: the ones that make explanations on Spark logs precise.

Everything here is vectorised over the whole task table. Concurrency is an interval-overlap
count done with two sorted arrays and ``searchsorted`` per group (O(n log n)), never by
comparing pairs of tasks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MB = float(1 << 20)


def _ratio(numerator: pd.Series, denominator: pd.Series) -> pd.Series:
    """numerator / denominator, missing where the denominator is 0 or missing."""
    return numerator / denominator.where(denominator > 0)


def overlapping(group: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """For each interval [start, end), how many *other* intervals of the same group overlap it.

    Two intervals overlap when each starts before the other ends. Within a group, the number
    of intervals that start before my end minus those that end at or before my start counts
    every overlapping interval, myself included when my interval is not empty. Groups are
    kept apart by sorting on group and searching within each group's slice."""
    count = np.zeros(len(start), dtype=np.int64)
    if len(start) == 0:
        return count
    order = np.argsort(group, kind="stable")
    sorted_groups = group[order]
    bounds = np.flatnonzero(np.diff(sorted_groups)) + 1
    for members in np.split(order, bounds):
        starts = np.sort(start[members])
        ends = np.sort(end[members])
        began = np.searchsorted(starts, end[members], side="left")
        done = np.searchsorted(ends, start[members], side="right")
        empty = start[members] >= end[members]
        # An empty interval at t overlaps nothing, but "ended at or before t" also counted
        # itself and every other empty interval at t: add those back.
        empties = np.sort(start[members][empty])
        at_t = np.searchsorted(empties, start[members], side="right") - np.searchsorted(empties, start[members], side="left")
        count[members] = began - done - ~empty + np.where(empty, at_t, 0)
    return count


def running_at_start(group: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """For each interval, how many intervals of its group (itself included) were running at
    the moment it started: started at or before it, not yet ended."""
    count = np.zeros(len(start), dtype=np.int64)
    order = np.argsort(group, kind="stable")
    bounds = np.flatnonzero(np.diff(group[order])) + 1
    for members in np.split(order, bounds) if len(start) else []:
        starts = np.sort(start[members])
        ends = np.sort(end[members])
        count[members] = np.searchsorted(starts, start[members], side="right") - np.searchsorted(ends, start[members], side="right")
    return count


def _codes(tasks: pd.DataFrame, *columns: str) -> np.ndarray:
    """One integer per distinct combination of the columns' values."""
    return tasks.groupby(list(columns), sort=False, dropna=False).ngroup().to_numpy()


def add_task_features(tasks: pd.DataFrame) -> pd.DataFrame:
    """Add the derived columns registered in SPARK_TASK (records_in ... wave) in place."""
    tasks["records_in"] = tasks["input_records"] + tasks["shuffle_read_records"]
    tasks["bytes_in"] = tasks["input_bytes"] + tasks["shuffle_read_bytes"]
    tasks["time_per_record"] = _ratio(tasks["duration"], tasks["records_in"])
    tasks["time_per_mb"] = _ratio(tasks["duration"], tasks["bytes_in"] / MB)
    tasks["gc_fraction"] = _ratio(tasks["gc_time"], tasks["executor_run_time"])
    # Spark logs no input read time, so disk blocking is the shuffle write time only.
    tasks["blocked_network_time"] = tasks["shuffle_fetch_wait_time"]
    tasks["blocked_disk_time"] = tasks["shuffle_write_time"]

    ran = tasks["finish_time"].notna().to_numpy()
    start = tasks["launch_time"].to_numpy(dtype=np.float64)
    end = np.where(ran, tasks["finish_time"].to_numpy(dtype=np.float64), start)
    executor = _codes(tasks, "app_key", "executor_id")
    host = _codes(tasks, "host")
    tasks["concurrent_tasks_executor"] = np.where(ran, overlapping(executor, start, end), np.nan)
    tasks["concurrent_tasks_host"] = np.where(ran, overlapping(host, start, end), np.nan)

    order = tasks.sort_values(["launch_time", "task_id"], kind="stable").index
    first = ~tasks.loc[order].duplicated(["stage_key", "executor_id"])
    tasks["first_task_on_executor"] = np.where(first.reindex(tasks.index), "T", "F")
    tasks["wave"] = _waves(tasks, start, end, ran)
    return tasks


def _waves(tasks: pd.DataFrame, start: np.ndarray, end: np.ndarray, ran: np.ndarray) -> np.ndarray:
    """Wave of each task in its stage: its launch rank divided by the stage's slots, where the
    slots are the most tasks of the stage that ever ran at once."""
    stage = _codes(tasks, "stage_key")
    peak = running_at_start(stage, start, np.where(ran, end, start + 1))
    slots = pd.Series(peak).groupby(stage).transform("max").to_numpy()
    launch_rank = (
        pd.DataFrame({"stage": stage, "launch": start, "task": tasks["task_id"].to_numpy()})
        .sort_values(["launch", "task"], kind="stable")
        .groupby("stage")
        .cumcount()
        .sort_index()
        .to_numpy()
    )
    return launch_rank // np.maximum(slots, 1)
