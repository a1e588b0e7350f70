"""Aggregates of task metrics for the entities above tasks (stages, jobs, apps).

Every additive task metric gets a ``<metric>_sum`` (the history server's stage totals are
these sums over all task attempts that carry metrics, whatever their status); the metrics
that explain time get ``_mean``, ``_max`` and ``_skew`` (max / median over the entity's
tasks: how much the slowest task stands out). ``task_count`` counts task attempts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .registry import FeatureSpec, spec

SUMMED = (
    "duration", "executor_run_time", "executor_cpu_time", "deserialize_time", "deserialize_cpu_time",
    "result_serialization_time", "getting_result_time", "scheduler_delay", "gc_time", "result_size",
    "peak_execution_memory", "memory_bytes_spilled", "disk_bytes_spilled", "input_bytes", "input_records",
    "output_bytes", "output_records", "shuffle_read_bytes", "shuffle_remote_bytes_read",
    "shuffle_remote_bytes_read_to_disk", "shuffle_local_bytes_read", "shuffle_read_records",
    "shuffle_remote_blocks_fetched", "shuffle_local_blocks_fetched", "shuffle_fetch_wait_time",
    "shuffle_remote_reqs_duration", "shuffle_write_bytes", "shuffle_write_records", "shuffle_write_time",
)
"""Task metrics whose sum over an entity's tasks means something."""

SPREAD = (
    "duration", "executor_run_time", "executor_cpu_time", "gc_time", "deserialize_time", "scheduler_delay",
    "input_bytes", "shuffle_read_bytes", "shuffle_write_bytes", "output_bytes", "shuffle_fetch_wait_time",
    "shuffle_write_time", "peak_execution_memory", "memory_bytes_spilled", "records_in", "bytes_in",
    "time_per_record", "time_per_mb", "gc_fraction",
)
"""Task metrics whose mean, max and skew over an entity's tasks explain its time."""


def task_aggregates(tasks: pd.DataFrame, key: str) -> pd.DataFrame:
    """Aggregates of ``tasks`` grouped by column ``key``, indexed by its values."""
    groups = tasks.groupby(key, sort=False)
    summed = [c for c in SUMMED if c in tasks]
    spread = [c for c in SPREAD if c in tasks]
    parts = [groups.size().rename("task_count").to_frame()]
    if summed:
        parts.append(groups[summed].sum(min_count=1).add_suffix("_sum"))
    if spread:
        maxima = groups[spread].max()
        medians = groups[spread].median()
        parts.append(groups[spread].mean().add_suffix("_mean"))
        parts.append(maxima.add_suffix("_max"))
        parts.append((maxima / medians.where(medians > 0)).add_suffix("_skew"))
    return pd.concat(parts, axis=1)


def add_task_aggregates(table: pd.DataFrame, tasks: pd.DataFrame, key: str) -> pd.DataFrame:
    """``table`` with the aggregates of the tasks whose ``key`` column equals its ``id``
    (entities without tasks get task_count 0 and missing metrics)."""
    aggregates = task_aggregates(tasks, key).reindex(table["id"].to_numpy())
    aggregates["task_count"] = aggregates["task_count"].fillna(0).astype(np.int64)
    aggregates.index = table.index
    return pd.concat([table, aggregates], axis=1)


def aggregate_specs(task_specs: list[FeatureSpec], present: set[str]) -> list[FeatureSpec]:
    """Specs of the aggregate columns in ``present``, derived from the task specs: a sum keeps
    the task metric's unit, skew is a ratio. Aggregates of outcome features stay outcomes."""
    by_name = {s.name: s for s in task_specs}
    specs = [spec("task_count", "numeric", "count", "feature", "Task attempts of the execution.", "aggregate")]
    for suffix, what in (("sum", "Sum"), ("mean", "Mean"), ("max", "Maximum"), ("skew", "Skew (max/median)")):
        for name in SUMMED if suffix == "sum" else SPREAD:
            task = by_name.get(name)
            column = f"{name}_{suffix}"
            if task is None or column not in present:
                continue
            role = "outcome" if task.role == "outcome" else "feature"
            unit = "ratio" if suffix == "skew" else task.unit
            specs.append(spec(column, "numeric", unit, role, f"{what} over its tasks of: {task.description}", "aggregate"))
    return [s for s in specs if s.name in present]
