"""Small Spark jobs with the JVM reaching its Python workers over Unix domain sockets (the
sessions perfx starts: ``isolation.runner.with_worker_sockets``) against PySpark's default
loopback TCP, and a traced run of a small join both ways.

Two sessions cannot share a process, so each runs in a fresh process of its own, the two
in turn, REPEATS times; each process times its jobs after a first one (the JVM's and the
workers' start is not what differs). The fastest round of each counts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

REPEATS = 3
JOBS = 5

ROUND = """
import json, sys, tempfile, time
from perfx.isolation import TracedContext
from perfx.isolation.runner import session_builder
from perfx.isolation.stores import open_store

builder = session_builder("local[2]", "perfx bench worker_sockets")
if sys.argv[1] == "tcp":
    builder = builder.config("spark.python.unix.domain.socket.enabled", "false")
spark = builder.getOrCreate()
sc = spark.sparkContext
sc.parallelize(range(8), 4).count()  # the workers started

def timed(action):
    started = time.perf_counter()
    for _ in range(int(sys.argv[2])):
        action()
    return (time.perf_counter() - started) / int(sys.argv[2])

pairs = [(k % 7, k) for k in range(200)]
count = timed(lambda: sc.parallelize(range(100), 4).map(lambda v: v + 1).count())
join = timed(
    lambda: sc.parallelize(pairs, 4).join(sc.parallelize(pairs[:20], 2)).collect()
)
with tempfile.TemporaryDirectory() as folder:
    store = open_store(folder)

    def traced():
        with TracedContext(spark, store=store, lineage="impact") as ctx:
            ctx.parallelize(pairs, 4).join(ctx.parallelize(pairs[:20], 2)).collect()

    traced_join = timed(traced)
print(json.dumps({"count": count, "join": join, "traced_join": traced_join}))
spark.stop()
"""


def _round(transport: str) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as cwd:
        done = subprocess.run(
            [sys.executable, "-c", ROUND, transport, str(JOBS)],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=cwd,
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    rounds: dict[str, list[dict[str, float]]] = {"unix": [], "tcp": []}
    for _ in range(REPEATS):
        for transport in rounds:
            rounds[transport].append(_round(transport))
    best = {t: {k: min(r[k] for r in runs) for k in runs[0]} for t, runs in rounds.items()}
    print(f"seconds per job, mean of {JOBS} after a first, best of {REPEATS} processes each")
    print(f"{'job':>12} | {'unix socket':>11} | {'tcp':>7} | tcp / unix")
    for job in best["unix"]:
        unix, tcp = best["unix"][job], best["tcp"][job]
        print(f"{job:>12} | {unix:11.3f} | {tcp:7.3f} | {tcp / unix:.2f}x")
    print(json.dumps(best))


if __name__ == "__main__":
    main()
