"""Databricks logs as Databricks leaves them: a driver's rolled log folder (gzipped dated parts
and the current ``eventlog``) is one application read in time order, and the Spark version,
which Databricks logs without a SparkListenerLogStart, comes from the runtime's own events
and properties. Real Databricks logs from tests/data/public only."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
import zstandard
from click.testing import CliRunner

from perfx.cli import cli
from perfx.logs.loader import load_log
from tests.data_files import fixture_log, public_log

ROLLED = fixture_log("databricks-rolled/8880912756278443690")
NVIDIA = public_log("NVIDIA__spark-rapids-tools")
WHOLE = NVIDIA / "db_subExecution_id.zstd"
"""The log the rolled folder was cut from (tests/data/databricks-rolled/README.md)."""


def test_a_rolled_folder_is_one_application_read_in_time_order() -> None:
    rolled, whole = load_log(ROLLED), load_log(WHOLE)
    assert rolled.skipped == []
    assert rolled.sources == [str(ROLLED)] and rolled.apps["app_id"].tolist() == [
        "app-20240213185822-0000"
    ]
    pd.testing.assert_frame_equal(rolled.tasks, whole.tasks)  # the same rows in the same order
    for entity in ("stage", "job"):
        pd.testing.assert_frame_equal(rolled.table(entity), whole.table(entity))
    assert rolled.apps.drop(columns="source").equals(whole.apps.drop(columns="source"))


def test_a_rolled_folder_among_other_logs_is_found_by_the_walk(tmp_path) -> None:
    """The parts are read as the folder's one application, whatever order the names sort in
    (``eventlog`` sorts first as text) and with other logs beside it."""
    shutil.copytree(ROLLED, tmp_path / "cluster" / ROLLED.name)
    shutil.copy(NVIDIA / "xgboost_eventlog.zstd", tmp_path / "cluster")
    log = load_log(tmp_path)
    assert log.skipped == []
    assert sorted(log.apps["app_id"]) == ["app-20221221223542-0001", "app-20240213185822-0000"]
    assert len(log.tasks) == 137 + 155


@pytest.mark.parametrize(
    "name, version",
    [
        ("db_subExecution_id.zstd", "Databricks 11.3 (Spark 3.3.0)"),
        ("xgboost_eventlog.zstd", "Databricks 10.4 (Spark 3.2.1)"),
        ("nds_q88_photon_db_13_3.zstd", "Databricks 13.3 (Spark 3.4.1)"),
    ],
)
def test_version_of_a_databricks_runtime(name: str, version: str) -> None:
    log = load_log(NVIDIA / name)
    assert log.apps["spark_version"].tolist() == [version]
    assert log.skipped == []  # Databricks' log-start events are read, not skipped as unknown


def test_without_databricks_log_start_the_runtime_names_its_spark(tmp_path) -> None:
    with WHOLE.open("rb") as f:
        lines = zstandard.ZstdDecompressor().stream_reader(f).read().splitlines(keepends=True)
    path = tmp_path / "eventlog"
    path.write_bytes(
        b"".join(line for line in lines if b'"DBCEventLoggingListenerMetadata"' not in line)
    )
    assert load_log(path).apps["spark_version"].tolist() == ["Databricks 11.3 (Spark 3.3)"]


def test_a_log_start_keeps_its_version() -> None:
    """A Spark 3.1.1 log edited to carry Databricks 13.3 properties says what wrote it."""
    assert load_log(NVIDIA / "photon_eventlog.zstd").apps["spark_version"].tolist() == ["3.1.1"]


def test_cli_logs_names_the_runtime() -> None:
    result = CliRunner(env={"COLUMNS": "100"}).invoke(cli, ["logs", str(ROLLED)])
    assert result.exit_code == 0, result.output
    assert "│ Spark versions │ Databricks 11.3 (Spark 3.3.0) │" in result.output
    assert "│ applications   │                             1 │" in result.output
