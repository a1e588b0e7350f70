"""The log formats perfx reads, in one registry.

Each format says how a file of it is recognised (from its first bytes or its path), how its
logs are found under a path, how they are read into the canonical tables, and which entities
those fill. ``load_log`` (``perfx logs`` and every command that loads logs) and the feature
store's ingestion (logs.store) find and read logs only through this registry, so a format
registered here is read by both.

Finding, for one path (a file or a folder), formats are asked in the registry's order:

- an *exclusive* format (a tabular log's folder) claims the path before any other looks at
  it, and reads it as one log;
- every other format finds its logs under the path (a file: itself), so that a folder holding
  logs of several formats loads them all; but a *whole-folder* one (Ousterhout's job logs,
  which would otherwise claim a whole folder for one of its files) is asked only when the
  formats before it found nothing there, and reads the files they passed over.

The registry's order is also the order the logs of several formats are merged in (the first
format's feature descriptions win) and the order formats are named in messages."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from .cache import cached_read, enabled
from .errors import NotALog
from .eventlog.growing import RESUME, growing, read_on
from .eventlog.open import (
    EVENT_PREFIX,
    IGNORED_SUFFIXES,
    NOT_A_LOG,
    EventLogSource,
    find_event_logs,
    sniff,
)
from .jhist.reader import SUFFIX as JHIST_SUFFIX
from .jhist.reader import find_job_histories, is_job_history, not_a_history, read_job_histories
from .model import Log, SkippedLine, merge_logs
from .ousterhout import is_ousterhout_log, job_log_files, read_ousterhout_log
from .tabular import is_tabular_log, read_tabular_log, table_files

Skip = Callable[[str, int, str], None]
"""``skip(path, line, reason)``: a file (line 0) or line passed over while finding or reading."""


@dataclass(frozen=True)
class FoundLog:
    """One log of the format named ``format``: ``root`` names it (a file, or the folder it is
    read from); ``parts`` are its files in reading order, with their codecs (None: plain;
    empty: not known)."""

    format: str
    root: Path
    parts: tuple[Path, ...]
    codecs: tuple[str | None, ...] = ()

    @property
    def size(self) -> int:
        """Bytes on disk (compressed), for progress reporting."""
        return sum(p.stat().st_size for p in self.parts)


@dataclass(frozen=True)
class ReadOptions:
    """How to read: ``advance(bytes)`` reports progress; ``cache`` turns the table cache
    (logs.cache) on or off (None: ``PERFX_CACHE`` decides)."""

    advance: Callable[[int], None] | None = None
    cache: bool | None = None


@dataclass(frozen=True)
class LogFormat:
    """One log format.

    ``recognise(file)`` tells a file of the format from its first bytes or its path;
    ``read(logs, options)`` reads logs found of the format into one Log, its skipped lines
    included; ``entities`` are the tables it fills. ``find(path, skip)`` finds its logs under
    a path (a file: itself); by default every file ``recognise`` accepts, recursively (hidden
    files and checksums passed over), or the folder itself for a whole-folder format.
    ``reports_progress``: ``read`` calls ``options.advance`` with the bytes it has read."""

    name: str
    label: str
    entities: tuple[str, ...]
    recognise: Callable[[Path], bool]
    read: Callable[[Sequence[FoundLog], ReadOptions], Log]
    find: Callable[[Path, Skip], list[FoundLog]] | None = None
    whole_folder: bool = False
    exclusive: bool = False
    reports_progress: bool = False

    def logs_at(self, path: Path, skip: Skip) -> list[FoundLog]:
        """This format's logs at ``path``."""
        if self.find is not None:
            return self.find(path, skip)
        if self.whole_folder:
            return [FoundLog(self.name, path, (path,))] if self.recognise(path) else []
        if path.is_file():
            return [FoundLog(self.name, path, (path,))] if self.recognise(path) else []
        return [
            FoundLog(self.name, file, (file,))
            for file in sorted(path.rglob("*"))
            if _visible(file, path) and file.is_file() and self.recognise(file)
        ]


def _visible(file: Path, root: Path) -> bool:
    hidden = any(part.startswith(".") for part in file.relative_to(root).parts)
    return not hidden and not file.name.endswith(IGNORED_SUFFIXES)


def _spark_logs(path: Path, skip: Skip) -> list[FoundLog]:
    """The Spark event logs at ``path``; a file that is not one yields none (another format
    may know it) instead of an error."""
    try:
        sources = find_event_logs(path, skip)
    except NotALog:
        if path.is_file():
            return []
        raise
    return [FoundLog(SPARK.name, s.path, s.parts, s.codecs) for s in sources]


