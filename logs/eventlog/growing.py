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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import zstandard

from ..background import Background
from ..cache import schema_version
from ..model import Log, SkippedLine
from .open import IN_PROGRESS, EventLogSource

if TYPE_CHECKING:
    from .build import AppState

RESUME = "resume.pickle.zst"
"""The entry's file holding the reader's state (``cache.cached_read``'s ``resume_file``)."""
CHECKED = 1 << 16
"""Bytes before where the last read stopped whose digest must be the same to read on."""


def growing(sources: list[EventLogSource]) -> EventLogSource | None:
    """The one source of ``sources`` if it is a single uncompressed in-progress log."""
    if len(sources) != 1:
        return None
    source = sources[0]
    plain = len(source.parts) == 1 and source.codecs == (None,)
    return source if plain and source.parts[0].name.endswith(IN_PROGRESS) else None


def read_on(
    source: EventLogSource, kept: bytes | None, progress: Callable[[int], None] | None = None
) -> tuple[Log, bytes]:
    """The Log of ``source`` (an in-progress log: ``growing``), read on from the state
    ``kept`` where it holds one for the file as it now begins, else from its start (on two
    cores where it is large: eventlog.halves); and the state to keep for the next read."""
    # the decoder, imported here rather than with the registry's check (``growing``): a
    # command whose tables come from the cache imports none of it
    from . import halves
    from .build import name_app, read_app
    from .log import distinct_attempts, log_of_states, read_event_logs

    path = source.parts[0]
    try:
        end, partial = _tail(path)
    except OSError:  # gone meanwhile: read as any log is, to say so
        return read_event_logs([source], [], progress), b""
    resumed = _resumed(kept, path)
    state, offset, skipped = resumed if resumed else (None, 0, [])

    def skip(file: str, line: int, reason: str) -> None:
        skipped.append(SkippedLine(file, line, reason))

    if state is None:
        state = read_app(source, skip, progress, close=False, until=end)
    else:
        lines = halves.lines_between(path, offset, end, state.last[1])
        state = read_app(source, skip, progress, state=state, lines=lines, close=False)
    count = state.last[1]
    # kept as it is now: by a forked child while this process builds the tables (which
    # consumes the state), else here and now
    keeping = Background.start(_kept, state, end, path, skipped)
    kept_here = None if keeping.forked else keeping.outcome()
    if partial:  # a line being written: read as a whole read reads it, after the state is kept
        state = read_app(
            source, skip, state=state, lines=[(str(path), count + 1, partial)], close=False
        )
    state.close_running(skip)
    name_app(state, source)
    log = log_of_states(distinct_attempts([state], skipped), skipped, [str(source.path)])
    resume = keeping.outcome() if keeping.forked else kept_here
    return log, resume or b""  # none (a lost child): the next read reads from the start


def _tail(path: Path) -> tuple[int, bytes]:
    """The offset after the last newline of ``path``, and the bytes after it."""
    with open(path, "rb") as file:
        at = file.seek(0, 2)
        tail = b""
        while at > 0:
            step = min(1 << 16, at)
            at -= step
            file.seek(at)
            tail = file.read(step) + tail
            if (newline := tail.rfind(b"\n")) >= 0:
                return at + newline + 1, tail[newline + 1 :]
    return 0, tail


def _kept(state: AppState, offset: int, path: Path, skipped: list) -> bytes:
    """The state to read on from (``_resumed``), pickled and compressed."""
    data = (schema_version(), state, offset, _digest(path, offset), skipped)
    return zstandard.ZstdCompressor(level=1).compress(
        pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    )


def _resumed(kept: bytes | None, path: Path) -> tuple[AppState, int, list] | None:
    """(state, byte offset, skipped lines) kept for ``path`` by this reader, where the file
    still holds the bytes that state was read from; else None."""
    if kept is None:
        return None
    try:
        version, state, offset, digest, skipped = pickle.loads(
            zstandard.ZstdDecompressor().decompress(kept)
        )
    except Exception:  # damaged, or written by other code: read from the start
        return None
    if version != schema_version() or _digest(path, offset) != digest:
        return None
    return state, offset, skipped


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
