"""The differential oracle at scale: a few hundred random pipelines (tests/isolation/
pipelines.py), each run plain and traced in both lineage modes, must give equal outputs.
Prints how many pipelines and operators were checked and the traced/plain time ratio of the
whole batch (both measured in this run). ``PERFX_BENCH_ORACLE_EXAMPLES`` sets the count."""

from __future__ import annotations

import collections
import os
import tempfile
import time

EXAMPLES = int(os.environ.get("PERFX_BENCH_ORACLE_EXAMPLES", 300))


def main() -> None:
    from hypothesis import HealthCheck, given, settings

    from perfx.isolation.runner import spark_session
    from perfx.isolation.stores import open_store
    from tests.isolation.oracle import run_plain, run_traced
    from tests.isolation.pipelines import build, pipelines

    spark, created = spark_session("local[2]", "perfx bench oracle")
    used: collections.Counter = collections.Counter()
    times = {"plain": 0.0, "impact": 0.0, "full": 0.0}
    checked = [0]
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(os.path.join(folder, "runs"))

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(drawn=pipelines())
        def check(drawn):
            pipeline = build(*drawn)
            start = time.perf_counter()
            plain = run_plain(spark, pipeline, {})
            times["plain"] += time.perf_counter() - start
            for lineage in ("impact", "full"):
                start = time.perf_counter()
                traced = run_traced(spark, store, pipeline, {}, lineage)
                times[lineage] += time.perf_counter() - start
                assert traced == plain, f"{lineage}: {drawn}"
            checked[0] += 1
            used.update(step.__qualname__.split("(")[0] for step in drawn[1])
            if checked[0] % 20 == 0:
                print(f"... {checked[0]} pipelines equal so far", flush=True)

        try:
            check()
        finally:
            if created:
                spark.stop()
    print(f"pipelines checked: {checked[0]} (plain = impact = full on every one)")
    print(f"operators drawn: {sum(used.values())}; per operator: {dict(sorted(used.items()))}")
    for lineage in ("impact", "full"):
        print(f"traced {lineage} / plain wall time: {times[lineage] / times['plain']:.2f}x")
