"""Every file of the shared Spark log folders loads on its own, the way a user points perfx at
one file: logs without a single task (driver-only apps, the 5-line download-test logs) and
the parts of rolling or multi-attempt logs included. Files that are no logs get NotALog."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from perfx.logs.derive import add_task_features
from perfx.logs.errors import NotALog
from perfx.logs.eventlog.tables import TASK_COLUMNS
from perfx.logs.loader import load_log
from tests.data_files import DATA, fixture_log

FOLDERS = (fixture_log("spark-events"), fixture_log("spark-rapids-tools-events"))
NOT_LOGS = {"LICENSE", "NOTICE", "README.md"}
"""Files of those folders that are no event logs (besides the expectations' JSON answers)."""


def every_file() -> list[Path]:
    return sorted(
        p
        for folder in FOLDERS
        for p in folder.rglob("*")
        if p.is_file() and "expectations" not in p.parts
    )


@pytest.mark.parametrize("path", every_file(), ids=lambda p: str(p.relative_to(DATA)))
def test_file_loads_alone(path: Path) -> None:
    if path.name in NOT_LOGS or path.name.startswith("appstatus_"):
        with pytest.raises(NotALog):
            load_log(path)
        return
    log = load_log(path)
    assert len(log.apps) == 1
    assert log.tasks["id"].is_unique and log.stages["id"].is_unique and log.jobs["id"].is_unique
    for column in ("concurrent_tasks_executor", "wave", "first_task_on_executor"):
        assert column in log.tasks
    assert log.stages["task_count"].sum() == len(log.tasks)  # every task lands in a stage


def test_logs_without_tasks_load_with_every_column() -> None:
    log = load_log(fixture_log("spark-events/application_1555004656427_0144"))
    assert len(log.tasks) == 0 and len(log.apps) == 1
    assert set(TASK_COLUMNS) <= set(log.tasks.columns)
    assert log.apps["task_count"].tolist() == [0]


def test_derived_features_of_an_empty_task_table() -> None:
    empty = pd.DataFrame(
        {
            c: pd.Series(
                dtype=float
                if c.endswith(("time", "bytes", "records")) or c == "duration"
                else object
            )
            for c in TASK_COLUMNS
        }
    )
    tasks = add_task_features(empty)
    assert len(tasks) == 0 and {"wave", "concurrent_tasks_host", "first_task_on_executor"} <= set(
        tasks.columns
    )


OUSTERHOUT_FILE = fixture_log("ousterhout-traces/04_15_14_disk/1a_disk_job_log")


def test_single_ousterhout_job_log_file_is_dispatched() -> None:
    """A non-Spark file is offered to the other readers, as a directory is."""
    log = load_log(OUSTERHOUT_FILE)
    assert len(log.apps) == 1 and len(log.tasks) == 100 and "input_read_time" in log.tasks
    assert log.skipped == []


def test_cli_logs_on_a_single_ousterhout_file() -> None:
    from click.testing import CliRunner

    from perfx.cli import cli

    result = CliRunner().invoke(cli, ["logs", str(OUSTERHOUT_FILE), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["apps"], data["jobs"], data["tasks"]) == (1, 1, 100)