def _is_event_log(path: Path) -> bool:
    """Is ``path`` a file whose (decompressed) bytes start with a Spark event?"""
    try:
        return path.is_file() and sniff(path).head.startswith(EVENT_PREFIX)
    except OSError:
        return False


def _read_spark(logs: Sequence[FoundLog], options: ReadOptions) -> Log:
    """The Log of Spark event logs, from the table cache when it is on."""
    sources = [EventLogSource(f.root, f.parts, f.codecs) for f in logs]

    def read() -> Log:
        # the decoder (msgspec's structs, the two-core reader, the table builders) is
        # imported when a log is read, not when its tables come from the cache
        from .eventlog.log import read_event_logs

        return read_event_logs(sources, [], options.advance)

    if not enabled(options.cache):
        return read()
    parts = [s.path for s in sources] + [p for s in sources for p in s.parts]
    if (source := growing(sources)) is not None:  # read on from where its last read stopped

        def resume(kept: bytes | None) -> tuple[Log, bytes]:
            return read_on(source, kept, options.advance)

        return cached_read(parts, read, resume, RESUME)
    return cached_read(parts, read)


def _job_histories(path: Path, skip: Skip) -> list[FoundLog]:
    """The Hadoop job history files at ``path``: the file itself, or those under a folder; a
    file named explicitly with the ``.jhist`` suffix must be one."""
    if path.is_dir():
        files = find_job_histories(path, skip)
    elif is_job_history(path):
        files = [path]
    elif path.suffix == JHIST_SUFFIX:
        raise NotALog(f"{path}: {not_a_history(path)}")
    else:
        files = []
    return [FoundLog(JHIST.name, f, (f,), (None,)) for f in files]


def _whole_folder(
    name: str, recognise: Callable[[Path], bool], files: Callable[[Path], list[Path]]
) -> Callable[[Path, Skip], list[FoundLog]]:
    """``find`` of a format that reads a folder (or one file) as one log made of ``files``."""

    def find(path: Path, skip: Skip) -> list[FoundLog]:
        return [FoundLog(name, path, tuple(files(path)))] if recognise(path) else []

    return find


def _each(read_one: Callable[[Path], Log]) -> Callable[[Sequence[FoundLog], ReadOptions], Log]:
    """``read`` of a format whose reader takes one log's root at a time."""
    return lambda logs, options: merge_logs([read_one(f.root) for f in logs])


SPARK = LogFormat(
    "spark",
    "Spark event log",
    ("app", "job", "stage", "task"),
    recognise=_is_event_log,
    read=_read_spark,
    find=_spark_logs,
    reports_progress=True,
)
JHIST = LogFormat(
    "jhist",
    "Hadoop job history",
    ("job", "task"),
    recognise=is_job_history,
    read=lambda logs, options: read_job_histories([f.root for f in logs]),
    find=_job_histories,
)
TABULAR = LogFormat(
    "tabular",
    "tabular log",
    ("job", "task"),
    recognise=is_tabular_log,
    read=_each(read_tabular_log),
    find=_whole_folder("tabular", is_tabular_log, table_files),
    whole_folder=True,
    exclusive=True,
)
OUSTERHOUT = LogFormat(
    "ousterhout",
    "Ousterhout job log",
    ("app", "job", "stage", "task"),
    recognise=is_ousterhout_log,
    read=_each(read_ousterhout_log),
    find=_whole_folder("ousterhout", is_ousterhout_log, job_log_files),
    whole_folder=True,
)

FORMATS: list[LogFormat] = [SPARK, TABULAR, OUSTERHOUT, JHIST]
"""Every format perfx reads, in the order their logs are merged (see the module's doc)."""


def register(log_format: LogFormat) -> None:
    """Add ``log_format`` to the registry (last), replacing a format of the same name in place.
    Ingestion's worker processes find it too if the module registering it is imported there."""
    for index, known in enumerate(FORMATS):
        if known.name == log_format.name:
            FORMATS[index] = log_format
            return
    FORMATS.append(log_format)


def unregister(name: str) -> None:
    """Remove the format ``name`` from the registry."""
    FORMATS[:] = [f for f in FORMATS if f.name != name]


@contextmanager
def registered(log_format: LogFormat) -> Iterator[LogFormat]:
    """``log_format`` registered for the block's duration (the registry restored after it)."""
    saved = list(FORMATS)
    register(log_format)
    try:
        yield log_format
    finally:
        FORMATS[:] = saved


