"""Real event logs written by pyspark 4: its default layout (rolling ``eventlog_v2_*``
directory, zstd) and every compression codec load, and load to the same tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from perfx.logs.loader import load_log

from .write_codec_logs import configs

WRITER = Path(__file__).with_name("write_codec_logs.py")

RUN_INDEPENDENT = [
    "stage_id",
    "stage_attempt_id",
    "job_id",
    "task_index",
    "partition_id",
    "attempt",
    "task_type",
    "status",
    "end_reason",
    "speculative",
    "input_records",
    "output_records",
    "shuffle_read_records",
    "shuffle_write_records",
    "shuffle_write_bytes",
    "shuffle_read_bytes",
    "records_in",
]
"""Task columns that depend on the job, not on timing: equal in every run of it."""


@pytest.fixture(scope="module")
def codec_logs(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("codec-logs")
    subprocess.run(
        [sys.executable, str(WRITER), str(out)], check=True, timeout=240, capture_output=True
    )
    return out


@pytest.mark.spark
def test_spark4_default_is_rolling_zstd(codec_logs: Path) -> None:
    (rolling,) = (codec_logs / "default").iterdir()
    assert rolling.name.startswith("eventlog_v2_")
    assert any(p.name.startswith("events_1_") and p.suffix == ".zstd" for p in rolling.iterdir())


@pytest.mark.spark
def test_every_codec_loads_to_the_same_tables(codec_logs: Path) -> None:
    logs = {name: load_log(codec_logs / name) for name in configs()}
    for name, log in logs.items():
        assert log.skipped == [], name
        assert log.apps["spark_version"].str.startswith("4.").all(), name
        assert (log.tasks["status"] == "SUCCESS").all(), name
    reference = logs["default"]
    assert len(reference.tasks) == 4 + 3 and len(reference.stages) == 2 and len(reference.jobs) == 1

    def canonical(log) -> pd.DataFrame:
        return (
            log.tasks[RUN_INDEPENDENT]
            .sort_values(["stage_id", "task_index"])
            .reset_index(drop=True)
        )

    for name, log in logs.items():
        assert list(log.tasks.columns) == list(reference.tasks.columns), name
        assert log.tasks.dtypes.equals(reference.tasks.dtypes), name
        pd.testing.assert_frame_equal(canonical(log), canonical(reference), obj=name)
        for entity in ("stage", "job", "app"):
            assert list(log.table(entity).columns) == list(reference.table(entity).columns), (
                name,
                entity,
            )
