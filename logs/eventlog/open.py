"""Finding Spark event logs on disk and reading them as lines, whatever the codec or layout.

One *source* is one application attempt: a single file (plain, ``.inprogress`` or compressed)
or a rolling ``eventlog_v2_*`` directory whose ``events_<N>_*`` parts are read in numeric
order. Directories of many applications are searched recursively. Codecs are recognised by
their magic bytes, not by file name, because tools rename logs.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from ..errors import CorruptStream, NotALog
from .codecs import CODECS, SPARK_CODECS, sniff_codec

EVENT_PREFIX = b'{"Event"'
ROLLING_DIR = "eventlog_v2_"
ROLLING_PART = re.compile(r"^events_(\d+)_")
IGNORED_SUFFIXES = (".crc",)
HEAD_BYTES = 64
"""Bytes read from the start of a file to tell an event log (after a BOM and blank space)."""


@dataclass(frozen=True)
class EventLogSource:
    """One application attempt's event log: its parts in order and their codec (None: plain)."""

    path: Path
    parts: tuple[Path, ...]
    codec: str | None

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
    return sniff_codec(first_bytes(path, 8))


@dataclass(frozen=True)
class Sniffed:
    """What the first bytes of a file say: its codec (None: plain), its first decompressed
    bytes (BOM and leading blank space removed), and whether its stream broke before them."""

    codec: str | None
    head: bytes
    broken: bool = False


def sniff(path: Path) -> Sniffed:
    """A plain file is read once, only the bytes sniffed; a compressed one is then decoded."""
    head = first_bytes(path, HEAD_BYTES)
    codec = sniff_codec(head)
    broken = False
    if codec is not None:
        try:
            with open_stream(path, codec) as stream:
                head = stream.read(HEAD_BYTES)
        except CorruptStream:
            head, broken = b"", True
    return Sniffed(codec, head.lstrip(b"\xef\xbb\xbf \t\r\n"), broken)


def _rolling_source(directory: Path) -> EventLogSource:
    numbered = []
    for part in directory.iterdir():
        match = ROLLING_PART.match(part.name)
        if match and part.is_file():
            numbered.append((int(match.group(1)), part))
    if not numbered:
        raise NotALog(f"{directory}: rolling event log directory without events_<N>_ parts")
    parts = tuple(p for _, p in sorted(numbered))
    return EventLogSource(directory, parts, codec_of(parts[0]))


def _file_source(path: Path) -> EventLogSource | None:
    """The file as an event log, or None if it is not one. A stream in one of the codecs Spark
    writes that breaks before its first event is still a (broken) event log: reading it reports
    the break, instead of the file being passed over as something else."""
    sniffed = sniff(path)
    broken = sniffed.broken and sniffed.codec in SPARK_CODECS
    return EventLogSource(path, (path,), sniffed.codec) if broken or sniffed.head.startswith(EVENT_PREFIX) else None


NOT_A_LOG = "not a Spark event log or Hadoop job history"
"""Why a file met while walking a directory was passed over (the loader reads both kinds)."""


def find_event_logs(path: Path, skip: Callable[[str, int, str], None]) -> list[EventLogSource]:
    """Every event log at ``path`` (a file, a rolling directory or a directory of apps).

    A file named explicitly must be an event log (else ``NotALog``); files met while walking a
    directory that are not event logs are reported through ``skip(path, 0, reason)``."""
    if not path.exists():
        raise NotALog(f"{path}: no such file or directory")
    if path.is_file():
        source = _file_source(path)
        if source is None:
            raise NotALog(f"{path}: not a Spark event log (expected JSON lines starting with {EVENT_PREFIX.decode()})")
        return [source]
    if path.name.startswith(ROLLING_DIR):
        return [_rolling_source(path)]
    sources: list[EventLogSource] = []
    for child in sorted(path.iterdir()):
        if child.name.startswith(".") or child.name.endswith(IGNORED_SUFFIXES):
            continue
        if child.is_dir():
            sources.extend(find_event_logs(child, skip))
        elif child.suffix == ".jhist":
            continue  # Hadoop job histories are logs.jhist's to read
        elif (source := _file_source(child)) is not None:
            sources.append(source)
        else:
            skip(str(child), 0, NOT_A_LOG)
    return sources


def iter_lines(source: EventLogSource, skip: Callable[[str, int, str], None]) -> Iterator[tuple[str, int, bytes]]:
    """(part path, 1-based line number, raw line) for every line of every part, in order.

    A compressed part whose stream breaks off is reported through ``skip`` and the lines
    decoded before the break are kept."""
    for part in source.parts:
        name = str(part)
        number = 0
        try:
            with open_stream(part, source.codec) as stream:
                for number, line in enumerate(stream, 1):
                    yield name, number, line
        except CorruptStream as err:
            skip(name, number + 1, f"compressed stream broken off: {err}")
