"""A large log's stage, job and app tables are counted, and the aggregates of the metrics the
log gave reduced, by a forked child while the reader derives the task features
(logs.eventlog.log ``AGGREGATED_APART``): the tables are the ones one process builds, bit for
bit, columns in the same order. Forking is forced here (a test worker has threads) and every
log is taken as large."""

from __future__ import annotations

import pytest

from perfx.logs import background
from perfx.logs.eventlog import log as eventlog
from perfx.logs.loader import load_log
from tests.data_files import fixture_log
from tests.logs.same_log import assert_same_log

LOGS = (
    "spark-events",  # a folder: several apps, jobs of several stages
    "spark-events/application_1628109047826_1317105",
    "spark-rapids-tools-events/tasks_executors_fail_compressed_eventlog.zstd",  # failed tasks
)


def _load(path: str, monkeypatch: pytest.MonkeyPatch, apart: bool):
    """The log at ``path``, its tables counted and aggregated apart (``apart``) or in this
    process; and the children that did it."""
    children: list[background.Background] = []
    real = background.Background.start

    def counted(function, *args):
        job = real(function, *args)
        if function is eventlog._counted_and_aggregated:
            children.append(job)
        return job

    with monkeypatch.context() as patch:
        patch.setattr(background, "can_fork", lambda: apart)
        patch.setattr(background.Background, "start", counted)
        patch.setattr(eventlog, "AGGREGATED_APART", 0 if apart else 10**9)
        return load_log(str(path), cache=False), children


@pytest.mark.parametrize("name", LOGS)
def test_tables_aggregated_apart_are_the_tables_of_one_process(name, monkeypatch):
    one, none = _load(fixture_log(name), monkeypatch, apart=False)
    two, children = _load(fixture_log(name), monkeypatch, apart=True)
    assert none == []
    assert [child.forked for child in children] == [True]
    assert_same_log(two, one)
    assert one.stages["task_count"].sum() == len(one.tasks)
