"""Overhead of record-level tracing: traced run time / plain PySpark run time of the same
program on the same data (Movie Ratings, >= 1 M input records, local[2]), both lineage
modes, measured side by side in one process, median of 5 (target: <= 1.3x in impact mode).

Each traced run includes writing its lineage and marking the run complete."""

from __future__ import annotations

import os
import statistics
import tempfile

from tests.bench.timing import in_turn

RECORDS = int(os.environ.get("PERFX_BENCH_RECORDS", 1_000_000))
REPEATS = 5


def main() -> None:
    from perfx.isolation import TracedContext
    from perfx.isolation.programs import movie_ratings
    from perfx.isolation.runner import spark_session
    from perfx.isolation.stores import open_store

    with tempfile.TemporaryDirectory() as folder:
        data = os.path.join(folder, "ratings.txt")
        movie_ratings.generate(data, RECORDS, seed=11)
        size = os.path.getsize(data)
        spark, created = spark_session("local[2]", "perfx bench isolation_overhead")
        sc = spark.sparkContext
        store = open_store(os.path.join(folder, "runs"))

        def plain() -> None:
            movie_ratings.pipeline(sc, data).collect()

        def traced(mode: str):
            def run() -> None:
                with TracedContext(spark, store=store, lineage=mode) as ctx:
                    movie_ratings.pipeline(ctx, data).collect()

            return run

        runs = {"plain": plain, "impact": traced("impact"), "full": traced("full")}
        plain()  # warm up the JVM, the Python workers and the page cache
        times = in_turn(runs, REPEATS)
        if created:
            spark.stop()
    median = {name: statistics.median(values) for name, values in times.items()}
    print(
        f"Movie Ratings, {RECORDS:,} input records ({size / 1e6:.0f} MB), local[2], median of {REPEATS}"
    )
    print(f"{'run':8} {'median s':>9} {'ratio':>7}   all runs (s)")
    for name, values in times.items():
        ratio = median[name] / median["plain"]
        print(
            f"{name:8} {median[name]:9.2f} {ratio:6.2f}x   {' '.join(f'{v:.2f}' for v in values)}"
        )
    for name in ("impact", "full"):
        paired = statistics.median(t / p for t, p in zip(times[name], times["plain"]))
        print(
            f"{name}: median of the per-round ratios (each traced run / the plain run just before it) {paired:.2f}x"
        )
    verdict = "meets" if median["impact"] / median["plain"] <= 1.3 else "misses"
    print(
        f"impact-mode overhead {median['impact'] / median['plain']:.2f}x {verdict} the 1.3x target"
    )
