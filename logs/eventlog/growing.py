"""An in-progress event log read on from where its last read stopped.

Spark appends to ``APP.inprogress`` while the application runs, and a user asks about it
again and again. The table cache (logs.cache) keys an entry by the file's size and time, so
each time it has grown there is no entry for it; for a single uncompressed in-progress log,
the entry also keeps the reader's state as it was after the log's last complete line
(``RESUME``: pickled, zstd-compressed), and the next read takes it from the entry last kept
for the file (``cache.kept_file``), checks that the file still holds the bytes it read (a
digest of the last ``CHECKED`` of them), and reads only the lines appended since. The
tables are then built from the whole state again: the Log is the one a whole read gives,
skipped lines and their numbers included. A line still being written (no newline yet) is
read as a whole read reads it, but after the state is kept: the next read reads it whole.

A state kept by another version of the reader (``cache.schema_version``), a file that was
rewritten or cut, or a state that cannot be read: the log is read from its start.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path

import zstandard

from ..background import Background
from ..cache import schema_version
from ..model import Log, SkippedLine
from .build import AppState, name_app, read_app
from .log import distinct_attempts, log_of_states
from .open import EventLogSource

RESUME = "resume.pickle.zst"
"""The entry's file holding the reader's state (``cache.cached_read``'s ``resume_file``)."""
CHECKED = 1 << 16
"""Bytes before where the last read stopped whose digest must be the same to read on."""
SUFFIX = ".inprogress"


def growing(sources: list[EventLogSource]) -> EventLogSource | None:
    """The one source of ``sources`` if it is a single uncompressed in-progress log."""
    if len(sources) != 1:
        return None
    source = sources[0]
    plain = len(source.parts) == 1 and source.codecs == (None,)
    return source if plain and source.parts[0].name.endswith(SUFFIX) else None


def read_on(
    source: EventLogSource, kept: bytes | None, progress: Callable[[int], None] | None = None
) -> tuple[Log, bytes]:
    """The Log of ``source`` (an in-progress log: ``growing``), read on from the state
    ``kept`` where it holds one for the file as it now begins, else from its start; and the
    state to keep for the next read."""
    path = source.parts[0]
    state, offset, count, skipped = _resumed(kept, path) or (AppState(str(source.path)), 0, 0, [])

    def skip(file: str, line: int, reason: str) -> None:
        skipped.append(SkippedLine(file, line, reason))

    lines = _Lines(path, offset, count)
    state = read_app(source, skip, progress, state=state, lines=lines, close=False)
    # kept as it is now: by a forked child while this process builds the tables (which
    # consumes the state), else here and now
    keeping = Background.start(_kept, state, lines.offset, lines.count, path, skipped)
    kept_here = None if keeping.forked else keeping.outcome()
    if lines.partial:  # as a whole read reads it, after the state is kept
        partial = [(str(path), lines.count + 1, lines.partial)]
        state = read_app(source, skip, state=state, lines=partial, close=False)
    state.close_running(skip)
    name_app(state, source)
    log = log_of_states(distinct_attempts([state], skipped), skipped, [str(source.path)])
    resume = keeping.outcome() if keeping.forked else kept_here
    return log, resume or b""  # none (a lost child): the next read reads from the start


def _kept(state: AppState, offset: int, count: int, path: Path, skipped: list) -> bytes:
    """The state to read on from (``_resumed``), pickled and compressed."""
    data = (schema_version(), state, offset, count, _digest(path, offset), skipped)
    return zstandard.ZstdCompressor(level=1).compress(
        pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    )


def _resumed(kept: bytes | None, path: Path) -> tuple[AppState, int, int, list] | None:
    """(state, byte offset, lines read, skipped lines) kept for ``path`` by this reader,
    where the file still holds the bytes that state was read from; else None."""
    if kept is None:
        return None
    try:
        version, state, offset, count, digest, skipped = pickle.loads(
            zstandard.ZstdDecompressor().decompress(kept)
        )
    except Exception:  # damaged, or written by other code: read from the start
        return None
    if version != schema_version() or _digest(path, offset) != digest:
        return None
    return state, offset, count, skipped


def _digest(path: Path, offset: int) -> str | None:
    """A digest of the ``CHECKED`` bytes of ``path`` before ``offset`` (None where the file
    is shorter than that or cannot be read)."""
    try:
        with open(path, "rb") as file:
            start = max(0, offset - CHECKED)
            file.seek(start)
            data = file.read(offset - start)
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest() if len(data) == offset - start else None


class _Lines:
    """(path, line number, line) of the complete lines of ``path`` from byte ``offset`` on,
    numbered after ``count``; once iterated, ``offset`` and ``count`` are those after the
    last complete line, and ``partial`` holds the bytes after it (a line being written)."""

    def __init__(self, path: Path, offset: int, count: int):
        self.path, self.offset, self.count, self.partial = path, offset, count, b""

    def __iter__(self) -> Iterator[tuple[str, int, bytes]]:
        name = str(self.path)
        with open(self.path, "rb", buffering=1 << 20) as file:
            file.seek(self.offset)
            for line in file:
                if not line.endswith(b"\n"):
                    self.partial = line
                    return
                self.offset += len(line)
                self.count += 1
                yield name, self.count, line