def format_named(name: str) -> LogFormat:
    for log_format in FORMATS:
        if log_format.name == name:
            return log_format
    raise NotALog(f"no log format named {name!r}; known: {', '.join(f.name for f in FORMATS)}")


def labels() -> str:
    """The formats' labels as a phrase: "A, B or C"."""
    names = [f.label for f in FORMATS]
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


def find_logs(path: Path, skipped: list[SkippedLine]) -> list[FoundLog]:
    """Every log at ``path`` (a file or a folder), by the registry's rules (see the module's
    doc); the files passed over go to ``skipped``. ``NotALog`` when there is none, or
    ``path`` does not exist."""
    if not path.exists():
        raise NotALog(f"{path}: no such file or directory")
    for log_format in FORMATS:
        if log_format.exclusive and (claimed := log_format.logs_at(path, lambda *_: None)):
            return claimed
    passed: list[SkippedLine] = []
    found: list[FoundLog] = []
    beside: list[LogFormat] = []  # whole-folder formats whose files lie beside others' logs
    for log_format in FORMATS:
        if log_format.exclusive:
            continue
        if log_format.whole_folder and found:
            beside.append(log_format)
            continue
        here = log_format.logs_at(path, lambda p, n, r: passed.append(SkippedLine(p, n, r)))
        if log_format.whole_folder and here:
            passed.clear()  # it reads the files the formats before it passed over
        found += here
    if beside:  # each of their files the others passed over: a log of its own
        files = [Path(p) for p in dict.fromkeys(s.path for s in passed) if Path(p).is_file()]
        for log_format in beside:
            found += [f for file in files for f in log_format.logs_at(file, lambda *_: None)]
    if not found:
        what = "directory" if path.is_dir() else "file"
        why = "; ".join(dict.fromkeys(f"{Path(s.path).name}: {s.reason}" for s in passed[:3]))
        why = why if path.is_dir() else _container(path)
        raise NotALog(f"{path}: no {labels()} in this {what}" + (f" ({why})" if why else ""))
    # a format's search may report another's files as files it does not read
    read = {str(part) for f in found for part in f.parts}
    skipped.extend(
        replace(s, reason=not_a_log()) if s.reason == NOT_A_LOG else s
        for s in dict.fromkeys(passed)
        if s.path not in read
    )
    return found


def not_a_log() -> str:
    """Why a file met in a folder was passed over: no format of the registry reads it."""
    return f"not a {labels()}"


CONTAINERS = (
    (0, b"PK\x03\x04", "a zip archive: perfx reads no archive; unzip it and give perfx its files"),
    (257, b"ustar", "a tar archive: perfx reads no archive; extract it and give perfx its files"),
    (
        0,
        b"\x04\x22\x4d\x18",
        "an LZ4 frame, as the lz4 tool writes: Spark's lz4 codec writes LZ4Block streams; "
        "decompress it with lz4 -d",
    ),
)
"""(offset, magic bytes, what the file is) of the files logs are often shared in that are
no log: a user is told what to do with them."""


SPREAD_EVENTS = re.compile(rb'\A\s*(\[\s*)?\{\s*\n\s*"Event"\s*:\s*"SparkListener')
"""The start of Spark events written as indented JSON (one event over many lines) or as one
JSON array: a log pretty-printed, or exported by a tool, for people to read."""
SPREAD = (
    "Spark events, but not one per line (indented JSON or a JSON array): perfx reads event "
    'logs as Spark writes them; rewrite it with jq -c \'if type == "array" then .[] else . '
    "end' FILE > FILE.events"
)


def _container(path: Path) -> str:
    """What the file at ``path`` is, if it is one of ``CONTAINERS`` or Spark events written
    over many lines (``SPREAD_EVENTS``), else ''."""
    try:
        with open(path, "rb") as file:
            head = file.read(512)
    except OSError:
        return ""
    if SPREAD_EVENTS.match(head):
        return SPREAD
    return next((what for at, magic, what in CONTAINERS if head[at:].startswith(magic)), "")


def once(found: list[FoundLog]) -> list[FoundLog]:
    """``found`` without the logs reached a second time through another path."""
    seen: set[Path] = set()
    kept = []
    for log in found:
        resolved = log.root.resolve()
        if resolved not in seen:
            seen.add(resolved)
            kept.append(log)
    return kept


def read_found(found: Sequence[FoundLog], options: ReadOptions) -> dict[str, Log]:
    """The Log of ``found``'s logs of each format, by format name, in the registry's order."""
    return {
        log_format.name: log_format.read(mine, options)
        for log_format in FORMATS
        if (mine := [f for f in found if f.format == log_format.name])
    }
