"""What a task does at a stage end: write its own partition's lineage rows to the store.

The task knows its attempt number and Spark stage id; both go with the rows, so that a
retried or speculative attempt visibly replaces the first one and a stored stage can be
matched to the Spark stage (and so to PXQL's tasks) it ran as."""

from __future__ import annotations

from pyspark import TaskContext

from .lineage import PartitionRows


def write_rows(store, run: str, stage: int, partition: int, rows: PartitionRows) -> None:
    task = TaskContext.get()
    attempt = task.attemptNumber() if task else 0
    spark_stage = task.stageId() if task else -1
    store.write_partition(
        run,
        stage,
        partition,
        rows.to_arrow(run, stage, partition),
        attempt=attempt,
        spark_stage=spark_stage,
    )
