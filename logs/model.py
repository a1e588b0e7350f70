"""The loaded log: four canonical entity tables, their feature registry, and what was skipped.

Every other layer (explanations, blocked-time analysis, isolation's task identity) reads a
``Log`` and nothing else, so readers of new formats only have to produce one.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePath

import numpy as np
import pandas as pd

from . import spark_metrics
from .errors import LogError
from .registry import ENTITIES, FeatureRegistry, FeatureSpec, Kind


@dataclass(frozen=True)
class SkippedLine:
    """A line the reader could not use: which file, which line (1-based), and why."""

    path: str
    line: int
    reason: str


@dataclass(frozen=True)
class CutOff:
    """A file that ends before the execution it records did: a MapReduce job history without
    the job's end event, a Spark event log without its application's end (the job or the
    application was still running, its ApplicationMaster or driver died, or the file was cut
    short in copying). Its tables hold what it says up to ``line``."""

    path: str
    line: int
    """Its last line."""
    last_event: str
    """The type of its last event read (``MAP_ATTEMPT_STARTED``; '' when none was)."""
    execution: str = "job"
    """What it records, as an answer names it: a MapReduce ``job`` or a Spark
    ``application``."""


def cut_off_note(cut_off: list[CutOff]) -> str:
    """The one line an answer built on a log with cut-off files carries ('' when none), e.g.
    ``hraven/job_1_2.jhist ends at line 9 (MAP_ATTEMPT_STARTED) before its job did: its tasks
    are those it had logged``; ``perfx logs`` lists them."""
    if not cut_off:
        return ""
    if len(cut_off) == 1:
        (only,) = cut_off
        where = f"{_short(only.path)} ends at line {only.line:,}" + (
            f" ({only.last_event})" if only.last_event else ""
        )
        return f"{where} before its {only.execution} did: its tasks are those it had logged"
    return (
        f"{len(cut_off)} files end before their {executions(c.execution for c in cut_off)} "
        "did: their tasks are those they had logged (perfx logs lists them)"
    )


def executions(kinds: Iterable[str], plural: bool = True) -> str:
    """What cut-off files record (their ``CutOff.execution``), as an answer names it: ``jobs``,
    ``applications`` or ``jobs and applications``; one of them: ``job``, ``application`` or
    ``job or application``."""
    found = sorted(set(kinds), key=("job", "application").index)
    return (" and " if plural else " or ").join(f"{k}s" if plural else k for k in found)


def log_notes(log: Log) -> str:
    """What an answer built on ``log`` must say of it, in one line: its skipped lines
    (``skipped_note``), its cut-off files (``cut_off_note``), its tasks that never ended
    (``unended_note``) and those of impossible values (``implausible_note``); '' when none
    of them."""
    notes = (
        skipped_note(log.skipped),
        cut_off_note(log.cut_off),
        unended_note(log),
        implausible_note(log),
    )
    return "; ".join(n for n in notes if n)


def unended_tasks(log: Log) -> pd.Series:
    """Which task attempts (a mask of ``log.tasks``) started and have no usable end in a log
    whose application did end: the end event is lost or was skipped as unreadable (a damaged
    or hand-edited log), so their times and metrics are unknown (status UNKNOWN, NaN). A task
    still running in a log cut off or in progress is not one of them: ``cut_off_note`` speaks
    of those."""
    tasks, apps = log.tasks, log.apps
    if not {"app_key", "status"} <= set(tasks.columns) or not {
        "app_key",
        "end_time",
    } <= set(apps.columns):
        return pd.Series(False, index=tasks.index)
    ended_apps = apps.loc[apps["end_time"].notna(), "app_key"]
    return (tasks["status"] == "UNKNOWN") & tasks["app_key"].isin(ended_apps)


def unended_note(log: Log) -> str:
    """The one line an answer built on a log with lost task ends carries ('' when none),
    e.g. ``1 task has no usable end event though its application ended: its times and metrics
    are unknown`` (its end was lost, or skipped as unreadable)."""
    unended = log.tasks.loc[unended_tasks(log)]
    if unended.empty:
        return ""
    its = "its" if len(unended) == 1 else "their"
    apps = "application" if unended["app_key"].nunique() == 1 else "applications"
    have = "has" if len(unended) == 1 else "have"
    return (
        f"{_plural(len(unended), 'task')} {have} no usable end event though {its} {apps} "
        f"ended: {its} times and metrics are unknown"
    )


TIME_PARTS = (
    "executor_run_time",
    "gc_time",
    "deserialize_time",
    "result_serialization_time",
    "getting_result_time",
    "shuffle_fetch_wait_time",
    "shuffle_write_time",
)
"""Times (ms) spent within a task's span, which none can exceed by much: the JVM's GC time
while the task ran is at most its wall time, its run time is measured inside its launch and
finish (the executor's clock and the driver's can differ by a little)."""
PART_SLACK = (2.0, 1000.0)
"""A part longer than ``2 x duration + 1,000 ms`` is no measurement: no public log comes
near (none has a part 5 ms past its task's duration), a damaged one does (99,999 ms of GC in a
421 ms task)."""
LONGEST = 2.0**63
"""Spark writes every metric as a long: a value at least this is none it wrote."""
EARLY_MS = 60_000
"""A task that ran into its application's time yet launched more than this before the
application started launched at no time the log knows (a launch time of 0: its duration is
the age of the epoch). A task whose whole span precedes the application (a public log's
task of 2018 in an application of 2023) is odd, not a measurement to distrust."""


def implausible_tasks(log: Log) -> pd.Series:
    """Which tasks (a mask of ``log.tasks``) hold values no Spark run gives: a negative time,
    size or count, or one beyond a long; a finish before the launch; a part of the task
    longer than the task (``PART_SLACK``); a span reaching long before its application
    started (``EARLY_MS``).
    Such a log is damaged or hand-edited, and every answer said nothing of it: the gap of
    one such task read "GC +1.7 min, compute -1.7 min" in a 383 ms gap (a probe of damaged
    logs). They are kept as read, and said (``implausible_note``)."""
    tasks = log.tasks
    metrics = [c for c in spark_metrics.COLUMNS if c in tasks.columns]
    if not len(tasks) or not metrics:
        return pd.Series(False, index=tasks.index)
    bad = np.zeros(len(tasks), dtype=bool)
    for column in metrics:  # column by column: a frame of them all is a copy (~0.05 s)
        values = _numbers(tasks[column])
        bad |= (values < 0) | (values >= LONGEST)
    if "duration" in tasks.columns:
        duration = _numbers(tasks["duration"])
        bad |= duration < 0
        fold, slack = PART_SLACK
        longest = fold * np.maximum(duration, 0) + slack
        for part in (p for p in TIME_PARTS if p in tasks.columns):
            bad |= _numbers(tasks[part]) > longest
    apps = log.apps
    if {"app_key", "launch_time", "finish_time"} <= set(tasks.columns) and {
        "app_key",
        "start_time",
    } <= set(apps.columns):
        started = apps.drop_duplicates("app_key").set_index("app_key")["start_time"]
        start = _numbers(tasks["app_key"].map(started))
        # its span holds time long before the application began: a launch time of 0
        bad |= (_numbers(tasks["launch_time"]) < start - EARLY_MS) & (
            _numbers(tasks["finish_time"]) > start
        )
    return pd.Series(bad, index=tasks.index)


def _numbers(column: pd.Series) -> np.ndarray:
    """A column's values as numbers (NaN where there is none: comparisons with it are
    False)."""
    values = column.to_numpy()
    if values.dtype.kind in "iuf":
        return values
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def implausible_note(log: Log) -> str:
    """The one line an answer built on a log with impossible values carries ('' when none)."""
    count = int(implausible_tasks(log).sum())
    if not count:
        return ""
    have = "has" if count == 1 else "have"
    its = "its" if count == 1 else "their"
    return (
        f"{_plural(count, 'task')} {have} values no Spark run gives (a negative time or size, "
        f"a part longer than the task, a launch before the application): {its} figures are "
        "not to be trusted (perfx logs lists them)"
    )


def reason_kind(reason: str) -> str:
    """What kind of problem a skip ``reason`` names: the words before its first colon
    (``not JSON: unexpected character`` -> ``not JSON``), as the readers write them."""
    return reason.split(":", 1)[0]


def _short(path: str) -> str:
    """A path as a note names it: its last two parts (``app-…/events_1``)."""
    parts = PurePath(path).parts
    return str(PurePath(*parts[-2:])) if len(parts) > 2 else path


def skipped_note(skipped: list[SkippedLine]) -> str:
    """The one line an answer built on a log with skipped lines or files carries, e.g.
    ``3 lines of app-1/events_1 skipped: 2 not JSON, 1 wrong type for Task Metrics/...``
    or ``24 lines of 3 files and 2 files skipped: ...`` ('' when nothing was skipped);
    ``perfx logs`` lists them one by one. The lines are counted with the files that hold
    them; a file passed over whole counts once, as one of the files skipped."""
    if not skipped:
        return ""
    kinds = Counter(reason_kind(s.reason) for s in skipped)
    lines = [s for s in skipped if s.line]
    files = len(skipped) - len(lines)
    parts = []
    if lines:
        holding = {s.path for s in lines}
        where = _short(next(iter(holding))) if len(holding) == 1 else _plural(len(holding), "file")
        parts.append(f"{_plural(len(lines), 'line')} of {where}")
    if files:
        parts.append(_plural(files, "file"))
    why = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items(), key=lambda i: (-i[1], i[0])))
    return f"{' and '.join(parts)} skipped: {why} (perfx logs lists them)"


def _plural(n: int, unit: str) -> str:
    """``n unit``, the unit with an s unless there is one."""
    return f"{n:,} {unit}{'s' if n != 1 else ''}"


@dataclass
class Log:
    """One or more applications' executions as canonical tables.

    Each table has one row per execution, a unique string ``id`` column and ``duration`` in ms.
    MapReduce and EC2-style fixture logs fill only ``jobs`` and ``tasks``."""

    tasks: pd.DataFrame
    stages: pd.DataFrame = field(default_factory=pd.DataFrame)
    jobs: pd.DataFrame = field(default_factory=pd.DataFrame)
    apps: pd.DataFrame = field(default_factory=pd.DataFrame)
    executors: pd.DataFrame = field(default_factory=pd.DataFrame)
    """One row per executor (Spark logs and REST: ``eventlog.tables.executor_table``): not an
    entity of PXQL, the context of the tasks' ``executor_id``; empty for other formats."""
    registry: FeatureRegistry = field(default_factory=FeatureRegistry)
    skipped: list[SkippedLine] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    cut_off: list[CutOff] = field(default_factory=list)
    """Files that end before their execution did (``CutOff``)."""
    cache_key: str | None = None
    """The table cache's key of the files these tables were read from, as they are now
    (logs.cache), so that what is computed from the tables can be kept beside them; None
    for a Log read with the cache off, from anywhere else, or made from others (merged,
    joined, with features added)."""

    def table(self, entity: str) -> pd.DataFrame:
        if entity not in ENTITIES:
            raise ValueError(
                f"unknown entity kind {entity!r}; expected one of {', '.join(ENTITIES)}"
            )
        return {"task": self.tasks, "stage": self.stages, "job": self.jobs, "app": self.apps}[
            entity
        ]

    def held_table(self, entity: str) -> pd.DataFrame:
        """The table of ``entity``, which the logs must hold: a LogError, naming those they
        do hold, where they hold none (a Hadoop job history has jobs and tasks, no
        application or stage table): an empty table would read as one of nothing."""
        table = self.table(entity)
        if len(table.columns):
            return table
        held = [name for name in ENTITIES if len(self.table(name).columns)]
        raise LogError(
            f"the logs hold no {entity} table"
            + (f"; they hold {' and '.join(held)} tables" if held else "")
        )

    def features(self, entity: str = "task", kind: Kind | None = None) -> list[FeatureSpec]:
        """Registered features of ``entity`` that are columns of its table."""
        columns = set(self.table(entity).columns)
        return [
            s
            for s in self.registry.specs(entity)
            if s.name in columns and (kind is None or s.kind == kind)
        ]


