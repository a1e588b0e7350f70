"""The scheduling replay on constructed stages and jobs."""

from __future__ import annotations

import pandas as pd
import pytest

from perfx.explain.blocked.pool import LOCALITY_WAIT_MS
from perfx.explain.blocked.replay import replay
from perfx.explain.blocked.slots import executor_slots, slot_release

from .build import stage, task


def _durations(tasks: pd.DataFrame) -> pd.Series:
    return tasks["finish_time"] - tasks["launch_time"]


def test_real_durations_reproduce_a_multi_wave_stage():
    tasks = stage([task(100) for _ in range(6)], executors=2, gap=100)
    result = replay(tasks, _durations(tasks))
    job = result.jobs.iloc[0]
    assert job["real_ms"] == 300 and job["replay_ms"] == 300
    assert job["overlaps"] == []


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
    tasks = stage(rows)
    slots = executor_slots(
        tasks["executor_id"], tasks["launch_time"].to_numpy(), slot_release(tasks)
    )
    assert slots.to_dict() == {"e0": 1}
    result = replay(tasks, pd.Series([100.0, 100.0]))
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
    """Two stages of one job submitted together on their own executors: shortening one
    does not delay or chain the other."""
    first = stage([task(100, gc_time=60)], stage_id=0, executors=1)
    second = stage([task(150)], stage_id=1, executors=1, start=10)
    second["executor_id"] = "e1"
    tasks = pd.concat([first, second], ignore_index=True)
    faster = replay(tasks, _durations(tasks) - tasks["gc_time"].where(tasks["stage_id"] == 0, 0))
    ends = faster.stages.set_index("stage_key")["replay_end"]
    assert ends["app/0/0"] == 40 and ends["app/1/0"] == 160


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


def _two_jobs(**first_overrides) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Jobs 0 and 1 submitted together, two 100 ms tasks each, on one executor with two
    slots: job 1's tasks really waited for job 0's to free the slots."""
    first = stage([task(100, **first_overrides) for _ in range(2)], executors=1, gap=0, job="0")
    second = stage(
        [task(100) for _ in range(2)], executors=1, gap=0, stage_id=1, job="1", start=100
    )
    tasks = pd.concat([first, second], ignore_index=True)
    jobs = pd.DataFrame(
        {
            "app_id": ["app", "app"],
            "job_id": ["0", "1"],
            "submission_time": [0.0, 0.0],
            "completion_time": [100.0, 200.0],
        }
    )
    stages = pd.DataFrame({"id": ["app/0/0", "app/1/0"], "submission_time": [0.0, 0.0]})
    return tasks, jobs, stages


def test_jobs_that_overlapped_share_the_slots_and_say_so():
    tasks, jobs, stages = _two_jobs(gc_time=50)
    real = replay(tasks, _durations(tasks), jobs, stages=stages).jobs.set_index("job_id")
    # a replay of job 1 alone would give it the free slots at once: 100 ms, not 200
    assert list(real["replay_ms"]) == list(real["real_ms"]) == [100, 200]
    assert real.loc["0", "overlaps"] == ["1"] and real.loc["1", "overlaps"] == ["0"]
    faster = replay(
        tasks,
        _durations(tasks) - tasks["gc_time"].where(tasks["job_id"] == "0", 0),
        jobs,
        stages=stages,
    )
    # job 0's tasks free the slots at 50 ms: job 1 runs from 50 to 150
    assert list(faster.jobs.set_index("job_id")["replay_ms"]) == [50, 150]


def test_a_task_held_back_with_a_free_slot_keeps_its_delay():
    """The second wave launched 500 ms after its slot freed (locality wait): the replay
    keeps the 500 ms after the shortened first wave."""
    rows = [task(100, gc_time=50), task(100, launch_time=600.0)]
    tasks = stage(rows, executors=1)
    assert replay(tasks, _durations(tasks)).jobs.iloc[0]["replay_ms"] == 700
    shorter = replay(tasks, _durations(tasks) - tasks["gc_time"].where(tasks.index == 0, 0))
    assert shorter.jobs.iloc[0]["replay_ms"] == 50 + 500 + 100


def _straggling_executor(gc_ms: float) -> pd.DataFrame:
    """One slot on each of e0 and e1: e0 runs two 10 s tasks one after the other while e1's
    only task takes 20 s, ``gc_ms`` of it in GC."""
    rows = [
        task(10_000, launch_time=0.0, executor_id="e0"),
        task(20_000, launch_time=0.0, executor_id="e1", gc_time=gc_ms),
        task(10_000, launch_time=10_000.0, executor_id="e0"),
    ]
    return stage(rows)


def _e1_gc(tasks: pd.DataFrame) -> pd.Series:
    return tasks["gc_time"].where(tasks["executor_id"] == "e1", 0)


def test_a_task_moves_to_a_slot_freed_a_locality_wait_sooner():
    tasks = _straggling_executor(gc_ms=19_900)
    assert replay(tasks, _durations(tasks)).jobs.iloc[0]["replay_ms"] == 20_000
    # without GC e1 frees at 100 ms, long before e0 at 10 s: the third task moves there
    faster = replay(tasks, _durations(tasks) - _e1_gc(tasks))
    assert faster.jobs.iloc[0]["replay_ms"] == 10_100


def test_a_task_waits_for_its_executor_when_another_frees_less_than_the_wait_sooner():
    gc_ms = 20_000 - (10_000 - LOCALITY_WAIT_MS) - 100  # e1 frees 2.9 s before e0
    tasks = _straggling_executor(gc_ms=gc_ms)
    faster = replay(tasks, _durations(tasks) - _e1_gc(tasks))
    assert faster.jobs.iloc[0]["replay_ms"] == 20_000
