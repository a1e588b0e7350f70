"""Straggler flags, causes and shares as registered task features."""

from __future__ import annotations

import pandas as pd
import pytest

from perfx.explain.blocked.features import SHARES, add_straggler_features
from perfx.logs.feature_tables import SPARK_TASK
from perfx.logs.model import Log
from perfx.logs.registry import FeatureRegistry

from .build import BASE_MS, log_of, stage, task


@pytest.fixture
def log():
    rows = [task(100) for _ in range(9)] + [task(200, gc_time=BASE_MS + 100)]
    log = log_of(stage(rows), stage([task(100, status="FAILED")], stage_id=1))
    log.registry = FeatureRegistry()
    log.registry.register_all("task", SPARK_TASK)
    return log


def test_stragglers_and_their_primary_cause_become_columns(log):
    out = add_straggler_features(log)
    judged = out.tasks[out.tasks["stage_id"] == 0]
    assert list(judged["straggler"]) == ["F"] * 9 + ["T"]
    assert list(judged["straggler_cause"]) == ["none"] * 9 + ["gc"]
    assert judged["progress_ratio"].iloc[-1] == pytest.approx(2.0)
    failed = out.tasks[out.tasks["stage_id"] == 1].iloc[0]
    assert pd.isna(failed["straggler"]) and pd.isna(failed["straggler_cause"])


def test_shares_are_fractions_of_the_duration(log):
    out = add_straggler_features(log).tasks
    assert out["gc_share"].iloc[9] == pytest.approx(105 / 200)
    assert out["fetch_wait_share"].iloc[0] == pytest.approx(BASE_MS / 100)
    assert out["serialization_share"].iloc[0] == pytest.approx(2 * BASE_MS / 100)
    assert set(SHARES) <= set(out.columns)


def test_new_columns_are_registered_causes_as_candidates_flags_as_outcomes(log):
    out = add_straggler_features(log)
    for name in ["straggler_cause", *SHARES]:
        found = out.registry.resolve("task", name)
        assert found is not None and found.is_candidate, name
    for name in ["straggler", "progress_ratio"]:  # they restate the duration
        assert out.registry.resolve("task", name).role == "outcome", name
    assert out.registry.resolve("task", "straggler").kind == "nominal"
    assert log.registry.resolve("task", "straggler") is None, "the input log is left as it was"
    assert "straggler" not in log.tasks.columns


def test_calling_it_twice_replaces_the_columns(log):
    twice = add_straggler_features(add_straggler_features(log))
    assert list(twice.tasks.columns).count("straggler") == 1


def test_shares_of_components_the_log_lacks_are_left_out(log):
    log.tasks = log.tasks.drop(columns=["input_read_time"])
    out = add_straggler_features(log)
    assert "input_read_share" not in out.tasks.columns
    assert out.registry.resolve("task", "input_read_share") is None


def test_mapreduce_tasks_group_by_job_and_task_type():
    rows = [task(100, task_type="MAP") for _ in range(9)] + [
        task(300, task_type="MAP"),
        task(900, task_type="REDUCE"),
    ]
    tasks = stage(rows).drop(columns=["stage_key"])
    out = add_straggler_features(Log(tasks=tasks))
    assert list(out.tasks["straggler"]) == ["F"] * 9 + ["T", "F"]


def test_mapreduce_progress_is_time_per_input_byte():
    # MapReduce logs give a map's split (a reduce's shuffled bytes) as input_size: a map that
    # took 3x as long on a 3x larger split is not a straggler; one as slow on a normal split is.
    rows = [task(100, task_type="MAP") for _ in range(8)] + [
        task(300, task_type="MAP"),
        task(300, task_type="MAP"),
    ]
    tasks = stage(rows).drop(
        columns=["stage_key", "input_bytes", "shuffle_read_bytes", "bytes_in"], errors="ignore"
    )
    tasks["input_size"] = [64.0] * 8 + [192.0, 64.0]
    out = add_straggler_features(Log(tasks=tasks))
    assert list(out.tasks["straggler"]) == ["F"] * 9 + ["T"]
