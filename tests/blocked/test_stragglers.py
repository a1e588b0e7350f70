"""The paper's straggler rules on constructed stages: each cause alone explains its straggler."""

from __future__ import annotations

import math

import pytest

from perfx.explain.blocked.components import CAUSES
from perfx.explain.blocked.stragglers import find_stragglers

from .build import BASE_MS, stage, task


def _only_straggler(report):
    stragglers = report.tasks[report.tasks["straggler"]]
    assert len(stragglers) == 1, stragglers
    return stragglers.iloc[0]


@pytest.mark.parametrize("cause", list(CAUSES))
def test_time_in_one_component_is_that_cause_and_no_other(cause):
    """Nine tasks of 100 ms and, launched last, one of 200 ms whose extra 100 ms are all in
    ``cause``: without ``cause`` in every task it would take 100 ms like the others."""
    column = CAUSES[cause][0]
    rows = [task(100) for _ in range(9)] + [task(200, **{column: BASE_MS + 100})]
    straggler = _only_straggler(find_stragglers(stage(rows)))
    assert straggler["causes"] == cause
    assert straggler["primary_cause"] == cause
    assert straggler["progress_ratio"] == pytest.approx(2.0)


def test_a_component_high_in_every_task_explains_nothing():
    """GC takes 50 ms in every task and 60 in the straggler: removing GC everywhere leaves it
    at 140 ms against 50, still a straggler, so GC is not its cause."""
    rows = [task(100, gc_time=50) for _ in range(9)] + [task(200, gc_time=60)]
    straggler = _only_straggler(find_stragglers(stage(rows)))
    assert straggler["causes"] == ""
    assert straggler["primary_cause"] == "unexplained"
    assert not straggler["explained"]


def test_output_skew_is_a_straggler_by_input_but_not_by_output():
    rows = [task(100) for _ in range(9)] + [task(200, shuffle_write_bytes=100.0)]
    straggler = _only_straggler(find_stragglers(stage(rows)))
    assert straggler["causes"] == "output_skew"
    assert straggler["primary_cause"] == "output_skew"


def test_first_tasks_on_cold_executors_compare_only_with_each_other():
    """Four executors; the first task on each takes 180 ms (cold JVM), later ones 100 ms:
    stragglers against the stage, not against the other first tasks."""
    rows = [task(180) for _ in range(4)] + [task(100) for _ in range(8)]
    report = find_stragglers(stage(rows, executors=4))
    stragglers = report.tasks[report.tasks["straggler"]]
    assert len(stragglers) == 4
    assert stragglers["first_task"].all()
    assert set(stragglers["causes"]) == {"first_task"}
    assert report.explained_share == 1.0


def test_a_single_first_task_has_no_others_to_be_compared_with():
    rows = [task(180)] + [task(100) for _ in range(5)]
    straggler = _only_straggler(find_stragglers(stage(rows, executors=1)))
    assert straggler["first_task"]
    assert straggler["causes"] == ""


def test_progress_rate_divides_by_the_data_read():
    """A task that read twice as much and took twice as long is not a straggler."""
    rows = [task(100) for _ in range(9)] + [task(200, bytes_in=200.0, shuffle_write_bytes=100.0)]
    report = find_stragglers(stage(rows))
    assert report.stragglers == 0
    assert set(report.tasks["basis"]) == {"bytes"}
    assert math.isnan(report.explained_share)


def test_stages_where_some_task_read_nothing_compare_durations():
    rows = [task(100, bytes_in=0.0) for _ in range(9)] + [task(200, bytes_in=0.0)]
    report = find_stragglers(stage(rows))
    assert set(report.tasks["basis"]) == {"duration"}
    assert report.stragglers == 1


def test_failed_attempts_are_not_judged():
    rows = [task(100) for _ in range(9)] + [task(900, status="FAILED")]
    report = find_stragglers(stage(rows))
    assert len(report.tasks) == 9
    assert report.stragglers == 0


def test_per_stage_table_counts_each_cause_and_the_share_explained():
    gc_stage = stage([task(100) for _ in range(9)] + [task(200, gc_time=BASE_MS + 100)], stage_id=0)
    plain_stage = stage([task(100) for _ in range(9)] + [task(200)], stage_id=1)
    import pandas as pd

    report = find_stragglers(pd.concat([gc_stage, plain_stage], ignore_index=True))
    stages = report.stages.set_index("stage_id")
    assert stages.loc[0, "gc"] == 1 and stages.loc[0, "explained_share"] == 1.0
    assert stages.loc[1, "stragglers"] == 1 and stages.loc[1, "explained"] == 0
    assert (report.stragglers, report.explained) == (2, 1)
    assert report.explained_share == 0.5


def test_causes_the_log_does_not_record_are_not_evaluated():
    frame = stage([task(100) for _ in range(9)] + [task(200)]).drop(columns=["input_read_time"])
    report = find_stragglers(frame)
    assert "input_read" not in report.causes
    assert "gc" in report.causes
