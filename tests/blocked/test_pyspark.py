"""Real PySpark runs on local[2] whose stragglers have a known cause, found from the event log.

What local[2] can show (checked empirically): a Python UDF that allocates shows no JVM GC,
and short-lived JVM garbage is collected by cheap young collections, so a partition that
merely allocates much does not straggle on GC. What does: a partition whose JVM collects
the full heap repeatedly (``System.gc()`` through Spark SQL's ``reflect``), against tasks that
otherwise take the same time (a sleep, so the shared machine's CPU load does not blur it).
And a fresh stage's first tasks on the one executor pay for compiling its generated code:
they straggle, but not against each other — the paper's first-task cause.
"""

from __future__ import annotations

import random
import time

import pandas as pd
import pytest

from perfx.explain.blocked.stragglers import find_stragglers
from perfx.logs.loader import load_log

pytestmark = pytest.mark.spark

ROWS_PER_PARTITION = 1000


def _stage_tasks(event_dir, description: str, partitions: int) -> pd.DataFrame:
    """Tasks of the stage with ``partitions`` tasks among the jobs described ``description``
    (a query with a shuffle runs as two jobs), once the event log has them all: the listener
    writes asynchronously."""
    deadline = time.monotonic() + 30
    while True:
        log = load_log(event_dir)
        if "description" in log.jobs.columns:
            jobs = log.jobs[log.jobs["description"] == description]
            ours = log.tasks.set_index(["app_key", "job_id"]).index.isin(
                jobs.set_index(["app_key", "job_id"]).index
            )
            tasks = log.tasks[ours]
            sizes = tasks.groupby("stage_key").size()
            full = sizes[sizes == partitions]
            if len(full):
                return tasks[tasks["stage_key"] == full.index[0]]
        if time.monotonic() > deadline:
            raise AssertionError(
                f"the event log never showed the {partitions} tasks of job {description!r}"
            )
        time.sleep(0.5)


def _run(spark, description: str, frame) -> None:
    spark.sparkContext.setJobDescription(description)
    try:
        frame.collect()
    finally:
        spark.sparkContext.setJobDescription(None)


def test_a_partition_that_keeps_collecting_the_heap_straggles_on_gc(spark, spark_event_dir):
    """Eight partitions of 1000 rows each sleep 600 ms; partition 7 also collects the whole
    heap 60 times (15 full collections took 0.9-1.5 s, too close to the 1 s checked; 30 took
    under 1 s once, in a test worker whose heap held little: a full collection costs what
    the heap holds). The query
    runs twice so that the measured run's code is already compiled (its first tasks would
    straggle too, for being first)."""
    expression = (
        "CASE WHEN id % 1000 = 0 THEN reflect('java.lang.Thread', 'sleep', 600L) "
        "WHEN spark_partition_id() = 7 AND id % 1000 < 60 THEN reflect('java.lang.System', 'gc') "
        "ELSE '' END AS x"
    )
    description = f"perfx-blocked-gc-{random.randrange(10**9)}"
    for run in (f"{description}-warm-up", description):  # a new plan each time: no reused shuffle
        _run(
            spark,
            run,
            spark.range(0, 8 * ROWS_PER_PARTITION, 1, 8).selectExpr(expression).agg({"x": "max"}),
        )

    tasks = _stage_tasks(spark_event_dir, description, partitions=8)
    report = find_stragglers(tasks)
    judged = report.tasks.set_index(tasks.loc[report.tasks.index, "task_index"])
    collector = judged.loc[7]
    assert tasks.loc[tasks["task_index"] == 7, "gc_time"].max() > 1000
    assert collector["straggler"], judged[["duration", "progress_ratio", "causes"]]
    assert collector["primary_cause"] == "gc", judged[["duration", "progress_ratio", "causes"]]


def test_the_first_tasks_of_a_fresh_stage_straggle_because_they_ran_first(spark, spark_event_dir):
    """A query never run before (its generated code holds a fresh constant) over 40 small
    partitions: the two tasks that start the stage on the executor's two cores compile it."""
    nonce = random.randrange(10**9)
    frame = (
        spark.range(0, 40 * 10_000, 1, 40).selectExpr(f"hash(id, {nonce}) AS h").agg({"h": "sum"})
    )
    description = f"perfx-blocked-cold-{nonce}"
    _run(spark, description, frame)

    report = find_stragglers(_stage_tasks(spark_event_dir, description, partitions=40))
    first = report.tasks[report.tasks["first_task"]]
    assert len(first) == 2, "local[2]: two cores start the stage"
    assert first["straggler"].any(), report.tasks[["duration", "progress_ratio", "first_task"]]
    stragglers = first[first["straggler"]]
    assert stragglers["causes"].str.contains("first_task").all(), stragglers[["duration", "causes"]]
