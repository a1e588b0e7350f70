"""Diagnoses of causes the causes benchmark does not inject, on the real logs a probe wrote
(tests/data/held-out-causes/README.md says what happened in each): a stage's second opening
task, a task launched as a failed attempt ended on its executor, a task carrying its data,
a JVM plan's wait and a task pausing for another's garbage, each named for what it was where
perfx had said computation skew, scheduler delay, time in a Python worker that the plan does
not run, or GC pressure of its own; and a control with nothing injected, where it had said
computation skew."""

from __future__ import annotations

import pytest

from perfx.explain.cause import task_cause
from perfx.session import open as open_session
from tests.data_files import fixture_log

CASES = {
    "second opener of a SQL stage": (
        "local-1795938556815/22",
        "cold start",
        "it opened its stage on its executor with 1 other task launched before any finished, "
        "as slow (1.22 s): each paid the stage's start-up (generated code, the JIT)",
    ),
    "first opener of the same stage": (
        "local-1795938556815/21",
        "cold start",
        "it was the first task of its stage on its executor",
    ),
    "a new Python worker after a failure, rebuilding a model": (
        "local-1795938962494/28",
        "cold start",
        "it was the first task launched on its executor after a task attempt failed there "
        "(task 26): PySpark does not reuse a failed task's Python worker",
    ),
    "a new Python worker after a failure": (
        "local-1795937347962/28",
        "cold start",
        "after a task attempt failed there (task 25)",
    ),
    "an opener whose reference took its freed slot, stamped late": (
        "local-1795937604246/0",
        "cold start",
        "it was the first task of its stage on its executor (86 % of the extra time)",
    ),
    "a partition's data inside its task": (
        "local-1795937443506/11",
        "large task",
        "deserializing it took 347 ms against 9 ms): the task itself is large",
    ),
    "a bystander of another task's garbage": (
        "local-1795938722772/34",
        "GC from a concurrent task",
        "(95 % of the extra time), garbage that task 31 made: it ran on the same executor meanwhile, "
        "read 16.1x its input and collected for 1.96 s",
    ),
    "the task that made the garbage": (
        "local-1795938722772/31",
        "GC pressure",
        "its JVM spent more time collecting garbage (54 % of the extra time), on 16.4x the input "
        "bytes of its reference (read and shuffled in)",
    ),
    "a control's noise on a busy machine": (
        "local-1795937643197/35",
        "no cause stands out",
        "532 ms more than its stage's cost model predicts at 3.7 robust deviations, within "
        "what a busy machine's noise reaches (under 8)",
    ),
    "two openers of a two-task stage, nothing injected": (
        "local-1795938461199/9",
        "no cause stands out",
        "took 595 ms, within 1.5x the 485 ms of its stage's only other task",
    ),
    "a JVM plan's sleep beside a small spill": (
        "local-1795959984382/40",
        "off-CPU wait",
        "(its CPU time +0 ms of +1.52 s): waiting on I/O, locks or a busy host",
    ),
    "a control's task, its model pricing its result dear": (
        "local-1795938556815/14",
        "no cause stands out",
        "its extra compute lies within the spread of its stage's cost model (R² 0.01 on 8 of 8",
    ),
    "a JVM plan's time off the CPU": (
        "local-1795938872538/23",
        "off-CPU wait",
        "(its CPU time +142 ms of +1.62 s): waiting on I/O, locks or a busy host",
    ),
    "a cold first task, its reference launched while it ran": (
        "local-1795972151561/84",
        "cold start",
        "it was the first task of its stage on its executor (100 % of the extra time)",
    ),
}


def _log(task: str):
    """The held-out log of ``task``'s application: Spark 4's rolled folder, or one file
    (compressed apart from Spark)."""
    app = task.split("/")[0]
    folder = fixture_log("held-out-causes")
    found = folder / f"eventlog_v2_{app}"
    return open_session([str(found if found.exists() else folder / f"{app}.zstd")]).log


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_held_out_cause_is_named_for_what_it_was(case):
    task, name, words = CASES[case]
    diagnosis = task_cause(_log(task), task)
    assert diagnosis is not None
    assert diagnosis.name == name, diagnosis.detail
    assert words in diagnosis.detail
    assert "Python worker (computing" not in diagnosis.detail
    assert diagnosis.next_step == ""  # no records to trace: not perfx isolate


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_answers_sentence_agrees_with_its_diagnosis(case):
    """Where the diagnosis says no cause stands out, the sentence over it names the history's
    pattern as no more than that, and says so first; otherwise it names the cause (a probe
    of PySpark scripts: "most likely because its shuffle read bytes were higher" over "no
    cause stands out")."""
    task, name, _ = CASES[case]
    app = task.split("/")[0]
    folder = fixture_log("held-out-causes")
    found = folder / f"eventlog_v2_{app}"
    session = open_session([str(found if found.exists() else folder / f"{app}.zstd")])
    answer = session.explain(f"WHY TASK '{task}' SLOWER")
    assert answer.gap.diagnosis.name == name
    sentence = answer.sentence()
    if name == "no cause stands out":
        assert (
            ", but no cause stands out: the gap lies within what the same work varies by. "
            "The closest pattern in the log's history: " in sentence
        ), sentence
        assert "most likely" not in sentence
    else:
        assert ", most likely because " in sentence and "no cause" not in sentence, sentence


