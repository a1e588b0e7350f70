"""PXQL parsing speed: ``perfx parse`` of a 10,000-atom query must take under a second.

Measured in-process (parse(), to_pxql(), query_to_dict()) and end to end (the ``perfx``
console script in a subprocess, query on stdin: it is longer than one argv string may be).
Baselines measured in the same run, because the machine is shared and noisy: splitting the
same text on whitespace (the least any tokenizer does), a regex tokenizer over it, a
100-atom query (parse time should grow linearly: x100), and ``perfx --help`` / ``python -c
pass`` for the fixed cost of starting the CLI. Times are the best of several runs, wall
clock, with the CPU time of that run beside them (the difference is waiting for a core on a
busy machine).
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from perfx.grammar.parser import parse
from perfx.grammar.printer import to_pxql
from perfx.grammar.serialize import query_to_dict

ATOMS = 10_000
REPEATS = 5
PERFX = Path(sys.executable).with_name("perfx")


def query(atoms: int) -> str:
    """A query whose DESPITE clause has ``atoms`` atoms of every kind PXQL has."""
    kinds = [
        "feature_{i} isSame = T",
        "input_bytes_{i}_compare = SIM",
        "avg load five_{i} compare = GT",
        "blocksize_{i} >= 128MB",
        "gc_time_{i} < 1.5s",
        "pigscript_{i} diff = ('filter.pig', 'join.pig')",
        "host_{i} = 'ip-10-0-0-{i}'",
        "f{i}.isSame != F",
    ]
    despite = " AND\n  ".join(kinds[i % len(kinds)].format(i=i) for i in range(atoms))
    return (
        "FOR T1, T2 WHERE T1.TaskID = 33 AND T2.TaskID = 22\n"
        f"DESPITE {despite}\n"
        "OBSERVED duration compare = GT\nEXPECTED duration compare = SIM\n"
    )


def best(run: Callable[[], object], repeats: int = REPEATS) -> tuple[float, float]:
    """(best wall seconds, CPU seconds of that run)."""
    results = []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        results.append((time.perf_counter() - wall, time.process_time() - cpu))
    return min(results)


def best_subprocess(
    args: list[str], stdin: str | None = None, repeats: int = REPEATS
) -> tuple[float, float]:
    """(best wall seconds, CPU seconds (user + system) the child used in that run)."""
    results = []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(args, input=stdin, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        results.append((wall, cpu))
        if done.returncode != 0:
            raise SystemExit(
                f"{' '.join(args[:3])} failed ({done.returncode}): {done.stderr[:500]}"
            )
    return min(results)


def main() -> None:
    big, small = query(ATOMS), query(ATOMS // 100)
    tokens = re.compile(r"\s+|--[^\n]*|\w+(?:\.\w+)*|'[^'\n]*'|[!<>=]=?|.")
    parsed = parse(big)
    assert len(parsed.despite) == ATOMS
    perfx = str(PERFX) if PERFX.exists() else shutil.which("perfx") or "perfx"

    split, _ = best(big.split)
    rows: list[tuple[str, float, float | None, str]] = [
        ("str.split of the text", split, None, "baseline"),
        ("regex tokenizer over the text", *best(lambda: tokens.findall(big)), "baseline"),
        (
            f"parse(), {ATOMS // 100}-atom query, x100",
            *best(lambda: [parse(small) for _ in range(100)]),
            "baseline",
        ),
        (f"parse(), {ATOMS}-atom query", *best(lambda: parse(big)), ""),
        ("to_pxql() of it", *best(lambda: to_pxql(parsed)), ""),
        ("query_to_dict() of it", *best(lambda: query_to_dict(parsed)), ""),
        ("python -c pass", *best_subprocess([sys.executable, "-c", "pass"]), "baseline"),
        ("perfx --help", *best_subprocess([perfx, "--help"]), "baseline"),
        (
            f"perfx parse - (text), {ATOMS} atoms",
            *best_subprocess([perfx, "parse", "-"], big),
            "target < 1 s",
        ),
        (
            f"perfx parse - (json), {ATOMS} atoms",
            *best_subprocess([perfx, "parse", "--format", "json", "-"], big),
            "",
        ),
    ]

    print(
        f"query: {ATOMS} atoms, {len(big):,} characters, {len(big.split()):,} whitespace-separated words"
    )
    print(f"{'measurement':44s} {'wall s':>8s} {'cpu s':>7s} {'/ split':>9s}  note")
    for name, wall, cpu, note in rows:
        cpu_text = f"{cpu:7.3f}" if cpu is not None else " " * 7
        print(f"{name:44s} {wall:8.3f} {cpu_text} {wall / split:9.0f}x  {note}")
    parse_wall = rows[3][1]
    print(
        f"\nparse() of {ATOMS} atoms vs 100 x {ATOMS // 100} atoms: {parse_wall / rows[2][1]:.2f} (1.00 = linear)"
    )
    _, end_to_end, end_to_end_cpu, _ = rows[8]
    verdict = "OK" if end_to_end < 1.0 else "OVER TARGET"
    print(
        f"perfx parse end to end: {end_to_end:.3f} s wall, {end_to_end_cpu:.3f} s CPU ({verdict}; target < 1 s)"
    )
    if end_to_end_cpu and end_to_end > 1.5 * end_to_end_cpu:
        print(
            f"(wall >> CPU: the machine is busy, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
        )


if __name__ == "__main__":
    main()
