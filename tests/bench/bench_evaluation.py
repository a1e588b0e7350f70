"""The paper's evaluation in full: ``perfx fixtures ec2 --seed 1`` then ``perfx evaluate``
(10 runs), timed against the 10-minute budget, printing results.md and its checks.

Set ``PERFX_EVALUATION_OUT`` to keep the outputs (default: a temporary directory)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

BUDGET_S = 600.0


def main() -> None:
    from perfx.logs.loader import load_log
    from perfx.paper.ec2.generate import write_fixtures
    from perfx.paper.evaluation import evaluate
    from perfx.paper.report import summarise, write

    out = Path(
        os.environ.get("PERFX_EVALUATION_OUT") or tempfile.mkdtemp(prefix="perfx-evaluation-")
    )
    started = time.perf_counter()
    write_fixtures(out / "ec2-seed1", seed=1)
    generated = time.perf_counter()
    log = load_log([out / "ec2-seed1"])
    evaluation = evaluate(log, runs=10, seed=0, progress=True)
    paths = write(evaluation, out / "results")
    done = time.perf_counter()
    print((out / "results" / "results.md").read_text())
    print(
        f"fixtures {generated - started:.1f} s, load + evaluate + write {done - generated:.1f} s; "
        f"evaluate budget {BUDGET_S:.0f} s: {'within' if done - generated <= BUDGET_S else 'OVER'}"
    )
    checks = summarise(evaluation)["checks"]
    print(f"checks passed: {sum(c['passed'] for c in checks.values())}/{len(checks)}")
    print("outputs: " + ", ".join(str(p) for p in paths))


if __name__ == "__main__":
    main()
