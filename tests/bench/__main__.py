"""Run the benchmarks: ``./dev bench [NAME ...]`` (NAME is ``parse`` for bench_parse.py).

Each ``tests/bench/bench_<name>.py`` defines ``main() -> None``, which measures perfx and a
baseline in the same run and prints ratios: these machines are noisy, so absolute times
measured elsewhere mean little.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def available() -> list[str]:
    return sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))


def run(names: list[str]) -> int:
    unknown = [n for n in names if n not in available()]
    if unknown:
        print(
            f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(available())}",
            file=sys.stderr,
        )
        return 2
    for name in names or available():
        print(f"\n=== bench {name} ===", flush=True)
        importlib.import_module(f"tests.bench.bench_{name}").main()
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
