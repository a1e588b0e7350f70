"""``load_log``: any mix of log files and directories -> one ``Log``.

Dispatch, per path: a Hadoop job history file (logs.jhist) and PerfXplain-style tables
(logs.tabular) are read by their readers; else the path is searched for Spark event logs (a
file, a rolling ``eventlog_v2_*`` directory, or a directory of apps, recursively) and, if it is
a directory, for job histories too, so that a folder holding both loads both; a path without
any is offered to the Ousterhout text job-log reader (logs.ousterhout), which would otherwise
claim a whole directory for one of its files. Several inputs concatenate into one Log, onto
which host metrics may be joined.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

import pandas as pd

from .cache import cached_read, enabled
from .errors import NotALog
from .eventlog.log import read_event_logs
from .eventlog.open import EventLogSource, find_event_logs
from .hostmetrics import join_host_metrics, read_host_metrics
from .jhist.reader import SUFFIX as JHIST_SUFFIX
from .jhist.reader import find_job_histories, is_job_history, not_a_history, read_job_histories
from .model import Log, SkippedLine, merge_logs
from .ousterhout import is_ousterhout_log, read_ousterhout_log
from .rest.client import RestAccess, is_rest_url
from .rest.reader import read_rest
from .store.read import is_store, read_store
from .tabular import is_tabular_log, read_tabular_log

PROGRESS_MIN_BYTES = 64 << 20
"""Inputs smaller than this load too fast for a progress bar to help."""

OTHER_READERS: tuple[tuple[Callable[[Path], bool], Callable[[Path], Log]], ...] = (
    (is_tabular_log, read_tabular_log),
    (is_ousterhout_log, read_ousterhout_log),
)
"""(recogniser, reader) of the non-Spark formats: tabular logs first, Ousterhout's last."""


def _other_format(
    path: Path, readers: tuple[tuple[Callable[[Path], bool], Callable[[Path], Log]], ...]
) -> Log | None:
    """The Log of ``path`` if one of ``readers`` recognises it, else None."""
    for recognise, read in readers:
        if recognise(path):
            return read(path)
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


def _once(found: list, path_of) -> list:
    """``found`` without the logs reached a second time through another path."""
    seen: set[Path] = set()
    kept = []
    for item in found:
        resolved = path_of(item).resolve()
        if resolved not in seen:
            seen.add(resolved)
            kept.append(item)
    return kept


def _progress_bar(sources: list[EventLogSource], wanted: bool):
    """A rich progress bar over the sources' bytes, or None when not wanted or not worth it."""
    total = sum(s.size for s in sources)
    if not wanted or total < PROGRESS_MIN_BYTES:
        return nullcontext(None)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=Console(stderr=True),
    )


def _job_histories(path: Path, skipped: list[SkippedLine]) -> list[Path]:
    """The Hadoop job history files at ``path``: the file itself, or those under a directory."""
    if path.is_dir():
        return find_job_histories(path, lambda p, n, r: skipped.append(SkippedLine(p, n, r)))
    if is_job_history(path):
        return [path]
    if path.suffix == JHIST_SUFFIX:
        raise NotALog(f"{path}: {not_a_history(path)}")
    return []


def _read_path(
    path: Path,
    skipped: list[SkippedLine],
    sources: list[EventLogSource],
    histories: list[Path],
) -> Log | None:
    """The Log of a tabular or Ousterhout ``path``, or None after adding its Spark event logs
    to ``sources``, its job histories to ``histories`` and the files it passed over to
    ``skipped``.

    A file is offered to every reader in turn, exactly like a directory: users point perfx
    at one job log or one table as often as at a folder of them."""
    if not path.exists():
        raise NotALog(f"{path}: no such file or directory")
    found_skipped: list[SkippedLine] = []
    here = _job_histories(path, found_skipped) if path.is_file() else []
    if here:
        histories.extend(here)
        return None
    if (tabular := _other_format(path, OTHER_READERS[:1])) is not None:
        return tabular
    if path.is_dir():
        here = _job_histories(path, found_skipped)
    found = _spark_sources(path, found_skipped)
    # the event-log search reports job histories without a .jhist suffix as files it does not read
    claimed = {str(p) for p in here}
    found_skipped = [s for s in found_skipped if s.path not in claimed]
    histories.extend(here)
    if not found and (other := _other_format(path, OTHER_READERS[1:])) is not None:
        return other  # it reads the files the event-log search passed over
    if not found and not here:
        what = "directory" if path.is_dir() else "file"
        why = "; ".join(
            dict.fromkeys(f"{Path(s.path).name}: {s.reason}" for s in found_skipped[:3])
        )
        raise NotALog(
            f"{path}: no Spark event log, Hadoop job history, tabular log or Ousterhout job log in this {what}"
            + (f" ({why})" if why and path.is_dir() else "")
        )
    skipped.extend(found_skipped)
    sources.extend(found)
    return None


