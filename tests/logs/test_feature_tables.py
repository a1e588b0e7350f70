"""The fixed feature tables (logs.feature_tables) are data: every row is checked here against
the registry's schema (logs.registry), and the Spark task table against the columns the
event-log reader builds from real logs."""

from __future__ import annotations

import re
from typing import get_args

import pytest

from perfx.logs.feature_tables import COMMON, SPARK_TASK, TASK_HOST_LOAD
from perfx.logs.loader import load_log
from perfx.logs.registry import GAP_PARTS, FeatureSpec, Kind, Role, Unit
from tests.data_files import fixture_log

TABLES = {"COMMON": COMMON, "TASK_HOST_LOAD": TASK_HOST_LOAD, "SPARK_TASK": SPARK_TASK}
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


@pytest.mark.parametrize("name", TABLES)
def test_every_row_fits_the_registry_schema(name):
    table = TABLES[name]
    names = [row.name for row in table]
    assert len(names) == len(set(names)), f"{name} names a feature twice"
    for row in table:
        assert isinstance(row, FeatureSpec)
        assert SNAKE.match(row.name), row.name
        assert row.kind in get_args(Kind), (row.name, row.kind)
        assert row.unit in get_args(Unit), (row.name, row.unit)
        assert row.role in get_args(Role), (row.name, row.role)
        assert row.description.strip(), f"{row.name} has no description"
        assert all(isinstance(a, str) and a for a in row.aliases), row.name
        assert set(row.accounts) <= set(GAP_PARTS), (row.name, row.accounts)
        assert isinstance(row.inputs, tuple) and isinstance(row.accounts, tuple), row.name
        if row.source == "derived":
            assert row.inputs, f"derived {row.name} declares no inputs"


def test_the_tables_are_nested_as_the_readers_use_them():
    names = [row.name for row in SPARK_TASK]
    assert names[: len(COMMON)] == [row.name for row in COMMON]
    assert {row.name for row in TASK_HOST_LOAD} <= set(names)


def test_the_spark_task_table_is_what_the_reader_builds():
    """Oracle: the task table read from real Spark event logs has a column for every row, and
    the registry the reader builds keeps the row unchanged."""
    log = load_log(fixture_log("spark-events"))
    assert {row.name for row in SPARK_TASK} <= set(log.tasks.columns)
    for row in SPARK_TASK:
        assert log.registry.resolve("task", row.name) == row, row.name
