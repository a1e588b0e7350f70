"""Small hand-made task logs for the explanation tests (no Spark needed)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfx.grammar.ast import Atom, Bool, EntityId, Ordering, Predicate, Query
from perfx.logs.feature_tables import SPARK_TASK
from perfx.logs.model import Log
from perfx.logs.registry import FeatureRegistry


def make_log(df: pd.DataFrame) -> Log:
    """A task log over ``df`` with the Spark task registry entries for its columns."""
    registry = FeatureRegistry()
    registry.register_all("task", [s for s in SPARK_TASK if s.name in df.columns])
    return Log(tasks=df.reset_index(drop=True), registry=registry)


def skewed_log(n_stages: int = 6, per_stage: int = 30, seed: int = 0, slow_row: int = 5) -> Log:
    """Stages of equal tasks, time per record ~1 ms, except one task 5x slower per record."""
    rng = np.random.default_rng(seed)
    n = n_stages * per_stage
    records = np.full(n, 1000.0)
    tpr = rng.normal(1.0, 0.04, n)
    tpr[slow_row] = 5.0
    duration = records * tpr
    return make_log(
        pd.DataFrame(
            {
                "id": [f"app-1/{k}" for k in range(n)],
                "app_id": "app-1",
                "task_id": np.arange(n),
                "stage_key": np.repeat([f"app-1/{s}/0" for s in range(n_stages)], per_stage),
                "duration": duration,
                "executor_run_time": duration * 0.95,
                "launch_time": 1_700_000_000_000 + np.arange(n) * 10.0,
                "records_in": records,
                "time_per_record": duration / records,
                "host": rng.choice(["h1", "h2", "h3"], n),
                "gc_time": (gc := rng.normal(10, 2, n)),
                "compute_time": duration * 0.95 - gc,
            }
        )
    )


def slower(first: str, second: str | None = None, despite: tuple[Atom, ...] = (), **kw) -> Query:
    """``WHY TASK first SLOWER [THAN TASK second] [DESPITE ...]`` as an AST."""
    return Query(
        "task",
        ("T1", "T2"),
        EntityId(first),
        EntityId(second) if second is not None else None,
        despite=Predicate(despite),
        observed=Predicate((Atom("duration", "compare", "=", Ordering("GT")),)),
        expected=Predicate((Atom("duration", "compare", "=", Ordering("SIM")),)),
        **kw,
    )


SAME_STAGE = Atom("stage_key", "isSame", "=", Bool(True))