def test_the_failed_tasks_neighbour_launched_later_is_not_a_cold_start():
    """Only the task that took the failed attempt's slot started a worker: the next one
    launched on that executor (after it) found its worker warm. Asked of the rule itself:
    that task lies within its stage's spread, where no mechanism is named at all."""
    from perfx.explain.columns import columns_for
    from perfx.explain.starts import began_cold

    log = _log("local-1795938962494/0")
    tasks = log.tasks.set_index("id")
    later = tasks.loc["local-1795938962494/28", "launch_time"]
    stage = tasks.loc["local-1795938962494/28", "stage_key"]
    after = tasks[(tasks["stage_key"] == stage) & (tasks["launch_time"] > later)]
    nxt = str(after.sort_values("launch_time").index[0])
    cols = columns_for(log, "task")
    row = int(cols.rows_with_id("local-1795938962494/28")[0])
    neighbour = int(cols.rows_with_id(nxt)[0])
    assert began_cold(cols, row, python=True) is not None
    assert began_cold(cols, neighbour, python=True) is None


def test_asked_why_a_task_of_normal_length_was_slower_the_refusal_says_how_long_it_took():
    """A retried task that ran as fast as most of its stage: no task of the stage is clearly
    faster, and the refusal gives the figures that show it."""
    from perfx.explain.errors import ExplainError, NoReference

    session = open_session([str(fixture_log("held-out-causes/eventlog_v2_local-1795937347962"))])
    with pytest.raises(ExplainError) as refused:
        session.explain("WHY TASK 'local-1795937347962/29' SLOWER")
    assert str(refused.value) == (
        "no task of the same stage as task local-1795937347962/29 for which OBSERVED "
        "(duration compare = GT) holds and EXPECTED does not (it took 287 ms; the 21 others "
        "280 ms-1.20 s, median 388 ms): name the reference yourself (THAN TASK ...)"
    )
    # the figures alone, for a front that asked the question itself (perfx why)
    assert isinstance(refused.value, NoReference)
    assert (
        refused.value.durations == " (it took 287 ms; the 21 others 280 ms-1.20 s, median 388 ms)"
    )


def test_beside_one_other_the_refusal_gives_its_time_alone():
    """A stage beside one other of its app: no range and median of one duration."""
    from perfx.explain.errors import ExplainError

    session = open_session([str(fixture_log("spark-events/local-1430917381534"))])
    with pytest.raises(ExplainError) as refused:
        session.explain("WHY STAGE '1' SLOWER")
    assert str(refused.value).endswith(
        "does not (it took 123 ms; the other stage took 966 ms): name the reference yourself (THAN STAGE ...)"
    )


def test_the_task_that_made_the_garbage_is_listed_though_no_straggler():
    """Stragglers are judged per byte, so the hot task (16x the bytes at its stage's pace) is
    none, and its bystander was the stage's only one: the listing now names the hot task as
    slow all the same, with its cause, as it names the bystander's."""
    from rich.console import Console

    report = open_session(
        [str(fixture_log("held-out-causes/eventlog_v2_local-1795938722772"))]
    ).stragglers()
    named = {task["id"]: task["cause"] for task in report.to_dict()["straggler_tasks"]}
    assert named["local-1795938722772/34"] == "GC from a concurrent task"
    assert "local-1795938722772/31" not in named
    assert report.to_dict()["slow_not_stragglers"] == [
        {
            "id": "local-1795938722772/31",
            "stage_key": "local-1795938722772/4/0",
            "duration": 3893.0,
            "stage_median": 373.0,
            "cause": "GC pressure",
        }
    ]
    console = Console(width=400, record=True)
    console.print(report)
    assert (
        "Slow, though no stragglers (at 2x their stage's median duration or more, each at its "
        "stage's pace for its data): task local-1795938722772/31 took 3.9 s against its "
        "stage's median 373 ms (GC pressure)." in console.export_text()
    )


def test_a_task_shorter_than_its_stages_median_is_no_straggler_however_slow_per_byte():
    """A sort's range partitions, one of them hot: the near-empty ones took 17-39 ms, their
    fixed cost high per byte, and were 7 of the sort stage's 9 stragglers, the fastest with no
    faster task to be compared with ("no reference"). Only tasks longer than their stage's
    median task straggle now."""
    report = open_session(
        [str(fixture_log("held-out-causes/eventlog_v2_local-1795959841789"))]
    ).stragglers()
    tasks = report.report.tasks
    median = tasks.groupby("stage_key")["duration"].transform("median")
    stragglers = tasks[tasks["straggler"]]
    assert len(stragglers) == 8
    assert (stragglers["duration"] > median[stragglers.index]).all()
    causes = [task["cause"] for task in report.to_dict()["straggler_tasks"]]
    assert "no reference" not in causes


def test_a_gpus_spill_to_host_memory_is_still_a_spill():
    """A RAPIDS log's task spilled 1.8 GB of memory and none to disk, its JVM CPU time no
    higher: a spill that no disk bytes bound (``gap._spill_could_take``), named as before."""
    from tests.data_files import PUBLIC

    log = open_session([str(PUBLIC / "NVIDIA__spark-rapids-tools" / "gpu_oom_eventlog.zstd")]).log
    diagnosis = task_cause(log, "app-20250305192829-0000/12208")
    assert diagnosis is not None and diagnosis.name == "spill", diagnosis
    assert diagnosis.detail.startswith("it spilled 3.8x the bytes of its reference")


def test_a_python_wait_beside_a_larger_result_is_no_result_size():
    """Task 29 slept 1.5 s in its Python worker and returned 34 KB against its peers' 1.6 KB:
    the stage's model priced the result at 45 ms per KB to fit it, "result size". A result
    goes at 1 MB/s at the least, so its gap is split by the model without it."""
    log = _log("local-1795960023980/29")
    diagnosis = task_cause(log, "local-1795960023980/29")
    assert diagnosis is not None and diagnosis.name == "computation skew", diagnosis
    assert "the same volumes cost 1.47 s more than its stage's cost model predicts" in (
        diagnosis.detail
    )
    assert "in the Python worker (computing or waiting)" in diagnosis.detail
