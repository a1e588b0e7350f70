"""The EC2-style fixture generator: deterministic, loadable, and showing the paper's three
effects — which no column states; they come out of slots, heartbeats and contention."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from perfx.logs.tabular import read_tabular_log
from perfx.paper.ec2.generate import GRID, configurations, generate

SAMPLE = Path(__file__).resolve().parents[2] / "paper" / "fixtures" / "ec2-seed1-small"
GB = 1 << 30

pytestmark = pytest.mark.slow  # generating the fixture takes seconds


@pytest.fixture(scope="module")
def fixture_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ec2")
    generate(seed=7, scale=0.4).write(out)
    return out


@pytest.fixture(scope="module")
def log(fixture_dir):
    return read_tabular_log(fixture_dir)


def test_same_seed_same_logs_other_seed_other_logs():
    a, b, c = generate(3, scale=0.02), generate(3, scale=0.02), generate(4, scale=0.02)
    pd.testing.assert_frame_equal(a.tasks, b.tasks)
    pd.testing.assert_frame_equal(a.host_metrics, b.host_metrics)
    assert not a.jobs[["pig_script", "num_instances"]].equals(
        c.jobs[["pig_script", "num_instances"]]
    ) or not a.tasks["duration"].equals(c.tasks["duration"])


@pytest.mark.slow
def test_committed_sample_regenerates_byte_identically(tmp_path):
    """Golden test: the README's command gives the committed files, byte for byte."""
    cmd = [
        sys.executable,
        "-m",
        "perfx.cli",
        "fixtures",
        "ec2",
        "--seed",
        "1",
        "--scale",
        "0.03",
        "--out",
        str(tmp_path),
    ]
    subprocess.run(cmd, check=True, capture_output=True)
    for name in ("jobs.csv", "tasks.csv", "host_metrics.csv"):
        assert filecmp.cmp(tmp_path / name, SAMPLE / name, shallow=False), (
            f"{name} differs from the committed sample"
        )


def test_grid_is_table_2():
    rng = np.random.default_rng(0)
    full = configurations(1.0, 1, rng)
    assert len(full) == 5 * 2 * 3 * 3 * 3 * 2
    assert {c["num_instances"] for c in full} == set(GRID["num_instances"])
    assert len(configurations(0.1, 2, rng)) == 2 * 54
    with pytest.raises(ValueError):
        configurations(0.0, 1, rng)


@pytest.mark.slow
def test_loader_joins_host_metrics_into_paper_sized_feature_sets(log):
    task_features, job_features = len(log.features("task")), len(log.features("job"))
    assert 55 <= task_features <= 70, task_features  # the paper: 64
    assert 32 <= job_features <= 42, job_features  # the paper: 36
    for column in ("host_cpu_user", "host_load_one", "host_proc_total", "host_bytes_in"):
        assert log.tasks[column].notna().all() and log.jobs[column].notna().all()
    assert {"hdfs_bytes_read", "spilled_records", "tracker_name"} <= set(log.tasks.columns)


def test_scheduling_respects_two_map_slots_per_instance(log):
    maps = log.tasks[log.tasks.task_type == "MAP"]
    for _, group in maps.groupby(["job_id", "host"]):
        events = np.concatenate(
            [
                np.stack([group.launch_time, np.ones(len(group))], 1),
                np.stack([group.finish_time, -np.ones(len(group))], 1),
            ]
        )
        events = events[np.lexsort((events[:, 1], events[:, 0]))]
        assert np.cumsum(events[:, 1]).max() <= 2


def _alone_fraction(tasks: pd.DataFrame) -> pd.Series:
    """Share of each task's run during which no other task of its job ran on its host."""
    slim = tasks[["id", "job_id", "host", "launch_time", "finish_time"]]
    pairs = slim.merge(slim, on=["job_id", "host"], suffixes=("", "_o"))
    pairs = pairs[pairs.id != pairs.id_o]
    overlap = (
        np.minimum(pairs.finish_time, pairs.finish_time_o)
        - np.maximum(pairs.launch_time, pairs.launch_time_o)
    ).clip(lower=0)
    shared = overlap.groupby(pairs.id).sum()
    return 1 - tasks.id.map(shared).fillna(0) / tasks.duration


def test_effect_last_task_alone_on_its_instance_is_faster_and_sees_lower_load(log):
    tasks = log.tasks
    maps = tasks[
        (tasks.task_type == "MAP")
        & (tasks.input_size == tasks.groupby("job_id").input_size.transform("max"))
    ].copy()
    maps["alone"] = _alone_fraction(tasks).loc[maps.index]
    group = maps.groupby(["job_id", "host"])
    maps = maps[(group.id.transform("count") >= 3) & (group.alone.transform("min") < 0.2)]
    group = maps.groupby(["job_id", "host"])
    maps["relative"] = maps.duration / group.duration.transform("median")
    alone, shared = maps[maps.alone > 0.5], maps[maps.alone < 0.2]
    assert len(alone) >= 20
    assert alone.relative.median() < 0.9 < shared.relative.median()
    assert alone.host_cpu_user.median() < shared.host_cpu_user.median()
    assert alone.host_proc_run.median() < shared.host_proc_run.median()
    # The last task an instance starts is the one that can end up alone: faster on average.
    last = maps.launch_time == group.launch_time.transform("max")
    assert maps[last].relative.mean() < maps[~last].relative.mean()


def _by_input(jobs: pd.DataFrame) -> pd.DataFrame:
    """Median duration of the 2.6 GB over the 1.3 GB runs of each configuration."""
    keys = ["pig_script", "num_instances", "block_size"]
    med = jobs.groupby(keys + ["input_size"]).duration.median().unstack("input_size").dropna()
    return (med[max(med.columns)] / med[min(med.columns)]).rename("ratio").reset_index()


def test_effect_more_input_is_slower_on_few_instances(log):
    ratio = _by_input(log.jobs)
    few = ratio[ratio.num_instances <= 2]
    assert len(few) >= 3 and few.ratio.median() > 1.5


def test_effect_large_blocks_on_many_instances_hide_the_input_size(log):
    ratio = _by_input(log.jobs)
    wide = ratio[(ratio.num_instances >= 8) & (ratio.block_size == 1024 << 20)]
    assert len(wide) >= 2 and (wide.ratio.between(0.9, 1.15)).all(), wide
    narrow = ratio[(ratio.num_instances == 1) & (ratio.block_size == 64 << 20)]
    assert (narrow.ratio > 1.7).all()


def test_cli_writes_the_three_tables(tmp_path):
    from click.testing import CliRunner

    from perfx.cli import cli

    result = CliRunner().invoke(
        cli,
        [
            "fixtures",
            "ec2",
            "--seed",
            "2",
            "--scale",
            "0.01",
            "--out",
            str(tmp_path),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "host_metrics.csv",
        "jobs.csv",
        "tasks.csv",
    ]
    assert '"jobs": 5' in result.output
