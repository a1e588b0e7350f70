"""What-if completion times on constructed logs."""

from __future__ import annotations

import pandas as pd
import pytest

from perfx.explain.blocked.whatif import UnknownScenario, new_durations, whatif, whatifs

from .build import log_of, logs_with_a_task_from_years_before, stage, task


def test_without_gc_every_wave_loses_its_gc():
    log = log_of(stage([task(100, gc_time=40) for _ in range(4)], executors=2, gap=100))
    job = whatif(log, ["gc"]).jobs.iloc[0]
    assert (job["real_ms"], job["modelled_ms"], job["whatif_ms"]) == (200, 200, 120)
    assert job["improvement"] == pytest.approx(0.4)
    assert job["model_error"] == 0


def test_resources_group_their_causes():
    rows = [task(100, shuffle_write_time=10, input_read_time=20, shuffle_fetch_wait_time=30)]
    tasks = stage(rows)
    assert new_durations(tasks, ["disk"]).iloc[0] == 70
    assert new_durations(tasks, ["network"]).iloc[0] == 70
    assert new_durations(tasks, ["disk", "network"]).iloc[0] == 40
    assert new_durations(tasks, ["input_read"]).iloc[0] == 80


def test_removed_time_never_makes_a_task_negative():
    tasks = stage([task(10, gc_time=50)])
    assert new_durations(tasks, ["gc"]).iloc[0] == 0


def test_without_stragglers_slow_tasks_get_the_median_rate():
    """One slot; four tasks of 100 ms and one of 300 ms that read 1.5x the data: at the
    median rate it would have taken 150 ms."""
    rows = [task(100) for _ in range(4)] + [task(300, bytes_in=150.0)]
    log = log_of(stage(rows, executors=1, gap=100))
    assert list(new_durations(log.tasks, ["stragglers"])) == [100, 100, 100, 100, 150]
    job = whatif(log, ["stragglers"]).jobs.iloc[0]
    assert job["whatif_ms"] == 550 and job["modelled_ms"] == 700


def test_scenarios_share_the_replay_of_the_real_durations():
    log = log_of(stage([task(100, gc_time=40, scheduler_delay=10) for _ in range(2)]))
    gc, scheduler = whatifs(log, [["gc"], ["scheduler"]])
    assert gc.without == ("gc",) and scheduler.without == ("scheduler",)
    assert gc.jobs["whatif_ms"].iloc[0] == 60 and scheduler.jobs["whatif_ms"].iloc[0] == 90
    assert list(gc.apps.columns[:2]) == ["app_id", "start"]


def test_a_scenario_that_changes_nothing_replays_as_the_real_run_and_slots_still_count():
    """Four waves of 100 ms on two executors of one slot each, no GC logged: without GC is
    the real run's replay (reused, not replayed again), while twice the slots take half the
    time and half the slots (one each, at least) the same: the replays of other slot counts
    are their own, never the one kept for the real durations."""
    log = log_of(stage([task(100, gc_time=0) for _ in range(8)], executors=2, gap=100))
    gc, twice, half = whatifs(log, [["gc"]], (2.0, 0.5))
    assert gc.jobs["whatif_ms"].iloc[0] == gc.jobs["modelled_ms"].iloc[0] == 400
    assert twice.jobs["whatif_ms"].iloc[0] == pytest.approx(200, abs=10)
    assert sum(twice.app_slots.values()) == 4
    assert half.jobs["whatif_ms"].iloc[0] == 400 and sum(half.app_slots.values()) == 2


def test_unknown_scenarios_are_refused_with_the_choices():
    with pytest.raises(UnknownScenario, match=r"choose from .*gc"):
        new_durations(stage([task(10)]), ["gcc"])


def test_logs_without_tasks_give_empty_tables():
    empty = log_of(stage([task(10)])).tasks.iloc[0:0]
    result = whatif(log_of(empty), ["gc"])
    assert result.jobs.empty and result.apps.empty


def test_app_time_follows_its_jobs():
    first = stage([task(100, gc_time=50) for _ in range(2)], stage_id=0, job="0")
    second = stage([task(100, gc_time=50) for _ in range(2)], stage_id=1, job="1", start=150)
    jobs = pd.DataFrame(
        {
            "app_id": ["app", "app"],
            "job_id": ["0", "1"],
            "submission_time": [0.0, 150.0],
            "completion_time": [100.0, 250.0],
        }
    )
    app = whatif(log_of(first, second, jobs=jobs), ["gc"]).apps.iloc[0]
    assert app["real_ms"] == 250 and app["whatif_ms"] == 50 + 50 + 50


def test_an_attempt_launched_outside_its_app_is_left_out_as_if_never_logged(tmp_path):
    """A task whose TaskEnd carries another log's times (five years before its app: a public
    log has one) would stretch its job and app over the years between. It is left out and
    said to be: the what-if is the one of the log without its lines, and says so."""
    from perfx.session import open as open_session

    damaged, without_it = logs_with_a_task_from_years_before(tmp_path)
    left = open_session([str(damaged)]).whatif()
    without = open_session([str(without_it)]).whatif()
    assert left.left_out == 1 and without.left_out == 0
    assert (left.jobs, left.apps) == (without.jobs, without.apps)
    said = left.headline()
    assert said.values["left_out"] == 1
    assert "1 task attempt left out of the replay: it launched outside its application's" in (
        said.text
    )
    assert left.apps[0]["real_ms"] < 3_600_000  # not five years


def test_a_log_whose_one_attempt_is_damaged_is_refused_in_the_singular(tmp_path):
    """The damaged log of the test above with its other tasks' lines taken out: nothing is
    left to replay, and the refusal says so of its one attempt."""
    from perfx.explain.errors import ExplainError
    from perfx.session import open as open_session

    damaged, without = logs_with_a_task_from_years_before(tmp_path)
    kept = set(without.read_bytes().splitlines(keepends=True))
    only = tmp_path / "only-the-damaged-task"
    only.write_bytes(
        b"".join(
            line
            for line in damaged.read_bytes().splitlines(keepends=True)
            if b'"SparkListenerTask' not in line or line not in kept
        )
    )
    with pytest.raises(ExplainError) as refused:
        open_session([str(only)]).whatif()
    assert (
        "the one task attempt of this log was launched outside its application's logged span"
        in str(refused.value)
    )


def test_a_spark_log_whose_tasks_never_ended_is_refused_for_that_not_as_mapreduce(tmp_path):
    """A Spark log cut before its first TaskEnd (a public one holds only TaskStarts) has
    tasks but none to replay: the refusal says why, without MapReduce's hint."""
    from perfx.explain.errors import ExplainError
    from perfx.session import open as open_session
    from tests.data_files import fixture_log

    lines = fixture_log("spark-events/local-1430917381534").read_bytes().splitlines(keepends=True)
    path = tmp_path / "starts-only"
    path.write_bytes(b"".join(line for line in lines if b'"SparkListenerTaskEnd"' not in line))
    session = open_session([str(path)])
    assert len(session.raw.tasks)
    with pytest.raises(ExplainError) as refused:
        session.whatif()
    assert "no task of this log has both a launch and a finish time" in str(refused.value)
    assert "MapReduce" not in str(refused.value)
