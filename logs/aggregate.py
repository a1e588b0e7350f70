"""Aggregates of task metrics for the entities above tasks (stages, jobs, apps).

Every additive task metric gets a ``<metric>_sum`` (the history server's stage totals are
these sums over all task attempts that carry metrics, whatever their status); the metrics
that explain time get ``_mean``, ``_max`` and ``_skew`` (max / median over the entity's
tasks: how much the slowest task stands out). ``task_count`` counts task attempts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import spark_metrics
from .derive import group_codes
from .feature_tables import SPARK_TASK
from .registry import FeatureSpec, Role, spec

DERIVED_METRICS = ("getting_result_time", "scheduler_delay", "shuffle_read_bytes")
"""Task metrics the Spark reader computes from Task Info times and the shuffle byte counts."""
TASK_METRICS = tuple(
    s.name for s in SPARK_TASK if s.name in spark_metrics.COLUMNS or s.name in DERIVED_METRICS
)
"""The task metrics Spark logs (the Spark task table's last columns): amounts a task used or
moved, whose sum over an entity's tasks means something — all but ``peak_execution_memory``,
a peak, whose sum only bounds the memory the tasks held at once."""

SUMMED = ("duration",) + TASK_METRICS + ("compute_time", "records_in", "bytes_in")
"""Task metrics whose sum over an entity's tasks means something."""

SPREAD = (
    "duration",
    "executor_run_time",
    "executor_cpu_time",
    "gc_time",
    "deserialize_time",
    "scheduler_delay",
    "input_bytes",
    "shuffle_read_bytes",
    "shuffle_write_bytes",
    "output_bytes",
    "shuffle_fetch_wait_time",
    "shuffle_write_time",
    "peak_execution_memory",
    "memory_bytes_spilled",
    "records_in",
    "bytes_in",
    "time_per_record",
    "time_per_mb",
    "gc_fraction",
)
"""Task metrics whose mean, max and skew over an entity's tasks explain its time."""


def joined_keys(tasks: pd.DataFrame, *columns: str) -> np.ndarray:
    """``"/".join`` of the columns' values on every row (as the ids are made: a job's id is
    ``app_key/job_id``), formatted once per distinct combination, not once per task."""
    codes = group_codes(tasks, *columns)
    first_rows = np.unique(codes, return_index=True)[1]
    values = [tasks[c].to_numpy()[first_rows] for c in columns]
    return np.array(
        ["/".join(map(str, combination)) for combination in zip(*values)], dtype=object
    )[codes]


def aggregated_metrics(tasks: pd.DataFrame) -> list[str]:
    """The task metrics of ``tasks`` that get aggregates."""
    return [c for c in dict.fromkeys(SUMMED + SPREAD) if c in tasks]


COLUMNS_AT_ONCE = 8
"""Metrics reduced together: their values by group and the masks of those are made for this
many metrics at a time, not for all (~40 MB each for 150,000 tasks); each metric's results
are the same."""


def aggregate_columns(metrics: list[str]) -> list[str]:
    """The columns ``task_aggregates`` gives for ``metrics``, in its order."""
    return [
        "task_count",
        *(f"{name}_sum" for name in SUMMED if name in metrics),
        *(
            f"{name}_{suffix}"
            for suffix in ("mean", "max", "skew")
            for name in SPREAD
            if name in metrics
        ),
    ]


def task_aggregates(
    tasks: pd.DataFrame, key: str | np.ndarray, metrics: list[str] | None = None
) -> pd.DataFrame:
    """Aggregates of ``tasks`` grouped by column ``key`` (or by an array of keys, one per
    task), indexed by the key values: of ``metrics`` where given (some of
    ``aggregated_metrics``), else of all. A metric's columns are the same whichever others
    are reduced beside it: a large log's are reduced in two processes (``merged_aggregates``).

    Rows are sorted by group once and reduced with ``reduceat``, a few metrics at a time, each
    a float matrix in Fortran order (each metric contiguous: the reductions down its columns
    run several times faster than on a C-order matrix); missing values are skipped, as pandas
    does. Only the medians take pandas' grouped kernel."""
    keys = tasks[key].to_numpy() if isinstance(key, str) else np.asarray(key)
    names = aggregated_metrics(tasks) if metrics is None else metrics
    codes, uniques = pd.factorize(keys)
    # rows by group; tasks without a key (code -1) belong to none. Codes number the groups in
    # order of first appearance: tasks already grouped (one app, stages run one after
    # another) are in order as they are, and their values are read without a gather.
    order: slice | np.ndarray
    if np.all(codes[1:] >= codes[:-1]) and (len(codes) == 0 or codes[0] >= 0):
        order = slice(None)
    else:
        rows = np.flatnonzero(codes >= 0)
        order = rows[np.argsort(codes[rows], kind="stable")]
    codes = codes[order]
    groups = len(uniques)
    starts = np.searchsorted(codes, np.arange(groups))
    column = {name: i for i, name in enumerate(names)}
    summed = [column[c] for c in SUMMED if c in column]
    spread = [column[c] for c in SPREAD if c in column]
    sums, means, maxima, medians = (np.full((groups, len(names)), np.nan) for _ in range(4))
    # one matrix for every chunk: a new one each time would be a new mapping of the C
    # library's, its pages faulted in again (0.1 s on 150,000 tasks under the command line's
    # mmap threshold)
    matrix = np.empty((len(codes), min(COLUMNS_AT_ONCE, len(names))), order="F")
    # the metrics with medians first: in each chunk they are its first columns, which pandas
    # then groups as they are, where a scattered few were copied out first (~10 MB for
    # 150,000 tasks, at the load's peak)
    has_median = set(spread)
    ranked = spread + [i for i in range(len(names)) if i not in has_median]
    for first in range(0, len(names), COLUMNS_AT_ONCE):
        chunk = ranked[first : first + COLUMNS_AT_ONCE]
        with_median = min(max(len(spread) - first, 0), len(chunk))  # its first, ranked so
        values = matrix[:, : len(chunk)]  # rows by group
        for j, i in enumerate(chunk):
            values[:, j] = tasks[names[i]].to_numpy(dtype=np.float64, na_value=np.nan)[order]
        if with_median:
            medians[:, chunk[:with_median]] = (
                (pd.DataFrame(values[:, :with_median]).groupby(codes, sort=True).median())
                .to_numpy()
                .reshape(groups, with_median)
            )
        if groups:
            maxima[:, chunk] = np.fmax.reduceat(values, starts, axis=0)
            present = ~np.isnan(values)
            counts = np.add.reduceat(present, starts, axis=0, dtype=np.int64)
            np.copyto(values, 0.0, where=~present)  # missing values add nothing
            with np.errstate(invalid="ignore", divide="ignore"):
                sums[:, chunk] = np.where(
                    counts > 0, np.add.reduceat(values, starts, axis=0), np.nan
                )
                means[:, chunk] = sums[:, chunk] / counts
    medians = medians[:, spread]
    with np.errstate(invalid="ignore", divide="ignore"):
        skew = maxima[:, spread] / np.where(medians > 0, medians, np.nan)
    index = pd.Index(uniques, name=key if isinstance(key, str) else None)
    parts: dict[str, np.ndarray] = {
        "task_count": np.diff(np.append(starts, len(codes))).astype(np.int64)
    }
    for suffix, block, which in (
        ("sum", sums, summed),
        ("mean", means, spread),
        ("max", maxima, spread),
    ):
        parts.update({f"{names[i]}_{suffix}": block[:, i] for i in which})
    parts.update({f"{names[i]}_skew": skew[:, j] for j, i in enumerate(spread)})
    return pd.DataFrame({column: parts[column] for column in aggregate_columns(names)}, index=index)


def merged_aggregates(parts: list[pd.DataFrame], metrics: list[str]) -> pd.DataFrame:
    """The aggregates of ``metrics`` of the same tasks by the same key, reduced in ``parts``
    (``task_aggregates`` of some of ``metrics`` each), as one call reduces them all."""
    whole = pd.concat([parts[0], *(part.drop(columns="task_count") for part in parts[1:])], axis=1)
    return whole[aggregate_columns(metrics)]


def add_task_aggregates(
    table: pd.DataFrame, tasks: pd.DataFrame, key: str | np.ndarray
) -> pd.DataFrame:
    """``table`` with the aggregates of the tasks whose key (column ``key``, or an array of
    keys one per task) equals its ``id`` (entities without tasks get task_count 0 and missing
    metrics)."""
    return add_aggregates(table, task_aggregates(tasks, key))


def add_aggregates(table: pd.DataFrame, aggregates: pd.DataFrame) -> pd.DataFrame:
    """``table`` with ``aggregates`` (``task_aggregates``: indexed by the key that equals the
    table's ``id``) on the rows of their entities."""
    aggregates = aggregates.reindex(table["id"].to_numpy())
    aggregates["task_count"] = aggregates["task_count"].fillna(0).astype(np.int64)
    aggregates.index = table.index
    return pd.concat([table, aggregates], axis=1)


def aggregate_specs(task_specs: list[FeatureSpec], present: set[str]) -> list[FeatureSpec]:
    """Specs of the aggregate columns in ``present``, derived from the task specs: a sum keeps
    the task metric's unit, skew is a ratio. Aggregates of outcome features stay outcomes."""
    by_name = {s.name: s for s in task_specs}
    specs = [
        spec(
            "task_count",
            "numeric",
            "count",
            "feature",
            "Task attempts of the execution.",
            "aggregate",
            inputs=("task.id",),
            accounts=("volume",),
            context=True,
        )
    ]
    for suffix, what in (
        ("sum", "Sum"),
        ("mean", "Mean"),
        ("max", "Maximum"),
        ("skew", "Skew (max/median)"),
    ):
        for name in SUMMED if suffix == "sum" else SPREAD:
            task = by_name.get(name)
            column = f"{name}_{suffix}"
            if task is None or column not in present:
                continue
            role: Role = "outcome" if task.role == "outcome" else "feature"
            unit = "ratio" if suffix == "skew" else task.unit
            summed = suffix == "sum"  # a sum keeps the time part and the accounts; others do not
            specs.append(
                spec(
                    column,
                    "numeric",
                    unit,
                    role,
                    f"{what} over its tasks of: {task.description}",
                    "aggregate",
                    inputs=(f"task.{name}",),
                    window=task.window,
                    time_part=summed and task.time_part,
                    accounts=task.accounts if summed else (),
                )
            )
    return [s for s in specs if s.name in present]
