"""The per-source reader every ingestion engine runs (a local worker process, a Spark task):
one source in, one partition written under a temporary name, a summary out.

The parent (``ingest``) alone moves partitions into place and records them in the manifest,
so a worker never changes what readers see. An in-progress plain log (``.inprogress``) is
read line by line straight from its filesystem and its reader state kept in the partition,
so that the next ingestion reads only the bytes appended since."""

from __future__ import annotations

import pickle
import posixpath
import shutil
import tempfile
import traceback
from collections.abc import Iterator
from dataclasses import astuple, dataclass, field
from pathlib import Path

import pyarrow.fs as pafs

from ..errors import LogError, NotALog
from ..eventlog.build import AppState, name_app, read_app
from ..eventlog.codecs import MAGIC_BYTES, sniff_codec
from ..eventlog.log import log_of_states
from ..eventlog.open import EventLogSource
from ..formats import SPARK, FoundLog, ReadOptions, find_logs, format_named, labels
from ..model import Log, SkippedLine
from ..registry_json import registry_bytes
from .fs import Location
from .manifest import SourceRead
from .partition import state_bytes, write_tables
from .sources import Source

SKIPPED_KEPT = 100
"""Skipped lines kept per source in the manifest (the count is what matters beyond that)."""
CHUNK = 8 << 20


@dataclass(kw_only=True)
class Result(SourceRead):
    """What a worker did with one source: ``temporary`` is the written partition folder
    ('' when nothing was written); ``reason`` says why a source failed or is no log; the
    registry and schemas are the bytes the manifest keeps once under their hash."""

    temporary: str = ""
    registry: bytes = b""
    schemas: dict[str, bytes] = field(default_factory=dict)
    skipped_count: int = 0


@dataclass(frozen=True)
class Job:
    """One unit of work: the source, the store, and where to resume an in-progress log
    (the partition holding its state and the bytes already read), if anywhere."""

    source: Source
    store: Location
    resume_partition: str = ""
    resume_bytes: int = 0


def run(job: Job) -> Result:
    """Read ``job``'s source into a temporary partition. Never raises: a failure is a Result."""
    try:
        return _run(job)
    except NotALog as err:
        return Result(source=job.source.key, status="not a log", reason=str(err))
    except LogError as err:
        return Result(source=job.source.key, status="failed", reason=str(err))
    except Exception as err:  # a log perfx cannot read must not stop the others
        last = traceback.extract_tb(err.__traceback__)[-1]
        where = f" ({Path(last.filename).name}:{last.lineno})"
        return Result(
            source=job.source.key, status="failed", reason=f"{type(err).__name__}: {err}{where}"
        )


def run_all(jobs) -> list[Result]:
    """``run`` over an iterable of jobs (a Spark partition's)."""
    return [run(job) for job in jobs]


def _run(job: Job) -> Result:
    source = job.source
    skipped: list[SkippedLine] = []
    if source.in_progress and _plain(source):
        return _in_progress(job, skipped)
    if source.fs.type_name == "local":
        return _read_local(job, source, skipped)
    with tempfile.TemporaryDirectory(prefix="perfx-ingest-") as tmp:
        local = _download(source, Path(tmp))
        result = _read_local(job, _sniffed(source, local), skipped)
    for line in result.skipped:
        line[0] = line[0].replace(str(local), source.root, 1)
    return result


def _plain(source: Source) -> bool:
    if source.codecs:
        return source.codecs[0] is None
    with source.fs.open_input_stream(source.parts[0]) as stream:
        return sniff_codec(stream.read(MAGIC_BYTES)) is None


def _download(source: Source, tmp: Path) -> Path:
    """Copy a remote source's parts under ``tmp``; returns the local counterpart of its root
    (a rolling log keeps its folder, whose name tells the reader what it is)."""
    root = tmp / posixpath.basename(source.root)
    many = len(source.parts) > 1 or source.parts[0] != source.root
    if many:
        root.mkdir()
    for part in source.parts:
        target = root / posixpath.basename(part) if many else root
        with source.fs.open_input_stream(part) as stream, open(target, "wb") as out:
            shutil.copyfileobj(stream, out, CHUNK)
    return root


