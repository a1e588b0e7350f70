"""The log fuzzer at scale: CASES damaged copies of shipped logs (tests/logs/damage.py, drawn
by hypothesis, no shrinking), each run through ``perfx logs``, ``explain``, ``stragglers``,
``whatif`` and, one case in REPORT_EVERY, ``report`` (tests/logs/fuzzing.py).

Prints how many cases ended how (exit codes per command), every case that failed (exit 70,
a traceback, or — for damage that keeps events whole — an answer other than the undamaged
log's: must be none), and beside it the baseline: how many of the same damaged logs a plain
``json.loads``-per-line reader dies on.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings

from tests.logs import damage
from tests.logs.fuzzing import Case, examine
from tests.logs.test_fuzz import cases

CASES = int(os.environ.get("PERFX_FUZZ_CASES", "500"))
REPORT_EVERY = 10
PROGRESS_EVERY = 50


def naive_reader_fails(path: Path) -> bool:
    """Does reading the file as UTF-8 JSON lines, one ``json.loads`` each, raise?"""
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    json.loads(line)
    except (UnicodeDecodeError, ValueError):
        return True
    return False


def main() -> None:
    results: list[tuple[Case, list[str], dict[str, int], bool]] = []
    started = time.perf_counter()

    @settings(
        max_examples=CASES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases(sorted(damage.DAMAGES)))
    def run(case: Case) -> None:
        report = len(results) % REPORT_EVERY == 0
        with tempfile.TemporaryDirectory() as folder:
            found, runs = examine(case, Path(folder), report=report)
            naive = naive_reader_fails(case.write(Path(folder) / "again"))
        exits = {command: run.exit_code for command, run in runs.items()}
        results.append((case, found, exits, naive))
        if len(results) % PROGRESS_EVERY == 0:
            failures = sum(1 for r in results if r[1])
            print(f"  {len(results)} damaged logs, {failures} failures", flush=True)

    run()
    seconds = time.perf_counter() - started
    failed = [(case, found) for case, found, _, _ in results if found]
    whole = [r for r in results if r[0].whole]
    exits: Counter = Counter()
    for _, _, by_command, _ in results:
        exits.update(f"{command}={code}" for command, code in by_command.items())
    kinds = Counter(d for case, *_ in results for d in case.damages)
    codecs = Counter(case.codec or "plain" for case, *_ in results)
    naive = sum(1 for *_, n in results if n)
    print(
        f"damaged logs: {len(results)} ({len(whole)} with every event whole), "
        f"{sum(1 for _, _, e, _ in results if 'report' in e)} also through perfx report; "
        f"{seconds:.0f} s, {seconds / len(results):.2f} s per log"
    )
    print("damages:", ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print("stored as:", ", ".join(f"{k} {n}" for k, n in sorted(codecs.items())))
    print("exit codes:", ", ".join(f"{k}: {n}" for k, n in sorted(exits.items())))
    print(
        f"perfx failures (exit other than 0/1/2, traceback, or whole events answered "
        f"differently): {len(failed)} of {len(results)}"
    )
    for case, found in failed[:20]:
        print(f"  {case}: {'; '.join(found)}")
    print(
        f"baseline: a json.loads-per-line reader dies on {naive} of {len(results)} "
        f"({naive / len(results):.0%}); perfx on {len(failed)}"
    )
    print(
        json.dumps(
            {
                "cases": len(results),
                "whole": len(whole),
                "failures": len(failed),
                "baseline_failures": naive,
                "seconds": round(seconds, 1),
            }
        )
    )
