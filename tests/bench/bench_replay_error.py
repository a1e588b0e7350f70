"""Model error of the scheduling replay: how far the replay of the real task durations lands
from each job's real completion time, on every Spark event log in tests/data/spark-events
and every Ousterhout job log (``./dev bench replay_error``).

Sparklens reports 4-6 % on its own fixtures and the NSDI 2015 paper 4 % at the median, 7 % at
the 95th percentile on its benchmark workloads.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def job_errors(path: Path) -> pd.DataFrame:
    """Per job with tasks: real and modelled time and the model error (modelled-real)/real."""
    from perfx.explain.blocked.whatif import whatif
    from perfx.logs.loader import load_log

    jobs = whatif(load_log(path), []).jobs
    return jobs[jobs["tasks"] > 0][
        ["app_id", "job_id", "tasks", "real_ms", "modelled_ms", "model_error"]
    ]


def distribution(errors: pd.Series) -> dict[str, float]:
    absolute = errors.abs().to_numpy()
    return {
        "jobs": len(absolute),
        "median": float(np.median(absolute)),
        "p90": float(np.percentile(absolute, 90)),
        "p95": float(np.percentile(absolute, 95)),
        "max": float(absolute.max()),
        "mean signed": float(errors.mean()),
    }


def main() -> None:
    for name in ("spark-events", "ousterhout-traces"):
        started = time.perf_counter()
        jobs = job_errors(DATA / name)
        elapsed = time.perf_counter() - started
        stats = distribution(jobs["model_error"])
        print(
            f"\n{name}: {stats['jobs']} jobs with tasks ({int(jobs['tasks'].sum())} task attempts) in {elapsed:.2f}s"
        )
        print(
            "  |model error|: "
            + ", ".join(f"{k} {100 * v:.2f}%" for k, v in stats.items() if k != "jobs")
        )
        worst = jobs.reindex(jobs["model_error"].abs().sort_values(ascending=False).index).head(5)
        for _, job in worst.iterrows():
            print(
                f"  {job['app_id']} job {job['job_id']}: real {job['real_ms']:.0f} ms, "
                f"modelled {job['modelled_ms']:.0f} ms ({100 * job['model_error']:+.2f}%)"
            )


if __name__ == "__main__":
    main()
