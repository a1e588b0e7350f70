"""Host metrics passed to the loader (``load_log(..., host_metrics=...)`` and the CLIs'
``--host-metrics``) join onto a real Spark log's tasks as the time-weighted mean over each
task's run, and onto its jobs as the mean over their tasks."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from perfx.cli import cli
from perfx.logs.errors import NotALog
from perfx.logs.loader import load_log
from tests.data_files import fixture_log

LOG = fixture_log("spark-events/local-1426533911241")
"""One job of 8 tasks, all on host ``localhost``."""


def metrics_csv(tmp_path, tasks: pd.DataFrame):
    """``load`` is 10 until a moment in the middle of the tasks' runs, then 30; another host's
    samples must not count. A sample describes the interval ending at its timestamp (Ganglia's
    RRD semantics): 10 is sampled at the change, 30 after the last task ended."""
    change = float(tasks["launch_time"].min() + tasks["finish_time"].max()) / 2
    frame = pd.DataFrame(
        {
            "host": ["localhost", "localhost", "elsewhere"],
            "timestamp": [change, tasks["finish_time"].max() + 5000, change],
            "load": [10.0, 30.0, 1000.0],
        }
    )
    path = tmp_path / "hosts.csv"
    frame.to_csv(path, index=False)
    return path, change


def expected_load(tasks: pd.DataFrame, change: float) -> np.ndarray:
    """The mean by hand: 10 before the change, 30 after, weighted by the time on each side."""
    a = tasks["launch_time"].to_numpy(float)
    b = tasks["finish_time"].to_numpy(float)
    before = np.clip(change - a, 0, b - a)
    return (10 * before + 30 * (b - a - before)) / (b - a)


def test_load_log_joins_host_metrics_from_a_csv(tmp_path) -> None:
    plain = load_log(LOG)
    path, change = metrics_csv(tmp_path, plain.tasks)
    log = load_log(LOG, host_metrics=path)
    assert np.allclose(log.tasks["host_load"].to_numpy(), expected_load(plain.tasks, change))
    assert (
        10 < log.tasks["host_load"].min() and log.tasks["host_load"].max() < 30
    )  # the runs span the change
    assert log.jobs["host_load"].tolist() == pytest.approx([log.tasks["host_load"].mean()])
    assert {s.name for s in log.features("task")} - {s.name for s in plain.features("task")} == {
        "host_load"
    }
    assert log.registry.resolve("job", "host_load") is not None


def test_host_metrics_as_a_dataframe_equal_the_csv(tmp_path) -> None:
    path, _ = metrics_csv(tmp_path, load_log(LOG).tasks)
    from_csv = load_log(LOG, host_metrics=path).tasks["host_load"]
    from_frame = load_log(LOG, host_metrics=pd.read_csv(path)).tasks["host_load"]
    assert from_csv.tolist() == from_frame.tolist()


def test_host_metrics_without_host_column_is_a_clear_error(tmp_path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("timestamp,load\n1,2\n")
    with pytest.raises(NotALog, match="'host' and 'timestamp'"):
        load_log(LOG, host_metrics=path)


def test_cli_host_metrics_option(tmp_path) -> None:
    path, _change = metrics_csv(tmp_path, load_log(LOG).tasks)
    runner = CliRunner()
    dumped = runner.invoke(
        cli, ["logs", str(LOG), "--host-metrics", str(path), "--entity", "task", "--format", "json"]
    )
    assert dumped.exit_code == 0, dumped.output
    assert all(10 < row["host_load"] < 30 for row in json.loads(dumped.output))
    listed = runner.invoke(
        cli, ["features", "--log", str(LOG), "--host-metrics", str(path), "--format", "json"]
    )
    assert listed.exit_code == 0, listed.output
    assert "host_load" in {f["name"] for f in json.loads(listed.output)["features"]}
    helped = runner.invoke(cli, ["explain", "--help"])
    assert "--host-metrics" in helped.output
