"""Straggler flags, causes and blocked-time shares as task features, for explanations.

A user can ask about them (``WHY TASK ? SLOWER DESPITE straggler_cause isSame = T``) and
``perfx features`` lists them; being computed from the duration, they are symptoms, which
the explanation search never proposes. Shares are fractions of the task's duration, so they
compare across tasks of different lengths; a share is added only when the log records that
component.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from perfx.logs.model import Log
from perfx.logs.progress import THRESHOLD
from perfx.logs.registry import FeatureSpec, spec

from . import components
from .stragglers import StragglerReport, find_stragglers

SHARES: dict[str, tuple[str, ...]] = {
    "gc_share": ("gc",),
    "fetch_wait_share": ("shuffle_read",),
    "shuffle_write_share": ("shuffle_write",),
    "input_read_share": ("input_read",),
    "scheduler_delay_share": ("scheduler_delay",),
    "serialization_share": ("task_deserialization", "result_serialization"),
}
"""Share column -> the blocked-time causes whose time it divides by the duration."""

_WHAT = {
    "gc_share": "JVM garbage collection",
    "fetch_wait_share": "waiting for shuffle fetches (network)",
    "shuffle_write_share": "writing shuffle data (disk)",
    "input_read_share": "reading input (disk)",
    "scheduler_delay_share": "scheduler delay",
    "serialization_share": "deserializing the task and serializing its result",
}

STRAGGLER_SPECS = [
    # `straggler` and `progress_ratio` restate the duration against the stage's median: like
    # the duration itself they are outcomes. The cause and the shares are computed from the
    # duration too (symptoms, by their inputs): a user may ask about them, the search never
    # proposes them.
    spec(
        "straggler",
        "nominal",
        "none",
        "outcome",
        f"T if its inverse progress rate exceeds {THRESHOLD}x its stage's median (successful attempts only).",
        "derived",
        inputs=("progress_ratio",),
    ),
    spec(
        "straggler_cause",
        "nominal",
        "none",
        "feature",
        "Primary cause of a straggler (gc, shuffle_read, shuffle_write, input_read, scheduler_delay, "
        "task_deserialization, result_serialization, output_skew, first_task), 'unexplained', or 'none'.",
        "derived",
        inputs=("duration", "progress_ratio"),
    ),
    spec(
        "progress_ratio",
        "numeric",
        "ratio",
        "outcome",
        f"Inverse progress rate / its stage's median: above {THRESHOLD} it is a straggler.",
        "derived",
        inputs=("duration", "records_in", "bytes_in"),
    ),
]


NAMES = ("straggler", "straggler_cause", "progress_ratio", *SHARES)
"""The task features ``add_straggler_features`` adds (the shares where the log has their parts)."""


def _share_specs(names: list[str]) -> list[FeatureSpec]:
    return [
        spec(
            n,
            "numeric",
            "ratio",
            "feature",
            f"Share of its duration spent {_WHAT[n]}.",
            "derived",
            inputs=("duration", *(col for cause in SHARES[n] for col in components.CAUSES[cause])),
        )
        for n in names
    ]


def add_straggler_features(log: Log, report: StragglerReport | None = None) -> Log:
    """A copy of ``log`` whose task table has ``straggler``, ``straggler_cause``,
    ``progress_ratio`` and the available ``*_share`` columns, registered as task features
    (calling it twice replaces them). Attempts that did not succeed are not judged: their
    straggler columns are missing. A log without durations is returned as it is.
    ``report``: the straggler analysis of ``log``'s tasks where the caller has it already."""
    if "duration" not in log.tasks.columns:
        return log
    # The raw table's columns are shared, not copied (nothing writes into a log's tables):
    # only added columns are new. A table that has some of them already is copied, so that
    # they are replaced in their places without touching the raw table's.
    replaced = any(c in log.tasks.columns for c in NAMES)
    tasks = log.tasks.copy(deep=replaced)
    if report is None:
        report = find_stragglers(tasks)
    judged = report.tasks
    columns = {
        "straggler": pd.Series(np.where(judged["straggler"], "T", "F"), index=judged.index).reindex(
            tasks.index
        ),
        "straggler_cause": judged["primary_cause"].reindex(tasks.index),
        "progress_ratio": judged["progress_ratio"].reindex(tasks.index),
    }
    duration = pd.to_numeric(tasks["duration"], errors="coerce")
    shares = [n for n, causes in SHARES.items() if components.available(tasks, causes)]
    for name in shares:
        columns[name] = components.blocked_ms(tasks, SHARES[name]) / duration.where(duration > 0)
    tasks = _with_columns(tasks, columns)

    registry = log.registry.copy()
    registry.register_all("task", STRAGGLER_SPECS + _share_specs(shares), replace=True)
    return replace(log, tasks=tasks, registry=registry, cache_key=None)


def _with_columns(table: pd.DataFrame, columns: dict[str, pd.Series]) -> pd.DataFrame:
    """``table`` with ``columns`` set: those it has replaced in their places, the others added
    at its end in one step. Added one at a time, each would be a new block of a table already
    built column by column, and pandas warns on the user's terminal that it is fragmented;
    concatenated, the table's own columns would be copied (150 MB for 150,000 tasks)."""
    for name in [c for c in columns if c in table.columns]:
        table[name] = columns.pop(name)
    if columns:
        table[list(columns)] = pd.DataFrame(columns, index=table.index)
    return table
