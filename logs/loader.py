"""``load_log``: any mix of log files and directories -> one ``Log``.

Each path is a Spark monitoring REST API's URL (logs.rest), a feature store (logs.store), or
files and folders whose logs are found and read by the registry of log formats
(logs.formats: Spark event logs, tabular logs, Ousterhout job logs, Hadoop job histories).
Several inputs concatenate into one Log, onto which host metrics may be joined.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path

import pandas as pd

from .errors import NotALog
from .formats import SPARK, FoundLog, ReadOptions, find_logs, format_named, once, read_found
from .hostmetrics import join_host_metrics, read_host_metrics
from .model import Log, SkippedLine, merge_logs
from .rest.client import RestAccess, is_rest_url
from .store.manifest import is_store

PROGRESS_MIN_BYTES = 64 << 20
"""Inputs smaller than this load too fast for a progress bar to help."""


def _progress_bar(sources: list[FoundLog], wanted: bool):
    """A rich progress bar over the sources' bytes, or None when not wanted or not worth it.
    Redrawn as the reader reports bytes (every 8 MB), not by a thread of its own: a process
    with another thread does not fork (logs.background), and the reader of a large log does
    (logs.eventlog.halves)."""
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
        auto_refresh=False,  # no refresh thread: a large log is read by a forked child too
    )


@contextmanager
def paused_collection() -> Iterator[None]:
    """Python's collection of reference cycles off in the block, back as it was after.

    Reading a large log makes millions of objects that live as long as its tables (rows,
    strings, arrays) and no cycles; each time enough have survived, Python's full collection
    scans every one of them again: four times, 0.2 s, reading the 150,000-task log of
    ``./dev bench load``, a tenth of a first ``perfx explain``. A cycle made meanwhile is
    collected after the block."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@paused_collection()
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
    remote = []
    if any(is_rest_url(p) for p in given):  # the event-log decoder with it, as for stores below
        from .rest.reader import read_rest

        remote += [read_rest(str(p), app=app, access=rest) for p in given if is_rest_url(p)]
        given = [p for p in given if not is_rest_url(p)]
    stores = [p for p in given if is_store(p)]
    if stores:  # Arrow's datasets, Parquet and filesystems: imported only to read a store
        from .store.read import read_store

        remote += [read_store(p, focus=focus, entity=entity) for p in stores]
    skipped: list[SkippedLine] = []
    found = once([log for p in given if p not in stores for log in find_logs(Path(p), skipped)])
    measured = [f for f in found if format_named(f.format).reports_progress]
    with _progress_bar(measured, progress) as bar:
        advance = None
        if bar is not None:
            task = bar.add_task("Reading event logs", total=sum(f.size for f in measured))
            advance = lambda n: bar.update(task, advance=n, refresh=True)  # noqa: E731 - a one-line callback
        read = read_found(found, ReadOptions(advance, cache))
    # first: a feature both kinds of log have (gc_time, host, status) keeps Spark's description;
    # the REST API's and the store's logs are Spark's too
    spark = [read.pop(SPARK.name)] if SPARK.name in read else []
    log = merge_logs(spark + remote + list(read.values()))
    if skipped:  # the files passed over while finding the logs lead the lines skipped reading them
        log = replace(log, skipped=skipped + log.skipped)
    return join_host_metrics(log, metrics) if metrics is not None else log
