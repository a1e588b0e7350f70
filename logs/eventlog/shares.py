"""Several event logs read on every core: the sources are cut into contiguous shares of
about equal bytes, one per core; forked children read every share but the first, which this
process reads, and send back their application states and skipped lines (pickled), taken in
the order of the shares, so that the states and the skipped lines are those one process
reads in order.

A folder of many logs is read one log at a time otherwise, each in a Python loop over its
lines. While the shares are read at once, no large log is also split in two
(eventlog.halves): the cores are taken. Without a second core, from a process with threads
(logs.background), for one source, or below ``MIN_BYTES`` in all, the sources are read here,
in order.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .. import background
from ..model import SkippedLine
from .build import AppState, name_app, read_app
from .open import EventLogSource

MIN_BYTES = 16 << 20
"""Sources of fewer bytes in all are read in one process: a fork and the pickled states sent
back would cost more than reading a share saves."""
COMPRESSED_WEIGHT = 6
"""A compressed part's bytes count this many times when the shares are cut: the bytes read
are the decompressed ones (Spark's codecs shrink event logs 4-10 times)."""


def read_states(
    sources: list[EventLogSource],
    skipped: list[SkippedLine],
    progress: Callable[[int], None] | None = None,
) -> list[AppState]:
    """Each source's application state, in order; bad lines and unreadable files go to
    ``skipped``, in the order of the sources. ``progress`` hears of a child's share when it
    arrives."""
    shares = _shares(sources)
    later = [background.Background.start(_read_apart, share) for share in shares[1:]]
    states = _read(shares[0], skipped, progress, split=not later)
    for share, job in zip(shares[1:], later):
        read, skipped_there = job.result()
        states += read
        skipped += skipped_there
        if progress is not None:
            progress(sum(_size(source) for source in share))
    return states


def _read(
    sources: list[EventLogSource],
    skipped: list[SkippedLine],
    progress: Callable[[int], None] | None,
    split: bool,
) -> list[AppState]:
    def skip(path: str, line: int, reason: str) -> None:
        skipped.append(SkippedLine(path, line, reason))

    states = []
    for source in sources:
        state = read_app(source, skip, progress, split=split)
        name_app(state, source)
        states.append(state)
    return states


def _read_apart(sources: list[EventLogSource]) -> tuple[list[AppState], list[SkippedLine]]:
    """A share read by a child: its states and its skipped lines."""
    skipped: list[SkippedLine] = []
    return _read(sources, skipped, None, split=False), skipped


def _shares(sources: list[EventLogSource]) -> list[list[EventLogSource]]:
    """``sources`` cut into contiguous runs of about equal weight, at most one per core (one
    run where they are read in one process)."""
    cores = min(os.cpu_count() or 1, len(sources))
    if cores < 2 or not background.can_fork():
        return [sources]
    weights = [_weight(source) for source in sources]
    total = sum(weights)
    if total <= 0 or total < MIN_BYTES:
        return [sources]
    # each source goes to the share its middle byte falls in: a heavy one is not left
    # to the last share, nor does it take a light one's place
    shares: dict[int, list[EventLogSource]] = {}
    done = 0
    for source, weight in zip(sources, weights):
        share = min(int((done + weight / 2) * cores / total), cores - 1)
        shares.setdefault(share, []).append(source)
        done += weight
    return list(shares.values())


def _size(source: EventLogSource) -> int:
    """Its bytes on disk, as ``read_app`` reports them read; 0 for a part that is gone."""
    try:
        return source.size
    except OSError:
        return 0


def _weight(source: EventLogSource) -> int:
    """About how many bytes reading it decodes: its parts' sizes, the compressed ones counted
    ``COMPRESSED_WEIGHT`` times."""
    weight = 0
    for part, codec in zip(source.parts, source.codecs):
        try:
            weight += part.stat().st_size * (COMPRESSED_WEIGHT if codec else 1)
        except OSError:
            pass
    return weight
