"""Derived task features: the ones that make explanations on Spark logs precise.

Everything here is vectorised over the whole task table. Concurrency is an interval-overlap
count done with two sorted arrays and ``searchsorted`` per group (O(n log n)), never by
comparing pairs of tasks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .time_parts import RUN_TIME_PARTS

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
        s, e = start[members], end[members]
        began = np.searchsorted(np.sort(s), e, side="left")
        began -= np.searchsorted(np.sort(e), s, side="right")  # minus those done before
        empty = s >= e
        # An empty interval at t overlaps nothing, but "ended at or before t" also counted
        # itself and every other empty interval at t: add those back.
        empties = np.sort(s[empty])
        at_t = np.searchsorted(empties, s, side="right") - np.searchsorted(empties, s, side="left")
        count[members] = began - ~empty + np.where(empty, at_t, 0)
    return count


def mean_overlapping(group: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """For each interval [start, end), how many *other* intervals of its group ran beside it
    on average over its length: the total time others overlapped it divided by its length
    (NaN for an empty interval).

    Where ``overlapping`` counts a task that shared the host for a second the same as one
    that shared it throughout, this is the time-weighted load a task saw: the last task of a
    job on a host that ran alone for half its run, beside one other before, scores 0.5
    against 1.0 for its predecessors. The overlap total is ∫ (N(t) − 1) dt over the interval,
    with N(t) the intervals covering t: one sweep over the sorted starts and ends gives
    F(t) = ∫ N up to every one of them as a running sum of non-negative steps (no
    cancellation between large prefix sums of epoch times), O(n log n) per group."""
    out = np.full(len(start), np.nan)
    order = np.argsort(group, kind="stable")
    bounds = np.flatnonzero(np.diff(group[order])) + 1
    for members in np.split(order, bounds) if len(start) else []:
        # each array let go once used, results computed in place: the tasks of a one-host
        # log are one group, and every array here is as long as it (for 150,000 tasks, this
        # step's peak is 9 MB lower: 226 MB against 235, which was the load's peak)
        s, e = start[members], end[members]
        points = np.concatenate([s, e])
        points.sort()
        running = np.searchsorted(np.sort(s), points[:-1], side="right")
        running -= np.searchsorted(np.sort(e), points[:-1], side="right")
        steps = np.diff(points)
        steps *= running
        del running
        busy = np.empty(len(points))  # F at each point
        busy[0] = 0.0
        np.cumsum(steps, out=busy[1:])
        del steps
        at_start, at_end = busy[np.searchsorted(points, s)], busy[np.searchsorted(points, e)]
        del busy, points
        length = e - s
        with np.errstate(invalid="ignore", divide="ignore"):
            out[members] = np.where(length > 0, (at_end - at_start - length) / length, np.nan)
    return out


def running_at_start(group: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """For each interval, how many intervals of its group (itself included) were running at
    the moment it started: started at or before it, not yet ended."""
    count = np.zeros(len(start), dtype=np.int64)
    order = np.argsort(group, kind="stable")
    bounds = np.flatnonzero(np.diff(group[order])) + 1
    for members in np.split(order, bounds) if len(start) else []:
        starts = np.sort(start[members])
        ends = np.sort(end[members])
        count[members] = np.searchsorted(starts, start[members], side="right") - np.searchsorted(
            ends, start[members], side="right"
        )
    return count


def group_codes(tasks: pd.DataFrame, *columns: str) -> np.ndarray:
    """One integer per distinct combination of the columns' values, missing values included.

    Factorised column by column rather than by ``groupby(...).ngroup()``: a multi-column
    groupby on a table without rows builds an empty MultiIndex, which pandas cannot do
    ("Cannot infer number of levels"), and logs without tasks are ordinary (driver-only apps,
    logs cut short before the first task)."""
    codes = np.zeros(len(tasks), dtype=np.int64)
    for column in columns:
        column_codes, uniques = pd.factorize(tasks[column], use_na_sentinel=False)
        codes = pd.factorize(codes * max(len(uniques), 1) + column_codes)[0]
    return codes


def add_task_features(tasks: pd.DataFrame) -> pd.DataFrame:
    """Add the derived columns registered in SPARK_TASK (records_in ... wave) in place."""
    tasks["records_in"] = tasks["input_records"] + tasks["shuffle_read_records"]
    tasks["bytes_in"] = tasks["input_bytes"] + tasks["shuffle_read_bytes"]
    tasks["time_per_record"] = _ratio(tasks["duration"], tasks["records_in"])
    tasks["time_per_mb"] = _ratio(tasks["duration"], tasks["bytes_in"] / MB)
    tasks["gc_fraction"] = _ratio(tasks["gc_time"], tasks["executor_run_time"])
    tasks["compute_time"] = compute_time(tasks)
    # Input read time is logged only by instrumented traces (Ousterhout's); Spark's disk
    # blocking is then the shuffle write time alone.
    tasks["blocked_network_time"] = tasks["shuffle_fetch_wait_time"]
    tasks["blocked_disk_time"] = (
        tasks["shuffle_write_time"].add(tasks["input_read_time"], fill_value=0)
        if "input_read_time" in tasks
        else tasks["shuffle_write_time"]
    )

    ran = tasks["finish_time"].notna().to_numpy()
    start = tasks["launch_time"].to_numpy(dtype=np.float64)
    end = np.where(ran, tasks["finish_time"].to_numpy(dtype=np.float64), start)
    executor = group_codes(tasks, "app_key", "executor_id")
    tasks["concurrent_tasks_executor"] = np.where(ran, overlapping(executor, start, end), np.nan)
    add_host_load(tasks)

    task_id = tasks["task_id"].to_numpy()
    by_launch = np.lexsort((task_id, start))  # launch order, ties by task id
    stage = group_codes(tasks, "stage_key")
    stage_executor = group_codes(tasks, "stage_key", "executor_id")
    first = np.zeros(len(tasks), dtype=bool)
    first[by_launch[_first_of_each(stage_executor[by_launch])]] = True
    tasks["first_task_on_executor"] = np.where(first, "T", "F").astype(object)
    tasks["wave"] = _waves(stage, start, end, ran, by_launch)
    return tasks


def compute_time(tasks: pd.DataFrame) -> pd.Series:
    """Run time minus its measured parts (a missing part counts as zero), floored at 0: the
    time the task's own code ran, where a cost per record shows."""
    parts = [c for c in RUN_TIME_PARTS if c in tasks.columns]
    measured = (
        tasks[parts].apply(pd.to_numeric, errors="coerce").fillna(0.0).sum(axis=1) if parts else 0.0
    )
    return (pd.to_numeric(tasks["executor_run_time"], errors="coerce") - measured).clip(lower=0.0)