def _read_spark(
    sources: list[EventLogSource],
    skipped: list[SkippedLine],
    advance: Callable[[int], None] | None,
    cache: bool | None,
) -> Log:
    """The Log of the Spark event logs ``sources``, from the table cache when it is on. The
    files passed over while finding them (already in ``skipped``) are not the entry's: they
    are found anew by every load, and lead the Log's skipped lines."""
    found = len(skipped)
    if not enabled(cache):
        return read_event_logs(sources, skipped, advance)

    def read() -> Log:
        log = read_event_logs(sources, skipped, advance)
        return replace(log, skipped=log.skipped[found:])

    parts = [s.path for s in sources] + [part for s in sources for part in s.parts]
    log = cached_read(parts, read)
    return replace(log, skipped=skipped[:found] + log.skipped)


def load_log(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    *,
    progress: bool = False,
    host_metrics: str | os.PathLike | pd.DataFrame | None = None,
    focus: Sequence[str] = (),
    entity: str | None = None,
    app: str | None = None,
    rest: RestAccess | None = None,
    cache: bool | None = None,
) -> Log:
    """Load Spark event logs (any codec, rolling or not, one app or directories of many),
    Hadoop job history files, tabular logs and Ousterhout job logs into one ``Log``.

    ``host_metrics`` (a CSV/Parquet path or a DataFrame: ``host``, ``timestamp``, one column
    per metric) is joined onto the tasks as ``host_<metric>`` and percolated to the jobs
    (logs.hostmetrics). Bad lines are skipped and listed in ``Log.skipped``; only inputs that
    cannot be read at all raise ``LogError`` (``NotALog`` for anything unrecognised or a path
    that does not exist).

    A feature store (``perfx ingest``: a folder or a URI) is read as the logs it holds; a
    large one only in part, what a question about ``focus`` (ids of ``entity``) needs
    (logs.store.read).

    An ``http(s)://`` source is Spark's monitoring REST API (a History Server, a running
    application's UI): its application ``app`` (id or name; the latest by default) is read
    with ``rest``'s headers, timeout and retries (logs.rest).

    The Spark event logs' tables are kept in the table cache (logs.cache) and read back from
    it while the logs are unchanged; ``cache`` False (or ``PERFX_CACHE=0``) reads them anew."""
    given = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not given:
        raise NotALog("no log paths given")
    metrics = read_host_metrics(host_metrics) if host_metrics is not None else None
    logs: list[Log] = [read_rest(str(p), app=app, access=rest) for p in given if is_rest_url(p)]
    given = [p for p in given if not is_rest_url(p)]
    logs += [read_store(p, focus=focus, entity=entity) for p in given if is_store(p)]
    log_paths = [Path(p) for p in given if not is_store(p)]
    skipped: list[SkippedLine] = []
    found: list[EventLogSource] = []
    found_histories: list[Path] = []
    for path in log_paths:
        if (other := _read_path(path, skipped, found, found_histories)) is not None:
            logs.append(other)
    sources = _once(found, lambda s: s.path)
    histories = _once(found_histories, lambda p: p)
    if histories:
        logs.append(read_job_histories(histories))
    if sources:
        with _progress_bar(sources, progress) as bar:
            advance = None
            if bar is not None:
                task = bar.add_task("Reading event logs", total=sum(s.size for s in sources))
                advance = lambda n: bar.advance(task, n)  # noqa: E731 - a one-line callback
            # first: a feature both kinds of log have (gc_time, host, status) keeps Spark's description
            logs.insert(0, _read_spark(sources, skipped, advance, cache))
    log = merge_logs(logs)
    if skipped and not sources:  # files passed over in folders without Spark event logs
        log = replace(log, skipped=skipped + log.skipped)
    return join_host_metrics(log, metrics) if metrics is not None else log
