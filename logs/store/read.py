"""A store -> a ``Log``: the whole store when it is small, else only what a question needs.

A question about one execution needs its application (a job's: every run of the
application, to compare the job with itself in other runs) and a sample of others to learn
from. The applications are chosen from the manifest, and ids and stages with DuckDB over
the Parquet files, so that at most ``budget`` tasks are read whatever the store's size:
the pair's applications whole when they fit (else the stages of the pair and a seeded
sample of their other stages), then other applications in a seeded random order while they
fit. A store within the budget is read whole, and gives the very tables ``load_log`` gives
for the same logs: the settings that differ between the applications and the ids of
applications read with several attempts are worked out at read time, as the in-memory
reader does, over the applications read."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pads

from ..errors import NotALog
from ..eventlog.log import add_varying_settings
from ..formats import FORMATS
from ..model import CutOff, Log, SkippedLine, merge_logs
from ..registry import ENTITIES, ENTITY_TABLE, FeatureRegistry
from ..registry_json import registry_of
from .fs import Location, locate
from .manifest import Entry, Manifest
from .partition import schema_of, table_path

TASK_BUDGET = 200_000
"""Tasks a read takes from a store at most (under 1 GB in memory with their features)."""
FOCUS_STAGES = 10_000
"""Stages of the pair's applications looked at when they are sampled."""


@dataclass
class Selection:
    """The applications to read, and for some of them only these stages' tasks."""

    entries: list[Entry]
    stages: dict[str, list[str]] = field(default_factory=dict)
    """partition -> the stage keys whose tasks are read (absent: all its tasks)."""
    runs: bool = False
    """The applications are runs of one application name (a job question's fleet)."""


