"""PerfXplain-style tabular logs: a directory of ``jobs`` and ``tasks`` tables (CSV or Parquet),
optionally with Ganglia-style host metrics, loaded into the canonical ``Log``.

This is how MapReduce logs reached PerfXplain — one row per job or task, one column per
feature — and how the EC2-style fixtures are written. Nothing about a column is known in
advance, so each one is registered from its name and dtype: its kind from the dtype, its
unit where the name makes it obvious, and its role so that ids and timestamps (identity) and
duration/finish times (outcome) never become explanations.

Layout (each table ``.csv`` or ``.parquet``)::

    DIR/tasks.csv          id (or task_id), job_id, features..., duration (ms)
    DIR/jobs.csv           id (or job_id), features..., duration (ms)           [optional]
    DIR/host_metrics.csv   host, timestamp, metric columns (also hosts.csv)      [optional]
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .column_names import infer_context, infer_role, infer_unit, is_input_volume, snake_case
from .derive import add_host_load
from .errors import NotALog
from .feature_tables import TASK_HOST_LOAD
from .hostmetrics import join_host_metrics
from .model import Log
from .registry import ENTITY_TABLE, FeatureRegistry, FeatureSpec

SUFFIXES = (".csv", ".parquet")
TABLES = {entity: ENTITY_TABLE[entity] for entity in ("task", "job")}
HOST_METRIC_TABLES = ("host_metrics", "hosts")

PAPER_ALIASES = {"host": ("hostname",), "tracker_name": ("tracker",), "pig_script": ("script",)}
"""Spellings of the PerfXplain paper beyond the underscore-free name every column gets."""


def is_tabular_log(path: str | Path) -> bool:
    """Is ``path`` a directory holding a ``tasks`` or ``jobs`` table (or such a table itself)?"""
    return _table_dir(Path(path)) is not None


def read_tabular_log(path: str | Path) -> Log:
    """Load a tabular log directory (or one of its table files) into the canonical model,
    joining its host metrics onto tasks and jobs when present."""
    root = _table_dir(Path(path))
    if root is None:
        raise NotALog(f"{path}: no tasks.csv/.parquet or jobs.csv/.parquet table found")
    registry = FeatureRegistry()
    tables: dict[str, pd.DataFrame] = {}
    for entity, stem in TABLES.items():
        file = _find(root, stem)
        frame = _normalise(_read(file), entity, file) if file else pd.DataFrame()
        tables[entity] = frame
        if file:
            registry.register_all(entity, column_specs(frame, source=file.name))
    if _has_host_times(tables["task"]):
        add_host_load(tables["task"])
        registry.register_all("task", TASK_HOST_LOAD)
    log = Log(tasks=tables["task"], jobs=tables["job"], registry=registry, sources=[str(root)])
    metrics_file = next((f for f in (_find(root, s) for s in HOST_METRIC_TABLES) if f), None)
    if metrics_file is None or log.tasks.empty:
        return log
    return join_host_metrics(log, _read(metrics_file).rename(columns=snake_case))


def _has_host_times(tasks: pd.DataFrame) -> bool:
    """Can the host load be derived (and is it not in the table already)?"""
    return {"host", "launch_time", "finish_time"} <= set(tasks.columns) and not {
        s.name for s in TASK_HOST_LOAD
    } & set(tasks.columns)


def column_specs(frame: pd.DataFrame, source: str = "") -> list[FeatureSpec]:
    """One spec per column: kind from the dtype, unit and role from the name."""
    return [
        FeatureSpec(
            name=name,
            kind="numeric"
            if pd.api.types.is_numeric_dtype(frame[name])
            and not pd.api.types.is_bool_dtype(frame[name])
            else "nominal",
            unit=infer_unit(name),
            role=infer_role(name),
            description=f"Column {name!r} of the tabular log.",
            source=source,
            aliases=_aliases(name),
            accounts=("volume",) if is_input_volume(name) else (),
            context=infer_context(name, pd.api.types.is_numeric_dtype(frame[name])),
        )
        for name in frame.columns
    ]


def _aliases(name: str) -> tuple[str, ...]:
    compact = name.replace("_", "")
    return tuple(
        dict.fromkeys(([compact] if compact != name else []) + list(PAPER_ALIASES.get(name, ())))
    )


def _normalise(frame: pd.DataFrame, entity: str, file: Path) -> pd.DataFrame:
    """snake_case columns, a unique string ``id``, string ``job_id``, ``duration`` in ms."""
    frame = frame.rename(columns=snake_case)
    own_id = f"{entity}_id"
    if "id" not in frame.columns:
        if own_id not in frame.columns:
            raise NotALog(f"{file}: the {TABLES[entity]} table has no 'id' or '{own_id}' column")
        frame = frame.rename(columns={own_id: "id"})
    frame["id"] = frame["id"].astype(str)
    if frame["id"].duplicated().any():
        dup = frame.loc[frame["id"].duplicated(), "id"].iloc[0]
        raise NotALog(f"{file}: id {dup!r} appears more than once in the {TABLES[entity]} table")
    if "job_id" in frame.columns:
        frame["job_id"] = frame["job_id"].astype(str)
    if "duration" not in frame.columns:
        start = next(
            (c for c in ("launch_time", "start_time", "submit_time") if c in frame.columns), None
        )
        if start is None or "finish_time" not in frame.columns:
            raise NotALog(
                f"{file}: the {TABLES[entity]} table has no 'duration' (nor start and finish times)"
            )
        frame["duration"] = frame["finish_time"] - frame[start]
    return frame.reset_index(drop=True)


def table_files(path: str | Path) -> list[Path]:
    """The table files of the tabular log at ``path`` (its folder or one of its tables)."""
    root = _table_dir(Path(path))
    if root is None:
        return []
    stems = (*TABLES.values(), *HOST_METRIC_TABLES)
    return [file for file in (_find(root, stem) for stem in stems) if file is not None]


def _table_dir(path: Path) -> Path | None:
    if path.is_file() and path.suffix in SUFFIXES and path.stem in TABLES.values():
        return path.parent
    if path.is_dir() and any(_find(path, stem) for stem in TABLES.values()):
        return path
    return None


def _find(root: Path, stem: str) -> Path | None:
    return next((root / f"{stem}{s}" for s in SUFFIXES if (root / f"{stem}{s}").is_file()), None)


def _read(file: Path) -> pd.DataFrame:
    return pd.read_parquet(file) if file.suffix == ".parquet" else pd.read_csv(file)
