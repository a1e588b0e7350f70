"""A task that fails on its first attempt is retried by Spark; its lineage is written once,
by the attempt that succeeded: no duplicate and no missing rows, in the Parquet store and in
Apache Ignite alike.

Runs in a subprocess: retries need a ``local[N,maxFailures]`` master, hence a SparkContext of
its own (the shared test session never retries)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.ignite]

JOB = textwrap.dedent("""
    import json, sys
    from operator import add
    from pyspark import TaskContext
    from pyspark.sql import SparkSession
    from perfx.isolation import TracedContext
    from perfx.isolation.stores import open_store

    data, urls = sys.argv[1], sys.argv[2:]
    spark = (SparkSession.builder.master("local[2,2]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("OFF")

    def fail_first_attempt(where):
        task = TaskContext.get()
        if task.partitionId() == 1 and task.attemptNumber() == 0:
            raise RuntimeError(f"injected failure in {where}")

    def parse(line):                      # fails mid-partition, before any lineage is written
        if line.endswith("7"):
            fail_first_attempt("map")
        return (int(line) % 5, 1)

    def partition_of(key):                # fails after the combine wrote its lineage
        fail_first_attempt("partitionFunc")
        return key

    def run(store, failing):
        with TracedContext(spark, store=store) as ctx:
            pairs = ctx.textFile(data, 3).map(parse if failing == "map" else lambda l: (int(l) % 5, 1))
            counts = pairs.reduceByKey(add, 2, partition_of if failing == "partitionFunc" else hash)
            result = sorted(counts.mapValues(lambda v: v).collect())
        frame = store.partitions(ctx.run_id)
        tables = {s: t.to_table().to_pandas() for s, t in store.tables(ctx.run_id).items()}
        return {"result": result, "partitions": frame.to_dict("records"),
                "duplicates": sum(int(t.out_id.duplicated().sum()) for t in tables.values()),
                "rows": {str(s): len(t) for s, t in tables.items()}}

    print(json.dumps({url: {mode: run(open_store(url), mode) for mode in ("none", "map", "partitionFunc")}
                      for url in urls}))
""")


def test_retried_task_leaves_no_duplicate_or_missing_rows(tmp_path, ignite_url):
    data = tmp_path / "numbers.txt"
    data.write_text("".join(f"{i}\n" for i in range(3000)))
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, "-c", JOB, str(data), str(tmp_path / "runs"), ignite_url],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    by_store = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(by_store) == sorted([str(tmp_path / "runs"), ignite_url])
    for runs in by_store.values():
        _assert_retries_replaced_whole(runs)
    parquet, ignite = ([_written(r) for r in runs.values()] for runs in by_store.values())
    assert parquet == ignite, "the stores hold different partitions after the same retries"


def _written(run: dict) -> list[tuple]:
    """(stage, partition, rows, attempt) of each stored partition (Spark's stage ids grow
    from one run to the next)."""
    return [(p["stage"], p["partition"], p["rows"], p["attempt"]) for p in run["partitions"]]


def _assert_retries_replaced_whole(runs: dict) -> None:
    clean = runs["none"]
    for mode in ("map", "partitionFunc"):
        retried = runs[mode]
        assert retried["result"] == clean["result"]
        assert retried["duplicates"] == 0
        assert retried["rows"] == clean["rows"]
        stages = {(p["stage"], p["partition"]) for p in retried["partitions"]}
        assert stages == {(p["stage"], p["partition"]) for p in clean["partitions"]}
        attempts = {(p["stage"], p["partition"]): p["attempt"] for p in retried["partitions"]}
        assert attempts[(0 + 1, 1)] == 1, "the combine of partition 1 was written by its retry"
