"""``load_log``: any mix of log files and directories -> one ``Log``.

Dispatch, per path: PerfXplain-style tables (logs.tabular) are read by their reader; else
the path is searched for Spark event logs (a file, a rolling ``eventlog_v2_*`` directory, or
a directory of apps, recursively); a path without any is offered to the Ousterhout text
job-log reader (logs.ousterhout), which would otherwise claim a whole directory for one of its
files. A ``.jhist`` file is refused with ``UnsupportedFormat``. Several inputs concatenate into
one Log, onto which host metrics may be joined.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from contextlib import nullcontext
from pathlib import Path
from typing import Iterable

import pandas as pd

from .errors import NotALog, UnsupportedFormat
from .eventlog.log import read_event_logs
from .eventlog.open import JHIST_MESSAGE, EventLogSource, find_event_logs
from .hostmetrics import join_host_metrics, read_host_metrics
from .model import Log, SkippedLine
from .registry import ENTITIES, FeatureRegistry

PROGRESS_MIN_BYTES = 64 << 20
"""Inputs smaller than this load too fast for a progress bar to help."""

OTHER_READERS = (
    ("perfx.logs.tabular", "is_tabular_log", "read_tabular_log"),
    ("perfx.logs.ousterhout", "is_ousterhout_log", "read_ousterhout_log"),
)
"""(module, recogniser, reader) of the non-Spark formats, imported only when present."""


def _other_format(path: Path, readers: tuple[tuple[str, str, str], ...]) -> Log | None:
    """The Log of ``path`` if one of ``readers`` recognises it, else None."""
    for module_name, recognise, read in readers:
        if importlib.util.find_spec(module_name) is None:
            continue
        module = importlib.import_module(module_name)
        if getattr(module, recognise)(path):
            return getattr(module, read)(path)
    return None


def _spark_sources(path: Path, skipped: list[SkippedLine]) -> list[EventLogSource]:
    """The Spark event logs at ``path``; a file that is not one yields none (another reader
    may know it) instead of an error."""
    try:
        return find_event_logs(path, lambda p, n, r: skipped.append(SkippedLine(p, n, r)))
    except NotALog:
        if path.is_file():
            return []
        raise


def _merge(logs: list[Log]) -> Log:
    """One Log holding every input's rows; a feature registered by several inputs keeps its
    first spec."""
    if len(logs) == 1:
        return logs[0]
    registry = FeatureRegistry()
    for log in logs:
        for entity in ENTITIES:
            for spec in log.registry.specs(entity):
                if registry.resolve(entity, spec.name) is None:
                    registry.register(entity, spec)

    def concat(entity: str) -> pd.DataFrame:
        frames = [log.table(entity) for log in logs if len(log.table(entity).columns)]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    return Log(
        tasks=concat("task"), stages=concat("stage"), jobs=concat("job"), apps=concat("app"),
        registry=registry,
        skipped=[s for log in logs for s in log.skipped],
        sources=[s for log in logs for s in log.sources],
    )


def _progress_bar(sources: list[EventLogSource], wanted: bool):
    """A rich progress bar over the sources' bytes, or None when not wanted or not worth it."""
    total = sum(s.size for s in sources)
    if not wanted or total < PROGRESS_MIN_BYTES:
        return nullcontext(None)
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn

    return Progress(
        "[progress.description]{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn(),
        TimeRemainingColumn(), transient=True, console=Console(stderr=True),
    )


def _read_path(path: Path, skipped: list[SkippedLine], sources: list[EventLogSource]) -> Log | None:
    """The Log of a non-Spark ``path`` (tabular or Ousterhout), or None after adding its Spark
    event logs to ``sources`` and the files it passed over to ``skipped``.

    A file is offered to every reader in turn, exactly like a directory: users point perfx
    at one job log or one table as often as at a folder of them."""
    if not path.exists():
        raise NotALog(f"{path}: no such file or directory")
    if path.suffix == ".jhist":
        raise UnsupportedFormat(f"{path}: {JHIST_MESSAGE}")
    if (tabular := _other_format(path, OTHER_READERS[:1])) is not None:
        return tabular
    found_skipped: list[SkippedLine] = []
    found = _spark_sources(path, found_skipped)
    if not found and (other := _other_format(path, OTHER_READERS[1:])) is not None:
        return other
    if not found and any(s.reason == JHIST_MESSAGE for s in found_skipped):
        raise UnsupportedFormat(f"{path}: {JHIST_MESSAGE}")
    if not found:
        what = "directory" if path.is_dir() else "file"
        raise NotALog(f"{path}: no Spark event log, tabular log or Ousterhout job log in this {what}")
    skipped.extend(found_skipped)
    sources.extend(found)
    return None


def load_log(
    paths: str | os.PathLike | Iterable[str | os.PathLike], *, progress: bool = False,
    host_metrics: str | os.PathLike | pd.DataFrame | None = None,
) -> Log:
    """Load Spark event logs (any codec, rolling or not, one app or directories of many),
    tabular logs and Ousterhout job logs into one ``Log``.

    ``host_metrics`` (a CSV/Parquet path or a DataFrame: ``host``, ``timestamp``, one column
    per metric) is joined onto the tasks as ``host_<metric>`` and percolated to the jobs
    (logs.hostmetrics). Bad lines are skipped and listed in ``Log.skipped``; only inputs that
    cannot be read at all raise ``LogError`` (``UnsupportedFormat`` for Hadoop ``.jhist``,
    ``NotALog`` for anything unrecognised or a path that does not exist)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    if not paths:
        raise NotALog("no log paths given")
    metrics = read_host_metrics(host_metrics) if host_metrics is not None else None
    logs: list[Log] = []
    skipped: list[SkippedLine] = []
    found: list[EventLogSource] = []
    for path in paths:
        if (other := _read_path(path, skipped, found)) is not None:
            logs.append(other)
    sources: list[EventLogSource] = []
    seen: set[Path] = set()
    for source in found:  # the same log reached through two paths is read once
        if source.path.resolve() not in seen:
            seen.add(source.path.resolve())
            sources.append(source)
    if sources:
        with _progress_bar(sources, progress) as bar:
            advance = None
            if bar is not None:
                task = bar.add_task("Reading event logs", total=sum(s.size for s in sources))
                advance = lambda n: bar.advance(task, n)  # noqa: E731 - a one-line callback
            logs.append(read_event_logs(sources, skipped, advance))
    log = _merge(logs)
    return join_host_metrics(log, metrics) if metrics is not None else log
