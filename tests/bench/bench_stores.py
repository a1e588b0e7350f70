"""Write and query throughput of the two lineage stores on the lineage of one traced run of
10^6 records (PERFX_BENCH_RECORDS): Parquet on the local disk (the baseline) and Apache Ignite
(one node on this machine, started from tests/ignite, or PERFX_IGNITE_HOST's).

Three figures per store, each the median of REPEATS, the stores measured in turn in one process:

* the traced run (local[2]: tracing, the tasks writing their partitions, completion), in
  input records per second;
* writing alone: the run's partitions written again by one process, as its tasks wrote
  them, in lineage rows (and Arrow MB) per second;
* querying: opening the run and asking its slowest outputs, its top culprits and one task's
  culprits (what ``perfx isolate`` and ``perfx culprits`` ask), in lineage rows per second.

Ratios are Ignite's time over Parquet's (above 1: Ignite is slower)."""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from tests.bench.timing import in_turn

RECORDS = int(os.environ.get("PERFX_BENCH_RECORDS", 1_000_000))
REPEATS = 3
PARTITIONS = 8


def parse(line: str) -> tuple[str, int]:
    key, value = line.split(",")
    return key, int(value)


def pipeline(ctx, path: str):
    """One map over the input: a lineage row per input record, with its excerpt and key."""
    return ctx.textFile(path, PARTITIONS).map(parse)


def _median_s(actions: dict) -> dict[str, float]:
    return {name: statistics.median(t) for name, t in in_turn(actions, REPEATS).items()}


def main() -> None:
    import pyarrow as pa

    from perfx.isolation import TracedContext
    from perfx.isolation.queries import StoredRun, outputs, top_culprits
    from perfx.isolation.runner import spark_session
    from perfx.isolation.stores import open_store
    from tests.ignite.node import start

    with tempfile.TemporaryDirectory(prefix="perfx-bench-stores-") as folder:
        data = os.path.join(folder, "input.txt")
        rng = random.Random(5)
        with open(data, "w") as out:
            out.writelines(
                f"k{rng.randrange(5000)},{rng.randrange(10**6)}\n" for _ in range(RECORDS)
            )
        host = os.environ.get("PERFX_IGNITE_HOST")
        node = None if host else start(Path(folder) / "ignite", max_mb=4096)
        stores = {
            "parquet": open_store(os.path.join(folder, "runs")),
            "ignite": open_store(f"ignite://{host}" if host else node.url),  # type: ignore[union-attr]
        }
        spark, created = spark_session("local[2]", "perfx bench stores")
        try:
            traced_runs: dict[str, list[str]] = {name: [] for name in stores}

            def traced(name: str):
                def run() -> None:
                    with TracedContext(spark, store=stores[name]) as ctx:
                        pipeline(ctx, data).count()
                    traced_runs[name].append(ctx.run_id)

                return run

            traced("parquet")()  # warm: Python workers, JIT of the readers, the node's caches
            traced("ignite")()
            run_s = _median_s({name: traced(name) for name in stores})

            source = stores["parquet"]
            run = traced_runs["parquet"][-1]
            stage_tables = {s: t.to_table() for s, t in source.tables(run).items()}
            partitions = [
                (stage, p, table.filter(pa.compute.equal(table["partition"], p)))
                for stage, table in stage_tables.items()
                for p in range(PARTITIONS)
            ]
            rows = sum(t.num_rows for _, _, t in partitions)
            megabytes = sum(t.nbytes for _, _, t in partitions) / 1e6
            meta = source.run_meta(run)

            def write(name: str):
                store = stores[name]

                def copy() -> None:
                    copy_id = f"copy-{time.monotonic_ns()}"
                    store.begin(copy_id, {**meta, "run": copy_id, "complete": False})
                    for stage, p, table in partitions:
                        store.write_partition(copy_id, stage, p, table)
                    store.mark_complete(copy_id, {**meta, "run": copy_id})

                return copy

            write_s = _median_s({name: write(name) for name in stores})

            def query(name: str):
                def ask() -> None:
                    stored = StoredRun.open(stores[name], traced_runs[name][-1])
                    outputs(stored, limit=10)
                    top_culprits(stored, top=10)
                    top_culprits(stored, top=10, stage=stored.final_stage, partition=0)

                return ask

            query_s = _median_s({name: query(name) for name in stores})
        finally:
            if created:
                spark.stop()
            if node is not None:
                node.stop()

    print(
        f"traced run of {RECORDS:,} input records, {rows:,} lineage rows ({megabytes:.1f} MB "
        f"of Arrow) in {len(partitions)} partitions; median of {REPEATS}; Ignite on this machine"
    )
    print(f"{'':32}{'Parquet':>16}{'Ignite':>16}{'Ignite/Parquet':>16}")
    figures = [
        ("traced run (records/s)", run_s, RECORDS),
        ("write (lineage rows/s)", write_s, rows),
        ("write (MB/s)", write_s, megabytes),
        ("query (lineage rows/s)", query_s, rows),
    ]
    for label, seconds, amount in figures:
        ratio = seconds["ignite"] / seconds["parquet"]
        print(
            f"{label:32}{amount / seconds['parquet']:>16,.0f}"
            f"{amount / seconds['ignite']:>16,.0f}{ratio:>15.2f}x"
        )
    print(
        "seconds: "
        + "; ".join(
            f"{what} parquet {s['parquet']:.2f} ignite {s['ignite']:.2f}"
            for what, s in (("run", run_s), ("write", write_s), ("query", query_s))
        )
    )
