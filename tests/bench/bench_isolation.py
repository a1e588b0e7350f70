"""Tracing an unmodified DataFrame script (issue 31): the overhead of ``perfx isolate
SCRIPT.py`` over the plain run of the same script (a regex row UDF over 4 files of
PERFX_BENCH_LINES lines, default 100,000 each; local[2], median of 9 alternating runs in one
session after 3 of each to warm up; target <= 1.3x; the traced run includes storing the UDF
calls and locating in the input those that cost 50 µs or more: no line is slow here, but on
a busy two-core host a few dozen calls of each run take milliseconds, their worker
preempted, so the pass is made, and the bench prints what it costs), and, for the regex
script as a row UDF, a pandas UDF and a
mapInPandas function with a few pathological lines, how close ``perfx verify``'s measured
saving (5 plain runs each way) comes to the saving the UDF calls predicted (target: within
25 %).

A run takes 0.5-0.9 s and this host's speed drifts by a third between runs: the median of 5
moved the ratio between 1.23x and 1.44x from one bench run to the next with the same code.
Nine pairs, and the median of each pair's own ratio beside the ratio of the medians, say
what the drift hides."""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import time
from pathlib import Path

REPEATS = 5
"""Plain runs each way of ``perfx verify``."""
PAIRS = 9
"""Alternating plain and traced runs timed for the overhead."""
WARM_UP = 3
LINES = int(os.environ.get("PERFX_BENCH_LINES", 100_000))
SCRIPTS = Path(__file__).resolve().parents[1] / "isolation" / "scripts"
SLOW_LINE = "a" * 23 + "!"
"""The verify step's pathological line: two letters longer than the tests' (each letter
doubles the regex's cost), so that removing the three costs about 1.5 s of a 2 s run. At
the tests' 0.4 s, a busy two-core machine's noise between runs (0.1-0.2 s) was as large as
the prediction's error it is to measure."""


def main() -> None:
    from perfx.isolation.runner import spark_session
    from perfx.isolation.script import run_plain, trace_script
    from perfx.verify import verify
    from tests.isolation.scripts.lines import write_lines

    with tempfile.TemporaryDirectory() as folder:
        spark, created = spark_session("local[2]", "perfx bench isolation")
        quiet = open(os.devnull, "w")  # the scripts' prints, for the whole run
        big = Path(folder, "big")
        write_lines(big, files=4, lines=LINES, slow={})
        script = SCRIPTS / "regex_udf.py"
        store = os.path.join(folder, "runs")

        def plain() -> None:
            run_plain(script, [str(big)], spark)

        def traced() -> None:
            trace_script(script, [str(big)], spark=spark, store=store)

        with contextlib.redirect_stdout(quiet):
            # warm up the JVM (its JIT: a run's time falls by a third over the first five),
            # the Python workers and the page cache, both ways
            for _ in range(WARM_UP):
                plain()
                traced()
            times: dict[str, list[float]] = {"plain": [], "traced": []}
            for _ in range(PAIRS):
                for name, run in (("plain", plain), ("traced", traced)):
                    started = time.perf_counter()
                    run()
                    times[name].append(time.perf_counter() - started)
        median = {name: statistics.median(values) for name, values in times.items()}
        ratio = median["traced"] / median["plain"]
        paired = statistics.median(t / p for t, p in zip(times["traced"], times["plain"]))
        print(f"regex row UDF script, {4 * LINES:,} lines, local[2], median of {PAIRS}")
        for name, values in times.items():
            print(
                f"{name:7} {median[name]:7.2f} s {median[name] / median['plain']:5.2f}x   "
                + " ".join(f"{v:.2f}" for v in values)
            )
        verdict = "meets" if ratio <= 1.3 else "misses"
        print(f"tracing overhead {ratio:.2f}x {verdict} the 1.3x target")
        print(f"(the median of each pair's traced / plain: {paired:.2f}x)")
        located = _locating(big)
        print(
            f"of which locating 150 rows in these lines (a run with rows of 50 µs or more): "
            f"{located:.2f} s ({located / median['plain'] * 100:.0f} % of the plain run)"
        )

        small = Path(folder, "small")
        write_lines(small, pathological=SLOW_LINE)
        print(
            f"\nperfx verify --without 3 on the pathological lines ({REPEATS} plain runs each way):"
        )
        for name in ("regex_udf", "regex_pandas_udf", "regex_map_in_pandas"):
            with contextlib.redirect_stdout(quiet):
                run = trace_script(SCRIPTS / f"{name}.py", [str(small)], spark=spark, store=store)
                result = verify(run.run_id, without=3, store=store, spark=spark, repeats=REPEATS)
            predicted, measured = result.predicted_saving_ms, result.measured_saving_ms
            off = abs(measured - predicted) / predicted if predicted else float("inf")
            verdict = "within" if off <= 0.25 else "outside"
            print(
                f"{name:20} predicted saving {predicted:8,.0f} ms, measured {measured:8,.0f} ms "
                f"({result.before_ms:,.0f} -> {result.after_ms:,.0f} ms): "
                f"{off * 100:.0f} % off, {verdict} 25 %"
            )
        quiet.close()
        if created:
            spark.stop()


def _locating(folder: Path) -> float:
    """Seconds to locate 150 of the input's lines (best of 3): the pass over the input that a
    traced run makes when some of its rows cost ``NOTED_NS`` or more."""
    import random

    from perfx.isolation.udf import digest, locate_lines

    lines = [line for f in sorted(folder.iterdir()) for line in f.read_text().splitlines()]
    wanted = {digest(line) for line in random.Random(5).sample(lines, 150)}
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        locate_lines([str(folder)], wanted)
        best = min(best, time.perf_counter() - started)
    return best
