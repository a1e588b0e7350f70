"""Shared helpers for the held-out scenario scripts (probe of perfx's diagnosis).

Each scenario script: python SCRIPT.py SEED  -> runs one local Spark app with an event log in
/tmp/probe-diagnosis/logs, and writes /tmp/probe-diagnosis/runs/<scenario>-<seed>.json with
what was injected (job description, stage hint: number of tasks, injected partition or -1).
"""

from __future__ import annotations

import glob
import json
import os
import random
import sys
import time
from contextlib import contextmanager

BASE = "/tmp/probe-diagnosis"
LOGS = f"{BASE}/logs"
RUNS = f"{BASE}/runs"
DATA = f"{BASE}/data"


def session(name: str, master: str = "local[2]", extra: dict | None = None):
    from pyspark.sql import SparkSession

    os.makedirs(LOGS, exist_ok=True)
    b = (
        SparkSession.builder.master(master)
        .appName(name)
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", LOGS)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "24")
        .config("spark.python.worker.reuse", "true")
    )
    for k, v in (extra or {}).items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return spark


def cheap(line: str, passes: int = 2) -> int:
    h = 0
    for _ in range(passes):
        for c in line[:24]:
            h = (h * 31 + ord(c)) & 0xFFFFFFFF
    return h


def warm_up(spark) -> None:
    sc = spark.sparkContext
    sc.setJobDescription("warm-up")
    sc.parallelize(range(40_000), 4).map(str).map(cheap).sum()
    spark.range(0, 200_000, 1, 4).selectExpr("sum(hash(id))").collect()
    sc.setJobDescription(None)


@contextmanager
def described(spark, description: str):
    spark.sparkContext.setJobDescription(description)
    try:
        yield
    finally:
        spark.sparkContext.setJobDescription(None)


def write_lines(directory: str, counts: list[int], make) -> list[str]:
    """One text file per partition; make(p, i) -> line (without newline)."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for p, n in enumerate(counts):
        path = os.path.join(directory, f"part-{p:04d}.txt")
        with open(path, "w") as out:
            out.writelines(make(p, i) + "\n" for i in range(n))
        paths.append(path)
    return paths


def text_partitions(sc, paths):
    rdd = sc.textFile(",".join(paths), minPartitions=1)
    assert rdd.getNumPartitions() == len(paths), rdd.getNumPartitions()
    return rdd


def finish(spark, scenario: str, seed: int, description: str, num_tasks: int, partition: int,
           stage_hint: str, **details) -> None:
    app = spark.sparkContext.applicationId
    spark.stop()
    time.sleep(1)
    logs = [p for p in glob.glob(f"{LOGS}/*{app}*") if not p.endswith(".inprogress")]
    os.makedirs(RUNS, exist_ok=True)
    record = dict(
        scenario=scenario, seed=seed, app=app, log=logs[0] if logs else None,
        description=description, num_tasks=num_tasks, partition=partition,
        stage_hint=stage_hint, details=details,
    )
    with open(f"{RUNS}/{scenario}-{seed}.json", "w") as out:
        json.dump(record, out, indent=1)
    print(json.dumps(record))


# (Spark's HashPartitioning of a bigint key, which the probe's hot-key scenarios used to place
# their keys, left out here: none of the scenarios kept beside it uses it.)


def seed_arg() -> int:
    return int(sys.argv[1]) if len(sys.argv) > 1 else 1


def rng_for(scenario: str, seed: int) -> random.Random:
    return random.Random(f"{scenario}/{seed}")
