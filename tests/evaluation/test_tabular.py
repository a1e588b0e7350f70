"""Tabular (PerfXplain-style) logs and the host-metrics join, against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from perfx.logs.column_names import infer_role, infer_unit, snake_case
from perfx.logs.errors import NotALog
from perfx.logs.hostmetrics import join_host_metrics, step_mean
from perfx.logs.model import Log
from perfx.logs.registry import FeatureRegistry
from perfx.logs.tabular import is_tabular_log, read_tabular_log


def _write(tmp_path, suffix=".csv", metrics=True):
    tasks = pd.DataFrame(
        {
            "TaskID": ["t1", "t2", "t3", "t4"],
            "JobID": [1, 1, 2, 2],
            "host": ["a", "a", "a", "b"],
            "launch_time": [5_000, 12_000, 25_000, 0],
            "finish_time": [15_000, 30_000, 25_000, 1_000],
            "HDFS_BYTES_READ": [64, 64, 32, 1],
            "tracker_name": ["tr_a", "tr_a", "tr_a", "tr_b"],
        }
    )
    jobs = pd.DataFrame(
        {
            "id": [1, 2],
            "pig_script": ["f", "g"],
            "num_instances": [1, 2],
            "duration": [40_000, 30_000],
        }
    )
    samples = pd.DataFrame(
        {
            "host": ["a", "a", "a"],
            "timestamp": [0, 10, 20],
            "cpu_user": [10.0, 20.0, 40.0],
            "load_one": [1.0, np.nan, 3.0],
        }
    )
    for name, frame in (("tasks", tasks), ("jobs", jobs)) + (
        (("host_metrics", samples),) if metrics else ()
    ):
        path = tmp_path / f"{name}{suffix}"
        frame.to_parquet(path) if suffix == ".parquet" else frame.to_csv(path, index=False)
    return tmp_path


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_reads_tables_into_the_canonical_model(tmp_path, suffix):
    root = _write(tmp_path, suffix, metrics=False)
    assert is_tabular_log(root) and is_tabular_log(root / f"tasks{suffix}")
    log = read_tabular_log(root)
    assert list(log.tasks["id"]) == ["t1", "t2", "t3", "t4"]
    assert log.tasks["job_id"].tolist() == ["1", "1", "2", "2"]
    assert log.tasks["duration"].tolist() == [10_000, 18_000, 0, 1_000]  # from finish - launch
    assert log.jobs["id"].tolist() == ["1", "2"]
    spec = {s.name: s for s in log.features("task")}
    assert spec["hdfs_bytes_read"].kind == "numeric" and spec["hdfs_bytes_read"].unit == "bytes"
    assert spec["hdfs_bytes_read"].role == "feature"
    assert spec["launch_time"].role == "identity" and spec["job_id"].role == "identity"
    assert spec["finish_time"].role == "outcome" and spec["duration"].role == "outcome"
    # The load other tasks put on a task's host, from the table's own times: t1 [5, 15) and
    # t2 [12, 30) share host a for 3 s; t3, launched and finished at 25 s, counts as running
    # beside t2 but adds no time to its load, and has no load of its own.
    assert log.tasks["concurrent_tasks_host"].tolist() == [1, 2, 1, 0]
    assert log.tasks["mean_concurrent_tasks_host"].tolist()[:2] == [
        pytest.approx(0.3),
        pytest.approx(3 / 18),
    ]
    assert math.isnan(log.tasks["mean_concurrent_tasks_host"].iloc[2])
    assert (
        spec["mean_concurrent_tasks_host"].role == "feature"
        and spec["mean_concurrent_tasks_host"].unit == "count"
    )
    assert spec["host"].kind == "nominal" and spec["host"].role == "feature"
    assert log.registry.resolve("task", "hostname").name == "host"
    assert log.registry.resolve("job", "numinstances").name == "num_instances"
    assert log.registry.resolve("job", "pig script".replace(" ", "")).name == "pig_script"


def test_is_tabular_log_rejects_other_directories(tmp_path):
    (tmp_path / "events.json").write_text("{}")
    assert not is_tabular_log(tmp_path)
    with pytest.raises(NotALog):
        read_tabular_log(tmp_path)


def test_duplicate_ids_are_an_error(tmp_path):
    pd.DataFrame({"id": ["x", "x"], "duration": [1, 2]}).to_csv(tmp_path / "tasks.csv", index=False)
    with pytest.raises(NotALog, match="more than once"):
        read_tabular_log(tmp_path)


def test_names_units_and_roles():
    assert snake_case("HDFS_BYTES_READ") == "hdfs_bytes_read"
    assert snake_case("jobID") == "job_id"
    assert snake_case("Job Id") == "job_id"
    assert infer_unit("cpu_milliseconds") == "ms" and infer_unit("cpu_user") == "ratio"
    assert infer_unit("map_input_records") == "count" and infer_unit("mem_free") == "bytes"
    assert infer_role("submit_time") == "identity" and infer_role("sort_finished") == "outcome"


def test_host_metrics_are_time_weighted_means_over_each_run(tmp_path):
    log = read_tabular_log(_write(tmp_path))
    by_id = log.tasks.set_index("id")
    # samples on host a (s): 10 at 0, 20 at 10, 40 at 20; each describes the interval ending
    # at its timestamp (Ganglia's RRD semantics): 20 over 0..10 s, 40 over 10..20 s and after
    assert by_id.loc["t1", "host_cpu_user"] == pytest.approx((20 * 5 + 40 * 5) / 10)  # 5..15 s
    assert by_id.loc["t2", "host_cpu_user"] == pytest.approx(40)  # 12..30 s
    assert by_id.loc["t3", "host_cpu_user"] == pytest.approx(40)  # empty run: the value then
    assert math.isnan(by_id.loc["t4", "host_cpu_user"])  # host b has no samples
    # a missing sample is skipped: load_one's 3 at 20 s covers everything after 0 s
    assert by_id.loc["t2", "host_load_one"] == pytest.approx(3)
    assert by_id.loc["t1", "host_load_one"] == pytest.approx(3)
    jobs = log.jobs.set_index("id")
    assert jobs.loc["1", "host_cpu_user"] == pytest.approx((30 + 40) / 2)
    assert jobs.loc["2", "host_cpu_user"] == pytest.approx(40)  # mean over tasks with a value
    spec = log.registry.resolve("task", "host_cpu_user")
    assert spec.role == "feature" and spec.unit == "ratio"
    assert log.registry.resolve("job", "host_load_one") is not None


def test_step_mean_is_vectorised_and_handles_edges():
    times = np.array([0.0, 10.0, 20.0])
    values = np.array([1.0, 2.0, 4.0])
    got = step_mean(
        times, values, np.array([-10.0, 0.0, 15.0, 30.0]), np.array([0.0, 20.0, 25.0, 40.0])
    )
    assert got == pytest.approx([1.0, 1.5, 3.0, 4.0])


def test_join_matches_spark_style_job_keys():
    tasks = pd.DataFrame(
        {
            "id": ["a/1", "a/2", "b/1"],
            "app_id": ["a", "a", "b"],
            "job_id": ["0", "0", "0"],
            "host": ["h", "h", "h"],
            "launch_time": [0, 0, 10_000],
            "finish_time": [10_000, 10_000, 20_000],
            "duration": [10_000] * 3,
        }
    )
    jobs = pd.DataFrame(
        {"id": ["a/0", "b/0"], "app_id": ["a", "b"], "job_id": ["0", "0"], "duration": [1, 1]}
    )
    # epoch seconds; each sample covers the 10 s before it
    metrics = pd.DataFrame({"host": ["h", "h"], "timestamp": [10, 20], "cpu": [1.0, 3.0]})
    joined = join_host_metrics(Log(tasks=tasks, jobs=jobs, registry=FeatureRegistry()), metrics)
    assert joined.tasks["host_cpu"].tolist() == pytest.approx([1.0, 1.0, 3.0])
    assert joined.jobs["host_cpu"].tolist() == pytest.approx([1.0, 3.0])
    assert "host_cpu" not in tasks.columns  # the input log is left alone


def test_join_needs_task_times():
    log = Log(tasks=pd.DataFrame({"id": ["1"], "duration": [1]}))
    with pytest.raises(ValueError, match="launch_time"):
        join_host_metrics(log, pd.DataFrame({"host": [], "timestamp": []}))


def test_a_sample_without_a_timestamp_is_left_out_and_listed():
    # Sorted last, a timeless sample would cover everything after the last real one.
    tasks = pd.DataFrame(
        {
            "id": ["t"],
            "host": ["h"],
            "launch_time": [15_000],
            "finish_time": [25_000],
            "duration": [10_000],
        }
    )
    metrics = pd.DataFrame(
        {"host": ["h", "h", "h"], "timestamp": [10.0, 20.0, None], "cpu": [1.0, 3.0, 1000.0]}
    )
    joined = join_host_metrics(Log(tasks=tasks, registry=FeatureRegistry()), metrics)
    assert joined.tasks["host_cpu"].tolist() == pytest.approx(
        [3.0]
    )  # 15..20 s and after: the sample at 20 s
    assert [(s.path, s.line, s.reason) for s in joined.skipped] == [
        ("host metrics", 3, "sample without a usable timestamp")
    ]