def add_host_load(tasks: pd.DataFrame) -> pd.DataFrame:
    """Add ``concurrent_tasks_host`` and ``mean_concurrent_tasks_host`` (registry
    TASK_HOST_LOAD) in place: the load other tasks put on a task's host while it ran, read
    from the log's own launch and finish times.

    A task that never finished has neither; it stands for a moment at its launch, which
    counts it beside the tasks running then (as the Spark reader always has) but adds no
    time to their load. A task without a host or a launch time has neither and counts for
    no other: "no host" is not one shared host."""
    launch = pd.to_numeric(tasks["launch_time"], errors="coerce").to_numpy(dtype=np.float64)
    finish = pd.to_numeric(tasks["finish_time"], errors="coerce").to_numpy(dtype=np.float64)
    placed = ~np.isnan(launch) & tasks["host"].notna().to_numpy()
    ran = placed & ~np.isnan(finish)
    start = np.where(placed, launch, 0.0)
    end = np.where(ran, finish, start)
    host = np.where(
        placed, group_codes(tasks, "host"), -1
    )  # the unplaced: a group of their own, never read
    tasks["concurrent_tasks_host"] = np.where(ran, overlapping(host, start, end), np.nan)
    tasks["mean_concurrent_tasks_host"] = np.where(ran, mean_overlapping(host, start, end), np.nan)
    return tasks


def _first_of_each(codes: np.ndarray) -> np.ndarray:
    """Positions in ``codes`` where a code occurs for the first time."""
    return np.unique(codes, return_index=True)[1]


def _waves(
    stage: np.ndarray, start: np.ndarray, end: np.ndarray, ran: np.ndarray, by_launch: np.ndarray
) -> np.ndarray:
    """Wave of each task in its stage: its launch rank divided by the stage's slots, where the
    slots are the most tasks of the stage that ever ran at once."""
    peak = running_at_start(stage, start, np.where(ran, end, start + 1))
    slots = np.zeros(stage.max(initial=-1) + 1, dtype=np.int64)
    np.maximum.at(slots, stage, peak)
    # launch rank within the stage: rows sorted by (stage, launch, task id), each row's
    # position minus the position of its stage's first row
    order = by_launch[np.argsort(stage[by_launch], kind="stable")]
    sorted_stage = stage[order]
    rank = np.empty(len(stage), dtype=np.int64)
    rank[order] = np.arange(len(stage)) - np.searchsorted(sorted_stage, sorted_stage, side="left")
    return rank // np.maximum(slots[stage], 1)
