"""The scheduling replay on constructed stages and jobs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfx.explain.blocked.replay import chain, replay, simulate

from .build import stage, task


def _durations(tasks: pd.DataFrame) -> pd.Series:
    return tasks["finish_time"] - tasks["launch_time"]


def test_simulate_moves_later_waves_to_the_slot_freed_first():
    """The paper's Figure 2: two slots; shortening the first task lets the third start on
    its slot rather than at its original time."""
    opens, closes = np.zeros(2), np.full(2, np.inf)
    assert simulate(opens, closes, np.array([4.0, 2.0]), np.array([2.0, 4.0])) == 8.0
    assert simulate(opens, closes, np.array([1.0, 2.0]), np.array([2.0, 4.0])) == 6.0


def test_simulate_stops_using_a_slot_after_its_executor_left():
    opens, closes = np.zeros(2), np.array([np.inf, 3.0])
    # the second slot frees at 2, before it closes at 3: it runs one more task, then no more
    assert simulate(opens, closes, np.array([10.0, 2.0]), np.array([2.0, 2.0])) == 12.0
    assert simulate(opens, closes, np.array([1.0, 2.0]), np.array([5.0, 5.0, 5.0])) == 11.0


def test_real_durations_reproduce_a_multi_wave_stage():
    tasks = stage([task(100) for _ in range(6)], executors=2, gap=100)
    result = replay(tasks, _durations(tasks))
    job = result.jobs.iloc[0]
    assert job["real_ms"] == 300 and job["replay_ms"] == 300
    assert result.stages.iloc[0]["slots"] == 2


def test_shorter_tasks_shorten_every_wave():
    tasks = stage([task(100, gc_time=50) for _ in range(6)], executors=2, gap=100)
    result = replay(tasks, _durations(tasks) - tasks["gc_time"])
    assert result.jobs.iloc[0]["replay_ms"] == 150


def test_a_launch_just_before_the_previous_finish_is_no_extra_slot():
    """The driver launches the next task on a freed core a few ms before it records the
    previous finish: one slot, not two."""
    rows = [
        task(100, scheduler_delay=20, launch_time=0.0, executor_id="e0"),
        task(100, scheduler_delay=20, launch_time=95.0, executor_id="e0"),
    ]
    result = replay(stage(rows), pd.Series([100.0, 100.0]))
    assert result.stages.iloc[0]["slots"] == 1
    assert result.jobs.iloc[0]["replay_ms"] == pytest.approx(200, abs=5)


def test_later_stages_keep_their_gap_after_the_stages_before_them():
    first = stage([task(100, gc_time=60) for _ in range(2)], stage_id=0)
    second = stage([task(50) for _ in range(2)], stage_id=1, start=110)  # 10 ms gap
    tasks = pd.concat([first, second], ignore_index=True)
    jobs = pd.DataFrame(
        {"app_id": ["app"], "job_id": ["0"], "submission_time": [-5.0], "completion_time": [170.0]}
    )
    real = replay(tasks, _durations(tasks), jobs)
    assert real.jobs.iloc[0]["real_ms"] == real.jobs.iloc[0]["replay_ms"] == 175
    faster = replay(
        tasks, _durations(tasks) - tasks["gc_time"].where(tasks["stage_id"] == 0, 0), jobs
    )
    # stage 0 now takes 40 ms: stage 1 starts 10 ms later and ends 50 ms after; the 10 ms
    # tail of the job (170 - 160) and the 5 ms before the first launch stay
    assert faster.jobs.iloc[0]["replay_ms"] == 5 + 40 + 10 + 50 + 10


def test_stages_that_overlapped_still_overlap():
    start, end = np.array([0.0, 10.0, 200.0]), np.array([100.0, 150.0, 250.0])
    # units 0 and 1 overlapped; unit 2 came 50 ms after both
    new_end = chain(start, end, np.array([50.0, 60.0, 50.0]), origin=0.0)
    assert list(new_end) == [50.0, 70.0, 70.0 + 50 + 50]


def test_jobs_without_tasks_keep_their_real_duration():
    tasks = stage([task(100) for _ in range(2)])
    jobs = pd.DataFrame(
        {
            "app_id": ["app", "app"],
            "job_id": ["0", "1"],
            "submission_time": [0.0, 300.0],
            "completion_time": [100.0, 320.0],
        }
    )
    result = replay(tasks, _durations(tasks), jobs)
    assert result.jobs.set_index("job_id").loc["1", "replay_ms"] == 20
    app = result.apps.iloc[0]
    assert app["real_ms"] == app["replay_ms"] == 320