class Store:
    """An open store: its manifest, and its tables as Arrow datasets DuckDB can query."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self.manifest = Manifest.open(location)
        self.entries = sorted(
            self.manifest.readable(), key=lambda e: (e.kind != "spark", _path_order(e.source))
        )
        self._schemas: dict[str, pa.Schema] = {}
        self._registries: dict[str, FeatureRegistry] = {}

    def in_range(self, since: float | None, until: float | None) -> list[Entry]:
        """The applications that started within [since, until) (epoch ms; None: open)."""
        return [
            e
            for e in self.entries
            if (since is None or (e.start_time is not None and e.start_time >= since))
            and (until is None or (e.start_time is not None and e.start_time < until))
        ]

    def _schema(self, digest: str) -> pa.Schema:
        if digest not in self._schemas:
            self._schemas[digest] = schema_of(self.manifest.read_blob("schemas", digest))
        return self._schemas[digest]

    def registry(self, digest: str) -> FeatureRegistry:
        if digest not in self._registries:
            self._registries[digest] = registry_of(self.manifest.read_blob("registries", digest))
        return self._registries[digest]

    def dataset(self, table: str, entries: Sequence[Entry]) -> pads.Dataset | None:
        """``table`` of ``entries`` as one dataset (their schemas unified), None if none has it."""
        having = [e for e in entries if table in e.schemas]
        if not having:
            return None
        digests = list(dict.fromkeys(e.schemas[table] for e in having))
        schema = pa.unify_schemas([self._schema(d) for d in digests], promote_options="permissive")
        return pads.dataset(
            [table_path(self.location, e.partition, table) for e in having],
            schema=schema,
            format="parquet",
            filesystem=self.location.fs,
        )

    def frame(self, table: str, entries: Sequence[Entry], expression=None) -> pd.DataFrame:
        data = self.dataset(table, entries)
        if data is None:
            return pd.DataFrame()
        return data.to_table(filter=expression).to_pandas(split_blocks=True, self_destruct=True)

    @cached_property
    def duckdb(self):
        import duckdb

        return duckdb.connect()

    def query(self, sql: str, params: Sequence = (), **tables) -> list[tuple]:
        """Run ``sql`` with DuckDB over the given datasets (name -> dataset)."""
        con = self.duckdb
        for name, data in tables.items():
            con.register(name, data)
        try:
            return con.execute(sql, list(params)).fetchall()
        finally:
            for name in tables:
                con.unregister(name)


def _path_order(source: str) -> tuple[str, ...]:
    """Sources in the order a directory search meets them (folder by folder, by name)."""
    return PurePosixPath(source.split("://", 1)[-1]).parts


def open_store(store: str | os.PathLike | Location) -> Store:
    return Store(store if isinstance(store, Location) else locate(store))


# -- choosing what to read -----------------------------------------------------------------


def _app_of(text: str, by_key: dict[str, Entry]) -> Entry | None:
    """The application an id names by its prefix (``app-1/33``, ``app-1/2/0``, ``app-1``)."""
    parts = text.split("/")
    for n in range(len(parts), 0, -1):
        entry = by_key.get("/".join(parts[:n]))
        if entry is not None:
            return entry
    return None


def _apps_with_id(store: Store, text: str, entity: str, entries: list[Entry]) -> list[Entry]:
    """The applications holding an execution whose own id is ``text`` (task 33 of any app)."""
    table, column = {"task": ("tasks", "task_id"), "job": ("jobs", "job_id")}.get(
        entity, ("stages", "stage_id")
    )
    data = store.dataset(table, entries)
    if data is None or column not in data.schema.names:
        return []
    rows = store.query(
        f"SELECT DISTINCT app_key FROM t WHERE CAST({column} AS VARCHAR) = ? LIMIT 20",
        [text],
        t=data,
    )
    keys = {r[0] for r in rows}
    return [e for e in entries if e.app_id in keys]


def _focus(store: Store, ids: Sequence[str], entity: str, entries: list[Entry]) -> list[Entry]:
    by_key = {e.app_id: e for e in entries}
    by_key.update({f"{e.app_id}/{e.attempt_id}": e for e in entries if e.attempt_id})
    found: list[Entry] = []
    for text in ids:
        entry = _app_of(text, by_key)
        found += [entry] if entry is not None else _apps_with_id(store, text, entity, entries)
    if entity == "job":  # every run of the application, to compare the job with itself
        names = {e.app_name for e in found if e.app_name}
        found += [e for e in entries if e.app_name in names]
    return list({id(e): e for e in found}.values())


def _sample_stages(
    store: Store, entries: list[Entry], ids: Sequence[str], budget: int, seed: int
) -> dict[str, list[str]]:
    """Stages of ``entries`` within ``budget`` tasks: those of the ids first, then a seeded
    random sample of the others (DuckDB over the task files' stage keys)."""
    data = store.dataset("tasks", entries)
    if data is None or "stage_key" not in data.schema.names:
        return {}
    rows = store.query(
        "SELECT stage_key, app_key, count(*) AS n, bool_or(id IN (SELECT unnest(?))) AS wanted "
        "FROM t GROUP BY stage_key, app_key ORDER BY wanted DESC, hash(stage_key || ?) LIMIT ?",
        [list(ids), str(seed), FOCUS_STAGES],
        t=data,
    )
    partition = {e.app_id: e.partition for e in entries}
    partition.update({f"{e.app_id}/{e.attempt_id}": e.partition for e in entries})
    chosen: dict[str, list[str]] = {}
    total = 0
    for stage_key, app_key, n, wanted in rows:
        if wanted or total + n <= budget:
            chosen.setdefault(partition.get(app_key, ""), []).append(stage_key)
            total += n
    return chosen


def select(
    store: Store,
    entries: list[Entry],
    *,
    focus: Sequence[str] = (),
    entity: str | None = None,
    budget: int = TASK_BUDGET,
    seed: int = 0,
) -> Selection:
    """What to read of ``entries`` for a question about ``focus`` (ids of ``entity``)."""
    chosen = _focus(store, focus, entity or "task", entries) if focus else []
    runs = entity == "job" and len(chosen) > 1 and len({e.app_name for e in chosen}) == 1
    if sum(e.tasks for e in entries) <= budget:
        return Selection(entries, runs=runs)
    total = sum(e.tasks for e in chosen)
    if total > budget:
        return Selection(chosen, _sample_stages(store, chosen, focus, budget, seed), runs)
    rng = np.random.default_rng(seed)
    taken = {id(e) for e in chosen}
    for index in rng.permutation(len(entries)):
        entry = entries[index]
        if id(entry) not in taken and total + entry.tasks <= budget:
            chosen.append(entry)
            total += entry.tasks
    order = {id(e): i for i, e in enumerate(entries)}
    return Selection(sorted(chosen, key=lambda e: order[id(e)]), runs=runs)


# -- reading -------------------------------------------------------------------------------


def _multi_attempts(entries: list[Entry]) -> set[str]:
    """App ids read with several attempts: their ids carry the attempt, as in load_log."""
    seen: dict[str, int] = {}
    for e in entries:
        seen[e.app_id] = seen.get(e.app_id, 0) + 1
    return {app for app, n in seen.items() if n > 1}


def _with_attempt_keys(frame: pd.DataFrame, multi: set[str]) -> pd.DataFrame:
    """``app_id`` -> ``app_id/attempt`` in the ids of the apps read with several attempts."""
    if not multi or frame.empty or "app_attempt_id" not in frame.columns:
        return frame
    hit = frame["app_key"].isin(multi).to_numpy()
    if not hit.any():
        return frame
    frame = frame.copy()
    old = frame.loc[hit, "app_key"].astype(str)
    new = old + "/" + frame.loc[hit, "app_attempt_id"].astype(str)
    for column in ("id", "stage_key"):
        if column in frame.columns:
            values = frame.loc[hit, column].astype(str)
            frame.loc[hit, column] = [n + v[len(o) :] for n, o, v in zip(new, old, values)]
    frame.loc[hit, "app_key"] = new
    return frame


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f.columns)]
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _tables(store: Store, selection: Selection, entries: list[Entry]) -> dict[str, pd.DataFrame]:
    whole = [e for e in entries if e.partition not in selection.stages]
    parts = [e for e in entries if e.partition in selection.stages]
    tables: dict[str, Any] = {}
    for entity in ENTITIES:
        table = ENTITY_TABLE[entity]
        frames = [store.frame(table, whole)]
        if parts:
            keys = [k for e in parts for k in selection.stages[e.partition]]
            only = pads.field("stage_key").isin(keys) if entity == "task" else None
            frames.append(store.frame(table, parts, only))
        tables[entity] = _concat(frames)
    return tables