def completeness(reached_end: bool, tasks: int) -> tuple[bool, int]:
    """How complete one copy of an application attempt's log is, where several were found
    (an in-progress copy cut short beside the finished log): the most complete is read, by
    ``load_log`` and into a store alike. A copy that reached the application's end, then
    the one with more task attempts."""
    return reached_end, tasks


def merge_logs(logs: list[Log]) -> Log:
    """One Log holding every input's rows; a feature registered by several inputs keeps its
    first spec."""
    if len(logs) == 1:
        return logs[0]
    registry = FeatureRegistry()
    for log in logs:
        for entity in ENTITIES:
            for spec in log.registry.specs(entity):
                if spec.name not in registry.names(entity):
                    registry.register(entity, spec)

    def concat(entity: str) -> pd.DataFrame:
        """The inputs' tables, one after the other, consolidated (``copy=False``: one block
        per dtype; a block per input's column would make pandas warn, on the user's terminal,
        that the table is fragmented, once a command adds columns to it). A column that is
        missing or all-NA in some inputs takes its type from the others, as pandas has always
        done: its warning that a later version will not is not the user's business."""
        frames = [log.table(entity) for log in logs if len(log.table(entity).columns)]
        if not frames:
            return pd.DataFrame()
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore",
                "The behavior of DataFrame concatenation with empty or all-NA",
                FutureWarning,
            )
            return pd.concat(frames, ignore_index=True, copy=False)

    executors = [log.executors for log in logs if len(log.executors.columns)]
    return Log(
        tasks=concat("task"),
        stages=concat("stage"),
        jobs=concat("job"),
        apps=concat("app"),
        executors=pd.concat(executors, ignore_index=True) if executors else pd.DataFrame(),
        registry=registry,
        skipped=[s for log in logs for s in log.skipped],
        sources=[s for log in logs for s in log.sources],
        cut_off=[c for log in logs for c in log.cut_off],
    )
