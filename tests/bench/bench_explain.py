"""Explanation latency on task logs of 10^4, 10^5 and 10^6 tasks, next to a naive baseline.

The logs are synthesised from the real Spark event logs in tests/data/spark-events: every
task is replicated (each replica in a stage of its own, so stage sizes stay real) with
multiplicative noise on its numeric features. The query is the paper's kind with a DESPITE on
the same stage, width 3:

    WHY TASK <slowest task of the largest stage> SLOWER DESPITE stage_key isSame = T

perfx blocks on the stage, samples 2,000 related pairs and searches on them (O(n) per query).
The naive baseline materialises every same-stage pair (a self-join), labels them all, then
runs the same search on a balanced sample of them; it runs only where the pairs fit in memory.
Targets: p50 < 0.3 s at 10^5 tasks and < 3 s at 10^6, growing no worse than linearly.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import pandas as pd

from perfx.explain.engine import explain
from perfx.logs.model import Log
from tests.conftest import DATA

SIZES = (10_000, 100_000, 1_000_000)
RUNS = 3
NAIVE_MAX_PAIRS = 40_000_000


def real_tasks() -> Log:
    from perfx.logs.loader import load_log

    return load_log([DATA / "spark-events"])


def synthesise(base: Log, n: int, seed: int = 0) -> Log:
    """``n`` tasks: replicas of the real ones, each replica's stages distinct, numeric
    features (not identities) scaled by lognormal noise (σ = 0.1)."""
    rng = np.random.default_rng(seed)
    tasks = base.tasks
    reps = -(-n // len(tasks))
    out = tasks.iloc[np.tile(np.arange(len(tasks)), reps)[:n]].reset_index(drop=True)
    replica = np.repeat(np.arange(reps), len(tasks))[:n].astype(str)
    out["id"] = out["id"].astype(str).to_numpy() + "#" + replica
    out["stage_key"] = out["stage_key"].astype(str).to_numpy() + "#" + replica
    for spec in base.features("task", "numeric"):
        if (
            spec.role != "identity" and pd.api.types.is_float_dtype(out[spec.name])
        ) or spec.name == "duration":
            out[spec.name] = out[spec.name].to_numpy(dtype=float) * rng.lognormal(0.0, 0.1, n)
    return Log(tasks=out, registry=base.registry)


def query_for(log: Log) -> str:
    tasks = log.tasks
    largest = tasks["stage_key"].value_counts().index[0]
    stage = tasks[tasks["stage_key"] == largest]
    slow = stage["id"].iloc[int(np.argmax(stage["duration"].to_numpy()))]
    return f"WHY TASK '{slow}' SLOWER DESPITE stage_key isSame = T"


def naive(log: Log, query: str) -> None:
    """Materialise every same-stage pair, label them all, then search a balanced sample."""
    from perfx.explain.columns import columns_for
    from perfx.explain.engine import _parse
    from perfx.explain.options import ExplainOptions
    from perfx.explain.perfxplain import learn
    from perfx.explain.reference import resolve_request
    from perfx.explain.sampling import TrainingSet

    request = resolve_request(log, _parse(query, log), ExplainOptions(width=3))
    cols = columns_for(log, "task")
    rows = pd.DataFrame(
        {"row": np.arange(cols.n), "stage": cols.key("stage_key"), "d": cols.numeric("duration")}
    )
    pairs = rows.merge(rows, on="stage", suffixes=("_i", "_j"))
    pairs = pairs[pairs["row_i"] != pairs["row_j"]]
    a, b = pairs["d_i"].to_numpy(), pairs["d_j"].to_numpy()
    sim = np.abs(a - b) <= 0.1 * np.maximum(np.abs(a), np.abs(b))
    obs, exp = ~sim & (a > b), sim
    rng = np.random.default_rng(0)
    pick_o = rng.choice(np.flatnonzero(obs), min(1000, obs.sum()), replace=False)
    pick_e = rng.choice(np.flatnonzero(exp), min(1000, exp.sum()), replace=False)
    picked = np.concatenate([pick_o, pick_e])
    labels = np.arange(len(picked)) < len(pick_o)
    ts = TrainingSet(
        pairs["row_i"].to_numpy()[picked],
        pairs["row_j"].to_numpy()[picked],
        labels,
        np.ones(len(picked)),
        len(pairs),
        float(len(pairs)),
        float(obs.sum() + exp.sum()),
        float(obs.sum()),
        float(exp.sum()),
        True,
    )
    learn(request, cols, ts, "because", 3)


def timed(fn, runs: int = RUNS) -> tuple[float, float]:
    """(first run, p50 of the next ``runs``) in seconds. The first run on a log is cold: it
    also converts and caches the log's columns (nominal codes) for every later query."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times)


def main() -> None:
    base = real_tasks()
    print(
        f"base: {len(base.tasks)} real tasks from {DATA / 'spark-events'}; width 3, sample 2000, p50 of {RUNS} runs"
    )
    print(
        f"{'tasks':>10} {'pairs in stages':>16} {'perfx first':>12} {'perfx p50':>10} {'naive p50':>10} {'naive/perfx':>12} {'p50 per 10^5':>13}"
    )
    rows = []
    for n in SIZES:
        log = synthesise(base, n)
        query = query_for(log)
        sizes = log.tasks["stage_key"].value_counts().to_numpy()
        pairs = int((sizes * (sizes - 1)).sum())
        answers = []
        first, p50 = timed(
            lambda log=log, query=query, answers=answers: answers.append(
                explain(log, query, width=3)
            )
        )
        answer = answers[-1]
        if pairs <= NAIVE_MAX_PAIRS:
            _, naive_p50 = timed(
                lambda log=log, query=query: naive(log, query), runs=1 if n >= 1_000_000 else RUNS
            )
            naive_text, ratio = f"{naive_p50:10.3f}", f"{naive_p50 / p50:11.1f}x"
        else:
            naive_text, ratio = f"{'n/a':>10}", f"{'(memory)':>12}"
        rows.append((n, p50))
        print(
            f"{n:>10,} {pairs:>16,} {first:>12.3f} {p50:>10.3f} {naive_text} {ratio} {p50 / n * 1e5:>13.3f}",
            flush=True,
        )
        print(f"{'':>10} because: {' AND '.join(s.predicate for s in answer.because)}", flush=True)
    (n0, t0), (n1, t1) = rows[0], rows[-1]
    print(f"growth {n0:,} -> {n1:,} tasks: time x{t1 / t0:.1f} for tasks x{n1 / n0:.0f}")
