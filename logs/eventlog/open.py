"""Finding Spark event logs on disk and reading them as lines, whatever the codec or layout.

One *source* is one application attempt: a single file (plain, ``.inprogress`` or compressed),
a rolling ``eventlog_v2_*`` directory whose ``events_<N>_*`` parts are read in numeric order,
or a Databricks driver's rolled log: a directory holding ``eventlog`` (the current part) and
the older parts ``eventlog-YYYY-MM-DD--HH-MM`` (most often gzipped, ``.gz``), read oldest
first. Directories of many applications are searched recursively. Codecs are recognised by
their magic bytes, part by part, not by file name, because tools rename logs.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import CorruptStream, NotALog
from .codecs import CODECS, MAGIC_BYTES, sniff_codec

EVENT_PREFIX = b'{"Event"'
ROLLING_DIR = "eventlog_v2_"
ROLLING_PART = re.compile(r"^events_(\d+)_")
COMPACT_SUFFIX = ".compact"
"""A rolling log's part that holds the parts before it, compacted (Spark's EventLogFileCompactor)."""
DATABRICKS_CURRENT = "eventlog"
DATABRICKS_PART = re.compile(r"^eventlog-(\d{4}-\d{2}-\d{2}--\d{2}-\d{2})(?:\.\w+)?$")
"""An older part of a Databricks rolled log, named for when it was rolled (with its codec's
suffix once compressed): as text, the stamps sort in time order."""
IGNORED_SUFFIXES = (".crc",)
HEAD_BYTES = 64
"""Bytes read from the start of a file to tell an event log (after a BOM and blank space)."""
LEADING_BLANK = b"\xef\xbb\xbf \t\r\n"
FIRST_LINE_BYTES = 1 << 20
"""How far a compressed stream is decoded to find its first line end: a stream that breaks
before it holds no event at all."""


@dataclass(frozen=True)
class EventLogSource:
    """One application attempt's event log: its parts in order and each part's codec (None:
    plain). A Databricks log's older parts are gzipped and its current one is not."""

    path: Path
    parts: tuple[Path, ...]
    codecs: tuple[str | None, ...]

    @property
    def size(self) -> int:
        """Bytes on disk (compressed), for progress reporting."""
        return sum(p.stat().st_size for p in self.parts)


class _ChunkReader(io.RawIOBase):
    """Presents a generator of decompressed chunks as a raw stream, so that io.BufferedReader
    can split it into lines in C."""

    def __init__(self, chunks: Iterator[bytes]):
        self._chunks = chunks
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._pending:
            try:
                self._pending = next(self._chunks)
            except StopIteration:
                return 0
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


def open_stream(path: Path, codec: str | None) -> BinaryIO:
    """A buffered binary stream of the decompressed bytes of one file."""
    raw = open(path, "rb", buffering=1 << 20)
    if codec is None:
        return raw
    return io.BufferedReader(_ChunkReader(CODECS[codec](raw)), buffer_size=1 << 20)