def _sniffed(source: Source, local: Path) -> Source:
    """The downloaded source with its format and codecs found."""
    try:
        logs = find_logs(local, [])
    except NotALog:
        logs = []
    if len(logs) != 1:
        raise NotALog(f"{source.key}: not a {labels()}")
    log = logs[0]
    parts = tuple(str(p) for p in log.parts)
    return Source(
        source.key, pafs.LocalFileSystem(), str(log.root), parts, (), log.format, log.codecs
    )


def _read_local(job: Job, source: Source, skipped: list[SkippedLine]) -> Result:
    if source.kind != SPARK.name:
        log_format = format_named(source.kind)
        found = FoundLog(
            source.kind, Path(source.root), tuple(map(Path, source.parts)), source.codecs
        )
        log = log_format.read([found], ReadOptions(cache=False))
        return _written(job, log, None, 0, {}, skipped=log.skipped, kind=source.kind)
    event_log = EventLogSource(
        Path(source.root), tuple(Path(p) for p in source.parts), source.codecs
    )
    state = read_app(event_log, _collect(skipped))
    name_app(state, event_log)
    state.source = job.source.key
    return _spark(job, state, skipped, None, 0)


def _collect(skipped: list[SkippedLine]):
    return lambda path, line, reason: skipped.append(SkippedLine(path, line, reason))


def _spark(
    job: Job, state: AppState, skipped: list[SkippedLine], kept: bytes | None, read: int
) -> Result:
    log = log_of_states([state], skipped, [job.source.key])
    return _written(job, log, kept, read, state.properties, skipped=skipped, kind=SPARK.name)


def _written(
    job: Job,
    log: Log,
    state: bytes | None,
    bytes_read: int,
    properties: dict[str, str],
    skipped: list[SkippedLine],
    kind: str,
) -> Result:
    apps = log.apps
    jobs = log.jobs
    if len(apps):
        first = apps.iloc[0]
        app_id, attempt, name = str(first["app_id"]), str(first["app_attempt_id"]), first["name"]
        start = first["start_time"]
    else:  # a MapReduce job: its job is the application
        first = jobs.iloc[0] if len(jobs) else None
        app_id = str(first["id"]) if first is not None else job.source.key
        attempt = ""
        name = str(first.get("name", "")) if first is not None else ""
        start = first.get("submit_time") if first is not None else None
    temporary, schemas = write_tables(job.store, log, state)
    return Result(
        source=job.source.key,
        temporary=temporary,
        kind=kind,
        app_id=app_id,
        attempt_id=attempt,
        app_name=str(name or ""),
        start_time=float(start) if start is not None and start == start else None,
        tasks=len(log.tasks),
        bytes_read=bytes_read,
        registry=registry_bytes(log.registry),
        schemas=schemas,
        properties=dict(properties),
        skipped=[[s.path, s.line, s.reason] for s in skipped[:SKIPPED_KEPT]],
        skipped_count=len(skipped),
        cut_off=[list(astuple(c)) for c in log.cut_off],
    )


def _in_progress(job: Job, skipped: list[SkippedLine]) -> Result:
    """Read a plain in-progress log from where the last ingestion stopped (or its start)."""
    source = job.source
    state = None
    offset = 0
    if job.resume_partition:
        kept = state_bytes(job.store, job.resume_partition)
        if kept is not None:
            state, offset = pickle.loads(kept), job.resume_bytes
    if state is None:
        state = AppState(source.key)
    consumed = [offset]
    lines = _complete_lines(source.fs, source.parts[0], offset, consumed)
    event_log = EventLogSource(Path(source.root), (Path(source.parts[0]),), (None,))
    state = read_app(event_log, _collect(skipped), state=state, lines=lines, close=False)
    name_app(state, event_log)
    state.source = source.key
    kept = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    state.close_running(_collect(skipped))
    return _spark(job, state, skipped, kept, consumed[0])


def _complete_lines(
    fs: pafs.FileSystem, path: str, offset: int, consumed: list[int]
) -> Iterator[tuple[str, int, bytes]]:
    """(path, line number after ``offset``, line) of every complete line from ``offset``;
    ``consumed[0]`` ends as the offset after the last complete line: a line still being
    written (no newline yet) is left for the next ingestion."""
    number = 0
    pending = b""
    with fs.open_input_file(path) as stream:
        stream.seek(offset)
        while chunk := stream.read(CHUNK):
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            for line in lines:
                number += 1
                consumed[0] += len(line) + 1
                yield path, number, line + b"\n"
