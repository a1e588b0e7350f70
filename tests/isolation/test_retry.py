"""A task that fails on its first attempt is retried by Spark; its lineage is written once,
by the attempt that succeeded: no duplicate and no missing rows.

Runs in a subprocess: retries need a ``local[N,maxFailures]`` master, hence a SparkContext of
its own (the shared test session never retries)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.spark

JOB = textwrap.dedent("""
    import json, sys
    from operator import add
    from pyspark import TaskContext
    from pyspark.sql import SparkSession
    from perfx.isolation import TracedContext
    from perfx.isolation.stores import open_store

    data, root = sys.argv[1], sys.argv[2]
    spark = (SparkSession.builder.master("local[2,2]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    store = open_store(root)

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

    def run(failing):
        with TracedContext(spark, store=store) as ctx:
            pairs = ctx.textFile(data, 3).map(parse if failing == "map" else lambda l: (int(l) % 5, 1))
            counts = pairs.reduceByKey(add, 2, partition_of if failing == "partitionFunc" else hash)
            result = sorted(counts.mapValues(lambda v: v).collect())
        frame = store.partitions(ctx.run_id)
        tables = {s: t.to_table().to_pandas() for s, t in store.tables(ctx.run_id).items()}
        return {"result": result, "partitions": frame.to_dict("records"),
                "duplicates": sum(int(t.out_id.duplicated().sum()) for t in tables.values()),
                "rows": {str(s): len(t) for s, t in tables.items()}}

    print(json.dumps({mode: run(mode) for mode in ("none", "map", "partitionFunc")}))
""")


def test_retried_task_leaves_no_duplicate_or_missing_rows(tmp_path):
    data = tmp_path / "numbers.txt"
    data.write_text("".join(f"{i}\n" for i in range(3000)))
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, "-c", JOB, str(data), str(tmp_path / "runs")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])
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