def first_bytes(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of a file as stored: one unbuffered read of just those bytes."""
    with open(path, "rb", buffering=0) as f:
        return f.read(size)


def codec_of(path: Path) -> str | None:
    """The codec a file is stored with, from its first bytes (None: plain)."""
    return sniff_codec(first_bytes(path, MAGIC_BYTES))


@dataclass(frozen=True)
class Sniffed:
    """What the first bytes of a file say: its codec (None: plain), its first decompressed
    bytes (BOM and leading blank space removed), and why its stream broke before its first
    line ended ('' if it did not)."""

    codec: str | None
    head: bytes
    broken: str = ""


def sniff(path: Path) -> Sniffed:
    """A plain file is read once, only the bytes sniffed; a compressed one is then decoded up
    to its first line end."""
    head = first_bytes(path, HEAD_BYTES)
    codec = sniff_codec(head)
    broken = ""
    if codec is not None:
        try:
            with open_stream(path, codec) as stream:
                head = stream.read(HEAD_BYTES)
                if b"\n" not in head.lstrip(LEADING_BLANK):
                    stream.readline(FIRST_LINE_BYTES)
        except CorruptStream as err:
            head, broken = b"", str(err)
    return Sniffed(codec, head.lstrip(LEADING_BLANK), broken)


def broken_stream(sniffed: Sniffed) -> str:
    """Why a file whose stream broke before its first line is no log: whatever its first
    bytes claim, it holds no event (a file that only starts like an LZ4 stream, a copy cut
    inside its first block)."""
    return f"its {sniffed.codec} stream breaks before the first event ({sniffed.broken})"


def _rolling_source(directory: Path, skip: Callable[[str, int, str], None]) -> EventLogSource:
    """The rolling log in ``directory``: its parts in order. Spark numbers them from 1 with no
    gap; a compaction replaces the first ones with a ``.compact`` part. A number missing
    between two parts (or before the first, where no part is compacted) is a part lost:
    reported through ``skip``, and the log read without it."""
    numbered = []
    for part in directory.iterdir():
        match = ROLLING_PART.match(part.name)
        if match and part.is_file():
            numbered.append((int(match.group(1)), part))
    if not numbered:
        raise NotALog(f"{directory}: rolling event log directory without events_<N>_ parts")
    numbered.sort()
    first = numbered[0][0] if numbered[0][1].name.endswith(COMPACT_SUFFIX) else 1
    for _, lost in missing_numbers([number for number, _ in numbered], first):
        skip(
            str(directory), 0, f"rolling part events_{lost} missing: its events are not in the log"
        )
    return _source(directory, [p for _, p in numbered])


def missing_numbers(numbers: Iterable[int], first: int) -> Iterator[tuple[int, str]]:
    """The gaps in the numbers of a log's parts, in the order read, that should run
    ``first``, ``first`` + 1, ...: (position of the part after the gap, the numbers missing:
    "2" or "2-4"). A rolling log's parts (``_rolling_source``) and a Databricks log's
    rollover numbers (``build.AppState.missing_rollovers``)."""
    expected = first
    for position, number in enumerate(numbers):
        if number > expected:
            yield position, f"{expected}" if number == expected + 1 else f"{expected}-{number - 1}"
        expected = max(expected, number + 1)


def _databricks_source(directory: Path) -> EventLogSource | None:
    """The Databricks rolled log in ``directory`` (one application: its dated parts, oldest
    first, then ``eventlog``), or None when it holds no dated part: a lone ``eventlog`` is
    an ordinary file."""
    dated = sorted(
        (m.group(1), p)
        for p in directory.iterdir()
        if (m := DATABRICKS_PART.match(p.name)) and p.is_file()
    )
    if not dated:
        return None
    current = directory / DATABRICKS_CURRENT
    return _source(directory, [p for _, p in dated] + ([current] if current.is_file() else []))


def _source(path: Path, parts: list[Path]) -> EventLogSource:
    return EventLogSource(path, tuple(parts), tuple(codec_of(p) for p in parts))


NOT_A_LOG = "not a Spark event log or Hadoop job history"
"""Why a file met while walking a directory was passed over; the registry (logs.formats),
which asks every format, names them all in its place."""


def find_event_logs(path: Path, skip: Callable[[str, int, str], None]) -> list[EventLogSource]:
    """Every event log at ``path`` (a file, a rolling directory, a Databricks rolled log or a
    directory of apps).

    A file named explicitly must be an event log (else ``NotALog``, or ``CorruptStream`` for
    a compressed stream that breaks before its first event); files met while walking a
    directory that are not event logs are reported through ``skip(path, 0, reason)``."""
    if not path.exists():
        raise NotALog(f"{path}: no such file or directory")
    if path.is_file():
        sniffed = sniff(path)
        if sniffed.broken:
            raise CorruptStream(f"{path}: not an event log: {broken_stream(sniffed)}")
        if not sniffed.head.startswith(EVENT_PREFIX):
            raise NotALog(
                f"{path}: not a Spark event log (expected JSON lines starting with {EVENT_PREFIX.decode()})"
            )
        return [EventLogSource(path, (path,), (sniffed.codec,))]
    if path.name.startswith(ROLLING_DIR):
        return [_rolling_source(path, skip)]
    databricks = _databricks_source(path)
    sources = [databricks] if databricks is not None else []
    for child in sorted(path.iterdir()):
        if child.name.startswith(".") or child.name.endswith(IGNORED_SUFFIXES):
            continue
        if child.is_dir():
            sources.extend(find_event_logs(child, skip))
        elif child.suffix == ".jhist" or (databricks is not None and child in databricks.parts):
            continue  # Hadoop job histories are logs.jhist's to read; the Databricks parts are read above
        elif (sniffed := sniff(child)).broken:
            skip(str(child), 0, broken_stream(sniffed))
        elif sniffed.head.startswith(EVENT_PREFIX):
            sources.append(EventLogSource(child, (child,), (sniffed.codec,)))
        else:
            skip(str(child), 0, NOT_A_LOG)
    return sources


IN_PROGRESS = ".inprogress"
"""The suffix of an event log Spark is still writing (renamed without it at the end)."""


def iter_lines(
    source: EventLogSource, skip: Callable[[str, int, str], None]
) -> Iterator[tuple[str, int, bytes]]:
    """(part path, 1-based line number, raw line) for every line of every part, in order.

    A compressed part whose stream breaks off is reported through ``skip`` and the lines
    decoded before the break are kept."""
    for part, codec in zip(source.parts, source.codecs):
        name = str(part)
        number = 0
        try:
            with open_stream(part, codec) as stream:
                for number, line in enumerate(stream, 1):
                    yield name, number, line
        except CorruptStream as err:
            skip(name, number + 1, f"compressed stream broken off after line {number}: {err}")
