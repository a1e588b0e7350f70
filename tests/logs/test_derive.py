"""Derived task features and aggregates against brute force and hand-made schedules."""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfx.logs.aggregate import task_aggregates
from perfx.logs.derive import (
    add_host_load,
    add_task_features,
    mean_overlapping,
    overlapping,
    running_at_start,
)
from perfx.logs.loader import load_log
from tests.data_files import fixture_log


def brute_overlap(group, start, end):
    n = len(start)
    return np.array(
        [
            sum(
                1
                for j in range(n)
                if j != i and group[j] == group[i] and start[j] < end[i] and start[i] < end[j]
            )
            for i in range(n)
        ]
    )


def test_overlap_matches_brute_force() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        n = int(rng.integers(1, 60))
        group = rng.integers(0, 3, n)
        start = rng.integers(0, 50, n).astype(float)
        end = start + rng.integers(0, 15, n)  # includes empty intervals
        assert overlapping(group, start, end).tolist() == brute_overlap(group, start, end).tolist()


def test_running_at_start_counts_itself_and_running_others() -> None:
    group = np.zeros(4, dtype=int)
    start = np.array([0.0, 1.0, 5.0, 10.0])
    end = np.array([10.0, 5.0, 6.0, 11.0])
    assert running_at_start(group, start, end).tolist() == [1, 2, 2, 1]


def schedule() -> pd.DataFrame:
    """Two executors with one slot each running a stage of six tasks: three waves."""
    launch = [0, 0, 10, 10, 20, 20]
    finish = [10, 10, 20, 20, 30, 25]
    return pd.DataFrame(
        {
            "app_key": "a",
            "stage_key": "a/0/0",
            "task_id": range(6),
            "executor_id": ["1", "2"] * 3,
            "host": ["h1", "h1", "h1", "h1", "h2", "h2"],
            "launch_time": launch,
            "finish_time": np.array(finish, dtype=float),
            "duration": np.subtract(finish, launch).astype(float),
            "input_records": [100.0, 100, 100, 100, 0, 0],
            "shuffle_read_records": [0.0, 0, 0, 0, 50, 0],
            "input_bytes": [2**20, 2**20, 0, 0, 0, 0],
            "shuffle_read_bytes": 0.0,
            "gc_time": [1.0, 2, 0, 0, 0, 0],
            "executor_run_time": [10.0, 10, 10, 10, 10, 0],
            "shuffle_fetch_wait_time": 3.0,
            "shuffle_write_time": 0.5,
        }
    )


def test_derived_features_on_a_known_schedule() -> None:
    tasks = add_task_features(schedule())
    assert tasks["wave"].tolist() == [0, 0, 1, 1, 2, 2]
    assert tasks["first_task_on_executor"].tolist() == ["T", "T", "F", "F", "F", "F"]
    assert tasks["concurrent_tasks_executor"].tolist() == [0, 0, 0, 0, 0, 0]
    assert tasks["concurrent_tasks_host"].tolist() == [1, 1, 1, 1, 1, 1]
    assert tasks["records_in"].tolist() == [100, 100, 100, 100, 50, 0]
    assert tasks["time_per_record"].iloc[0] == 0.1 and np.isnan(tasks["time_per_record"].iloc[5])
    assert tasks["time_per_mb"].iloc[0] == 10.0
    assert tasks["gc_fraction"].iloc[1] == 0.2 and np.isnan(tasks["gc_fraction"].iloc[5])
    assert (tasks["blocked_network_time"] == 3.0).all() and (
        tasks["blocked_disk_time"] == 0.5
    ).all()


def test_aggregates_count_sum_mean_max_skew() -> None:
    tasks = add_task_features(schedule())
    aggregates = task_aggregates(tasks, "stage_key").loc["a/0/0"]
    assert aggregates["task_count"] == 6
    assert aggregates["duration_sum"] == 55 and aggregates["duration_max"] == 10
    assert aggregates["duration_skew"] == 10 / 10 and aggregates["duration_mean"] == 55 / 6


def test_every_registered_task_feature_is_a_column_and_back() -> None:
    log = load_log(fixture_log("spark-events/app-20200706201101-0003"))
    for entity in ("task", "stage", "job", "app"):
        table = log.table(entity)
        registered = set(log.registry.names(entity))
        assert set(table.columns) == registered, entity
        for spec in log.features(entity, "numeric"):
            assert pd.api.types.is_numeric_dtype(table[spec.name]), (entity, spec.name)


def reference_aggregates(tasks: pd.DataFrame, key: str) -> pd.DataFrame:
    """task_aggregates as plain pandas groupby reductions."""
    from perfx.logs.aggregate import SPREAD, SUMMED

    groups = tasks.groupby(key, sort=False)
    summed = [c for c in SUMMED if c in tasks]
    spread = [c for c in SPREAD if c in tasks]
    maxima, medians = groups[spread].max(), groups[spread].median()
    return pd.concat(
        [
            groups.size().rename("task_count").to_frame(),
            groups[summed].sum(min_count=1).add_suffix("_sum"),
            groups[spread].mean().add_suffix("_mean"),
            maxima.add_suffix("_max"),
            (maxima / medians.where(medians > 0)).add_suffix("_skew"),
        ],
        axis=1,
    )


