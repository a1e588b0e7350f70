"""The sources an ingestion reads: each application attempt's log (a file, a rolling log's
parts) or job history under the paths and URIs given, with the size and modification time
of every file, which tell an unchanged source from one to read again.

Local paths are searched exactly as ``load_log`` searches them, by the registry of log formats
(logs.formats): the same logs. Remote folders are listed recursively: each file is a source, and the parts of a
rolling ``eventlog_v2_*`` folder make one; which format a remote file is in is only known
once it is read (the worker sniffs it)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.fs as pafs

from ..errors import NotALog
from ..eventlog.open import IGNORED_SUFFIXES, IN_PROGRESS, ROLLING_DIR, ROLLING_PART
from ..formats import find_logs
from ..model import SkippedLine
from .fs import Location, locate, what_failed


@dataclass(frozen=True)
class Source:
    """One source to ingest: ``key`` names it in the manifest; ``parts`` are paths on ``fs``
    in reading order with their ``[path, size, mtime_ns]`` in ``fingerprint``. ``kind`` is
    the name of its log format (logs.formats) when known (local), '' for a remote file not
    sniffed yet;
    ``codecs`` are the local parts' codecs (None: plain)."""

    key: str
    fs: pafs.FileSystem
    root: str
    parts: tuple[str, ...]
    fingerprint: tuple[tuple[str, int, int], ...]
    kind: str = ""
    codecs: tuple[str | None, ...] = ()

    @property
    def in_progress(self) -> bool:
        return len(self.parts) == 1 and self.parts[0].endswith(IN_PROGRESS)

    @property
    def size(self) -> int:
        return sum(size for _, size, _ in self.fingerprint)


@dataclass
class Found:
    sources: list[Source] = field(default_factory=list)
    skipped: list[SkippedLine] = field(default_factory=list)


def _fingerprint(fs: pafs.FileSystem, parts: list[str]) -> tuple[tuple[str, int, int], ...]:
    infos = fs.get_file_info(parts)
    return tuple((i.path, int(i.size or 0), int(i.mtime_ns or 0)) for i in infos)


def _local(path: Path, found: Found) -> None:
    fs = pafs.LocalFileSystem()
    for log in find_logs(path, found.skipped):
        parts = [str(p.resolve()) for p in log.parts]
        root = str(log.root.resolve())
        found.sources.append(
            Source(root, fs, root, tuple(parts), _fingerprint(fs, parts), log.format, log.codecs)
        )


def _remote(where: Location, found: Found) -> None:
    info = where.info()
    if info.type == pafs.FileType.NotFound:
        raise NotALog(f"{where.text}: no such file or directory")
    if info.type == pafs.FileType.File:
        files = [info]
    else:
        files = where.fs.get_file_info(pafs.FileSelector(where.path, recursive=True))
    rolling: dict[str, list[tuple[int, pafs.FileInfo]]] = {}
    for file in sorted(files, key=lambda f: f.path):
        if file.type != pafs.FileType.File:
            continue
        name = posixpath.basename(file.path)
        parent = posixpath.dirname(file.path)
        if name.startswith(".") or name.endswith(IGNORED_SUFFIXES):
            continue
        if posixpath.basename(parent).startswith(ROLLING_DIR):
            match = ROLLING_PART.match(name)
            if match:
                rolling.setdefault(parent, []).append((int(match.group(1)), file))
            continue
        found.sources.append(_remote_source(where, file.path, [file]))
    for parent, numbered in rolling.items():
        found.sources.append(_remote_source(where, parent, [f for _, f in sorted(numbered)]))
    found.sources.sort(key=lambda s: s.key)


def _remote_source(where: Location, root: str, files: list[pafs.FileInfo]) -> Source:
    return Source(
        where.key(root),
        where.fs,
        root,
        tuple(f.path for f in files),
        tuple((f.path, int(f.size or 0), int(f.mtime_ns or 0)) for f in files),
    )


def find_sources(paths: list[str]) -> Found:
    """Every source under ``paths`` (each once); ``NotALog`` for a path holding none."""
    found = Found()
    for text in paths:
        where = locate(text)
        if where.local:
            if not Path(where.path).exists():
                raise NotALog(f"{text}: no such file or directory")
            _local(Path(where.path), found)
        else:
            try:
                _remote(where, found)
            except OSError as err:  # the listing is the first network call
                raise NotALog(what_failed(text, err)) from None
    unique = {s.key: s for s in found.sources}
    found.sources = list(unique.values())
    return found