def _kind_log(store: Store, selection: Selection, entries: list[Entry]) -> Log:
    """The Log of one kind's applications (Spark's, or MapReduce's), built as its in-memory
    reader builds it from the same files."""
    tables = _tables(store, selection, entries)
    registry = FeatureRegistry()
    for digest in dict.fromkeys(e.registry for e in entries):
        for entity in ENTITIES:
            for spec in store.registry(digest).specs(entity):
                if registry.resolve(entity, spec.name) is None:
                    registry.register(entity, spec)
    if entries[0].kind == "spark":
        multi = _multi_attempts(entries)
        tables = {entity: _with_attempt_keys(frame, multi) for entity, frame in tables.items()}
        keys = [f"{e.app_id}/{e.attempt_id}" if e.app_id in multi else e.app_id for e in entries]
        tables = add_varying_settings(
            tables, registry, {key: e.properties for key, e in zip(keys, entries)}
        )
    return Log(
        tasks=tables["task"],
        stages=tables["stage"],
        jobs=tables["job"],
        apps=tables["app"],
        registry=registry,
        skipped=[SkippedLine(*s) for e in entries for s in e.skipped],
        sources=[e.source for e in entries],
        cut_off=[CutOff(*c) for e in entries for c in e.cut_off],
    )


def _merged(logs: list[Log]) -> Log:
    if len(logs) == 1:
        return logs[0]

    return merge_logs(logs)


RECURRING_JOB = "recurring_job"
"""A job's place in its application, the same in every run (``<app name>/<job id>``): over
a store, a job question's reference is the same job in another run."""


def read_selection(store: Store, selection: Selection) -> Log:
    if not selection.entries:
        raise NotALog(f"{store.location.text}: no application in the store to read")
    order = [f.name for f in FORMATS]  # a format no longer registered: after the others
    kinds = sorted(
        {e.kind for e in selection.entries if e.kind},
        key=lambda k: (order.index(k) if k in order else len(order), k),
    )
    by_kind = [[e for e in selection.entries if e.kind == kind] for kind in kinds]
    log = _merged([_kind_log(store, selection, entries) for entries in by_kind])
    if selection.runs and len(log.jobs) and "app_id" in log.jobs.columns:
        names = {e.app_id: e.app_name for e in selection.entries}
        name = log.jobs["app_id"].map(names).astype(str)
        log.jobs = log.jobs.assign(**{RECURRING_JOB: name + "/" + log.jobs["job_id"].astype(str)})
    return log


def read_store(
    store: str | os.PathLike | Location,
    *,
    focus: Sequence[str] = (),
    entity: str | None = None,
    budget: int = TASK_BUDGET,
    seed: int = 0,
    since: float | None = None,
    until: float | None = None,
) -> Log:
    """The Log a question about ``focus`` (ids of ``entity``) needs from a store, reading at
    most about ``budget`` tasks (the whole store when it holds no more); ``since``/``until``
    (epoch ms) keep the applications started in that range."""
    opened = open_store(store)
    entries = opened.in_range(since, until)
    if not entries:
        raise NotALog(f"{opened.location.text}: no application in the store started in that range")
    return read_selection(
        opened, select(opened, entries, focus=focus, entity=entity, budget=budget, seed=seed)
    )


def app_tasks(
    store: str | os.PathLike | Location, since: float | None = None, until: float | None = None
) -> Iterator[tuple[Entry, pd.DataFrame]]:
    """Each application's task table in turn, for questions answered app by app (stragglers
    over a date range): memory holds one application at a time."""
    opened = open_store(store)
    for entry in opened.in_range(since, until):
        yield entry, opened.frame("tasks", [entry])
