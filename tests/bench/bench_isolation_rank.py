"""Culprit ranking on a stored run with >= 10^7 lineage rows (target: < 30 s with DuckDB).

Writes a synthetic impact-lineage output table of 10^7 rows (20 partitions of Parquet) to a
temporary store, then times the ``perfx culprits`` query path: open the run, rank the
final outputs by most impactful source, locate the top 10. Also times ``rank_culprits`` on
the same rows already in memory (pandas), and ``propagate`` on a full-lineage pair of
tables with 10^6 rows each, for scale."""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np
import pandas as pd
import pyarrow as pa

ROWS = int(os.environ.get("PERFX_BENCH_ROWS", 10_000_000))
PARTITIONS = 20


def _partition(run: str, stage: int, partition: int, rows: int, rng) -> pa.Table:
    from perfx.isolation.ids import partition_base
    from perfx.isolation.lineage import SCHEMA

    total = rng.gamma(2.0, 50.0, rows)
    columns = {
        "run": pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int32)), pa.array([run])),
        "stage": np.full(rows, stage, np.int32),
        "partition": np.full(rows, partition, np.int32),
        "out_id": partition_base(stage, partition) + np.arange(rows, dtype=np.int64),
        "in_ids": pa.nulls(rows, pa.list_(pa.int64())),
        "in_latency_ms": pa.nulls(rows, pa.list_(pa.float64())),
        "shuffle_latency_ms": rng.random(rows),
        "total_latency_ms": total,
        "most_impactful_source": rng.integers(0, 1_000_000, rows),
        "remediated_latency_ms": total * rng.random(rows),
        "record": pa.nulls(rows, pa.string()),
        "key": pa.nulls(rows, pa.string()),
        "records": pa.nulls(rows, pa.int64()),
    }
    return pa.table(columns, schema=SCHEMA)


def main() -> None:
    from perfx.isolation import propagate, rank_culprits
    from perfx.isolation.ids import ID_LAYOUT
    from perfx.isolation.queries import StoredRun, top_culprits
    from perfx.isolation.stores import open_store

    rng = np.random.default_rng(5)
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(folder)
        run = "bench-rank"
        store.begin(run, {"run": run, "complete": False})
        started = time.perf_counter()
        for partition in range(PARTITIONS):
            store.write_partition(
                run, 1, partition, _partition(run, 1, partition, ROWS // PARTITIONS, rng)
            )
        store.mark_complete(
            run,
            {
                "run": run,
                "ids": ID_LAYOUT,
                "lineage": "impact",
                "outputs": [1],
                "sources": {},
                "stages": {"1": {"kind": "output", "partitions": PARTITIONS}},
            },
        )
        written = time.perf_counter() - started

        started = time.perf_counter()
        stored = StoredRun.open(store, run)
        top = top_culprits(stored, 10)
        ranked_stored = time.perf_counter() - started

        frame = (
            stored.tables[1]
            .to_table(
                columns=["most_impactful_source", "total_latency_ms", "remediated_latency_ms"]
            )
            .to_pandas()
        )
        started = time.perf_counter()
        everything = rank_culprits(frame)
        ranked_memory = time.perf_counter() - started

    edges = 1_000_000
    sources = pd.DataFrame(
        {
            "out_id": np.arange(edges),
            "in_ids": [[]] * edges,
            "in_latency_ms": [[]] * edges,
            "shuffle_latency_ms": 0.0,
        }
    )
    ids = rng.integers(0, edges, edges)
    stage = pd.DataFrame(
        {
            "out_id": np.arange(edges, 2 * edges),
            "in_ids": [[int(i)] for i in ids],
            "in_latency_ms": [[float(x)] for x in rng.random(edges)],
            "shuffle_latency_ms": 1.0,
        }
    )
    started = time.perf_counter()
    propagate([sources, stage])
    propagated = time.perf_counter() - started

    print(
        f"lineage rows: {len(frame):,} in {PARTITIONS} Parquet partitions (written in {written:.1f} s)"
    )
    print(
        f"rank top 10 culprits of the stored run (open + DuckDB + locate): {ranked_stored:.2f} s "
        f"({'meets' if ranked_stored < 30 else 'misses'} the 30 s target)"
    )
    print(
        f"rank_culprits on the rows in memory ({len(everything):,} sources): {ranked_memory:.2f} s"
    )
    print(f"propagate, 2 full-lineage tables of {edges:,} rows: {propagated:.2f} s")
    print(f"top culprit: source {int(top.source.iloc[0])} impact {top.impact_ms.iloc[0]:.1f} ms")
