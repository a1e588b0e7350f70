"""Spark event-log sources -> one ``Log``: read each application attempt, then build the
tables, the history server's counters, the derived task features, the aggregates and the
varying configuration, and register every column."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from .. import background
from ..aggregate import (
    add_aggregates,
    aggregate_specs,
    aggregated_metrics,
    joined_keys,
    merged_aggregates,
    task_aggregates,
)
from ..config import varying_settings
from ..derive import add_task_features
from ..feature_tables import SPARK_TASK
from ..model import CutOff, Log, SkippedLine, completeness
from ..registry import FeatureRegistry
from .build import AppState
from .counts import add_app_counts, add_job_counts, add_stage_counts
from .open import EventLogSource
from .shares import read_states
from .specs import SPARK_APP, SPARK_JOB, SPARK_STAGE, SPARK_TASK_EXTRA
from .tables import build_tables, executor_table

Progress = Callable[[int], None]


def distinct_attempts(states: list[AppState], skipped: list[SkippedLine]) -> list[AppState]:
    """One state per (app id, attempt): the same attempt found twice (copied logs, an
    incomplete and a complete copy) is read once, from the most complete copy
    (``model.completeness``; the first of equals), and the other reported."""
    kept: dict[tuple[str, str], AppState] = {}
    dropped: list[AppState] = []
    for state in states:
        key = (state.app_id, state.attempt_id)
        if key not in kept:
            kept[key] = state
        elif _completeness(state) > _completeness(kept[key]):
            dropped.append(kept[key])
            kept[key] = state
        else:
            dropped.append(state)
    for state in dropped:
        read = kept[(state.app_id, state.attempt_id)]
        attempt = f" attempt {state.attempt_id}" if state.attempt_id else ""
        skipped.append(
            SkippedLine(
                state.source,
                0,
                f"duplicate of {state.app_id}{attempt} already read from {read.source}",
            )
        )
    return list(kept.values())


def _completeness(state: AppState) -> tuple[bool, int]:
    """``model.completeness`` of the copy read into ``state``."""
    return completeness(state.app_ended, len(state.ended) + len(state.unended))


def read_event_logs(
    sources: list[EventLogSource], skipped: list[SkippedLine], progress: Progress | None = None
) -> Log:
    """All the sources as one Log; bad lines and unreadable files go to ``skipped``. Several
    sources are read on every core (eventlog.shares)."""
    states = read_states(sources, skipped, progress)
    return log_of_states(
        distinct_attempts(states, skipped), skipped, [str(s.path) for s in sources]
    )


def log_of_states(states: list[AppState], skipped: list[SkippedLine], sources: list[str]) -> Log:
    """The Log of application attempts already read: tables, counters, derived features,
    aggregates, the settings that differ between them, and the registry of every column."""
    tasks, stages, jobs, apps = build_tables(
        states, lambda path, line, reason: skipped.append(SkippedLine(path, line, reason))
    )

    job_keys = joined_keys(tasks, "app_key", "job_id")  # the id of each task's job
    if len(tasks) >= AGGREGATED_APART:
        logged = aggregated_metrics(tasks)  # the metrics the log gave, not those derived
        apart = background.Background.start(
            _counted_and_aggregated, (stages, jobs, apps), tasks, job_keys, logged
        )
        tasks = add_task_features(tasks)
        metrics = aggregated_metrics(tasks)
        derived = _aggregates(tasks, job_keys, [m for m in metrics if m not in logged])
        (stages, jobs, apps), logged_aggregates = apart.result()
        aggregates = [
            merged_aggregates([a, b], metrics) for a, b in zip(logged_aggregates, derived)
        ]
    else:
        stages, jobs, apps = _counted(stages, jobs, apps, tasks, job_keys)
        tasks = add_task_features(tasks)
        aggregates = _aggregates(tasks, job_keys, aggregated_metrics(tasks))
    stages, jobs, apps = (
        add_aggregates(table, part) for table, part in zip((stages, jobs, apps), aggregates)
    )

    registry = FeatureRegistry()
    registry.register_all("task", SPARK_TASK + SPARK_TASK_EXTRA)
    task_specs = registry.specs("task")
    for entity, own, table in (
        ("stage", SPARK_STAGE, stages),
        ("job", SPARK_JOB, jobs),
        ("app", SPARK_APP, apps),
    ):
        registry.register_all(entity, own)
        registry.register_all(entity, aggregate_specs(task_specs, set(table.columns)))

    tables = add_varying_settings(
        {"task": tasks, "stage": stages, "job": jobs, "app": apps},
        registry,
        {k: s.properties for k, s in zip(apps["app_key"], states)},
    )
    return Log(
        tasks=tables["task"],
        stages=tables["stage"],
        jobs=tables["job"],
        apps=tables["app"],
        executors=executor_table(states),
        registry=registry,
        skipped=skipped,
        sources=sources,
        cut_off=[
            CutOff(path, line, event, "application")
            for path, line, event in (s.last for s in states if not s.app_ended)
            if line
        ],
    )


AGGREGATED_APART = 50_000
"""Tasks from which the stage, job and app tables are counted, and the aggregates of the
metrics the log gave reduced, by a forked child (logs.background) while this process
derives the task features and reduces theirs: a tenth of a second of the load of 150,000
tasks on the other core. Each count and aggregate is the same either way."""


def _counted(
    stages: pd.DataFrame,
    jobs: pd.DataFrame,
    apps: pd.DataFrame,
    tasks: pd.DataFrame,
    job_keys: np.ndarray,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The stage, job and app tables with their counts of tasks, stages and jobs."""
    stages = add_stage_counts(stages, tasks)
    jobs = add_job_counts(jobs, stages, tasks, job_keys)
    return stages, jobs, add_app_counts(apps, jobs, stages)


def _aggregates(
    tasks: pd.DataFrame, job_keys: np.ndarray, metrics: list[str]
) -> list[pd.DataFrame]:
    """The aggregates of ``metrics`` of ``tasks`` by stage, job (``job_keys``) and app."""
    return [task_aggregates(tasks, key, metrics) for key in ("stage_key", job_keys, "app_key")]


def _counted_and_aggregated(
    tables: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame],
    tasks: pd.DataFrame,
    job_keys: np.ndarray,
    metrics: list[str],
) -> tuple[tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame], list[pd.DataFrame]]:
    """What the child computes (``AGGREGATED_APART``): ``_counted`` and ``_aggregates``."""
    return _counted(*tables, tasks, job_keys), _aggregates(tasks, job_keys, metrics)


def add_varying_settings(
    tables: dict[str, pd.DataFrame],
    registry: FeatureRegistry,
    properties: dict[str, dict[str, str]],
) -> dict[str, pd.DataFrame]:
    """``tables`` (entity -> table) with a column per setting that differs between the apps
    of ``properties`` (app key -> Spark properties), registered in ``registry``. Shared with
    the feature store, which keeps each app's properties and compares them when read."""
    settings, setting_specs = varying_settings(properties)
    tables = dict(tables)
    for entity, table in tables.items():
        fresh = [s for s in setting_specs if s.name not in table.columns]
        if fresh:
            values = settings[[s.name for s in fresh]].reindex(table["app_key"].to_numpy())
            values.index = table.index
            tables[entity] = pd.concat([table, values], axis=1)
            registry.register_all(entity, fresh)
    return tables