def test_aggregates_equal_pandas_groupby_on_real_logs() -> None:
    """Including tasks without metrics (missing values) and several stages and jobs; the
    tasks as the log gives them (grouped by stage and app: read without a gather) and
    shuffled, with some tasks of no stage (grouped by sorting), and with its first task of no
    stage."""
    for path in (
        fixture_log("spark-events/application_1628109047826_1317105"),
        fixture_log("spark-rapids-tools-events/tasks_executors_fail_compressed_eventlog.zstd"),
    ):
        tasks = load_log(path).tasks
        shuffled = tasks.sample(frac=1.0, random_state=3)
        shuffled.loc[shuffled.index[::7], "stage_key"] = None
        first_of_none = tasks.copy()
        first_of_none.loc[first_of_none.index[0], "stage_key"] = None
        for table in (tasks, shuffled, first_of_none):
            for key in ("stage_key", "app_key"):
                ours = task_aggregates(table, key)
                expected = reference_aggregates(table, key).loc[ours.index]
                assert len(ours) == table[key].nunique()
                pd.testing.assert_frame_equal(
                    ours, expected, check_names=False, check_dtype=False, rtol=1e-12
                )


def brute_mean_overlap(group, start, end):
    out = np.full(len(start), np.nan)
    for i in range(len(start)):
        if end[i] > start[i]:
            others = (group == group[i]) & (np.arange(len(start)) != i)
            shared = np.clip(
                np.minimum(end[others], end[i]) - np.maximum(start[others], start[i]), 0, None
            )
            out[i] = shared.sum() / (end[i] - start[i])
    return out


def test_mean_overlap_matches_brute_force() -> None:
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(1, 60))
        group = rng.integers(0, 3, n)
        start = rng.uniform(0, 50, n)
        end = start + rng.integers(0, 15, n) * rng.uniform(0.5, 1.5, n)  # includes empty intervals
        assert np.allclose(
            mean_overlapping(group, start, end),
            brute_mean_overlap(group, start, end),
            equal_nan=True,
        )


def test_host_load_tells_a_task_that_ran_alone_at_the_end() -> None:
    # Two map slots on one host: tasks 0 and 1 share it throughout, task 2 runs beside task 3
    # for half its run and alone for the rest; the overlap count cannot tell 2 from 0.
    tasks = pd.DataFrame(
        {
            "host": ["h"] * 4 + ["other"],
            "launch_time": [0, 0, 10, 10, 0],
            "finish_time": [10.0, 10, 30, 20, 40],
        }
    )
    add_host_load(tasks)
    assert tasks["concurrent_tasks_host"].tolist() == [1, 1, 1, 1, 0]
    assert tasks["mean_concurrent_tasks_host"].tolist() == [1.0, 1.0, 0.5, 1.0, 0.0]
    # A task that never finished has no load, and adds none to the others.
    tasks.loc[3, "finish_time"] = np.nan
    add_host_load(tasks)
    assert np.isnan(tasks.loc[3, "mean_concurrent_tasks_host"])
    assert tasks.loc[2, "mean_concurrent_tasks_host"] == 0.0


def test_mean_overlap_keeps_its_precision_on_epoch_milliseconds() -> None:
    # 20,000 tasks on one host around 2026 in epoch ms: prefix sums of raw times pass 2**53.
    rng = np.random.default_rng(3)
    start = np.sort(rng.uniform(0, 1e9, 20_000))
    end = start + rng.uniform(1, 5_000, 20_000)
    group = np.zeros(20_000, dtype=int)
    shifted = mean_overlapping(group, start + 1.79e12, end + 1.79e12)
    # (the shifted times themselves are rounded to 2**-12 ms: agreement to 1e-5 is all there is)
    assert np.allclose(shifted, mean_overlapping(group, start, end), atol=1e-5)


def test_host_load_leaves_tasks_without_a_host_or_launch_out() -> None:
    tasks = pd.DataFrame(
        {
            "host": ["h", "h", None, None, "h"],
            "launch_time": [0.0, 0, 0, 0, np.nan],
            "finish_time": [10.0, 10, 10, 10, 10],
        }
    )
    add_host_load(tasks)
    assert tasks["concurrent_tasks_host"].tolist()[:2] == [1, 1]
    assert tasks["mean_concurrent_tasks_host"].tolist()[:2] == [1.0, 1.0]
    assert (
        tasks[["concurrent_tasks_host", "mean_concurrent_tasks_host"]].iloc[2:].isna().all().all()
    )
