"""One large plain event log read on two cores: a forked child reads the second half of its
lines while the reader (build.read_app) reads the first, then the child's lines are replayed
in their order, so that the state is the one a single pass builds.

What costs is what the child does: the typed decode of each successful TaskEnd (fastend), the
id of each TaskStart, passing over the events perfx does not use. It sends those back as
arrays (a row of floats per TaskEnd: the values one pass turns into floats too), with the
byte offsets of their lines. The rows of floats, most of what it sends (33 MB for 150,000
tasks), it writes to a memory file the reader made before the fork (Linux's ``memfd``), which
the reader maps once the child is done: pickled, piped and unpickled, they kept the reader
waiting 0.04-0.05 s. Every other line comes back whole and takes the reader's own path
(build.OtherLines), in its place. A TaskEnd of a task that already ended is read again from
its offset for that path, and so is a TaskStart that never ends, when the running tasks are
closed. Without a second core, for a compressed or rolled log, or below ``MIN_BYTES``, the
log is read in one pass.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import background
from .events import TASK_NUMERIC
from .lines import TASK_END_PREFIXES, TASK_START_PREFIXES, fast_end, task_id_of
from .open import EventLogSource

MIN_BYTES = 64 << 20
"""Logs smaller than this are read in one pass: the fork and the replay would cost more than
reading half of them saves."""
BUFFER = 1 << 20
BLOCK_ROWS = 8192

END, START, OTHER, PASSED = b"E", b"S", b"O", b"P"
"""What each line of the second half is: a TaskEnd of the fast path, a TaskStart with its
id, an event the reader passes over unread (build.passed_over: nothing sent back), anything
else (sent back whole)."""


@dataclass(frozen=True)
class Split:
    """A plain log file, the offset of the first line of its second half, and where the
    reading stops (its size, or the end of its last complete line: logs.eventlog.growing)."""

    path: Path
    start: int
    end: int


@dataclass
class SecondHalf:
    """What the child read of the second half: one kind per line (``END``, ``START``,
    ``OTHER``), and per kind what the reader needs of it, in the order of the lines."""

    kinds: bytes
    end_values: np.ndarray | None
    """One row per TaskEnd (events.TASK_NUMERIC order), or None where they are in the row
    file (``read_later``): as many as ``end_nominal`` holds."""
    end_nominal: list[tuple]
    end_offsets: np.ndarray
    start_ids: list[int]
    start_offsets: np.ndarray
    others: list[bytes]
    size: int
    last: bytes
    """The last line (where the log ends: ``AppState.last``)."""


def split(source: EventLogSource, until: int | None = None) -> Split | None:
    """Where to split ``source`` (its bytes before ``until``, a line's end, where given) in
    two, or None where it is read in one pass."""
    if len(source.parts) != 1 or any(source.codecs) or not background.can_fork():
        return None
    path = Path(source.parts[0])
    try:
        size = path.stat().st_size if until is None else until
        if size < MIN_BYTES:
            return None
        with open(path, "rb") as file:
            file.seek(size // 2)
            file.readline()  # the rest of the line the middle falls in
            start = file.tell()
    except OSError:
        return None
    return Split(path, start, size) if start < size else None


def lines_between(
    path: Path, start: int, end: int, count: int = 0
) -> Iterator[tuple[str, int, bytes]]:
    """(path, line number, line) of the lines of ``path`` from byte ``start`` (a line's
    start) to byte ``end`` (a line's end), numbered after ``count``, as ``open.iter_lines``
    gives them: the first half of a split log, a log's complete lines, those appended."""
    name = str(path)
    offset = start
    with open(path, "rb", buffering=BUFFER) as file:
        file.seek(start)
        for line in file:
            if offset >= end:
                return
            offset += len(line)
            count += 1
            yield name, count, line


def read_later(
    split: Split, passed_over: Callable[[bytes], bool]
) -> background.Background[SecondHalf]:
    """The second half, read by a forked child from now on; ``passed_over`` tells the lines
    the reader would pass over unread. The child writes its rows of floats to a memory file
    made here (``replay`` maps it, then closes it), where the system has one."""
    try:
        rows: int | None = os.memfd_create("perfx-second-half", os.MFD_CLOEXEC)
    except (AttributeError, OSError):  # not Linux, or no memory for it: the rows are sent
        rows = None
    return background.Background.start(_read_second_half, split, passed_over, rows)


@dataclass
class _Lists:
    kinds: bytearray = field(default_factory=bytearray)
    end_blocks: list[np.ndarray] = field(default_factory=list)
    end_values: list[tuple] = field(default_factory=list)
    """The TaskEnds' values since the last block: a block of ``BLOCK_ROWS`` becomes one float
    array at once, so that the child does not hold every row as Python integers."""
    end_nominal: list[tuple] = field(default_factory=list)
    end_offsets: list[int] = field(default_factory=list)
    start_ids: list[int] = field(default_factory=list)
    start_offsets: list[int] = field(default_factory=list)
    others: list[bytes] = field(default_factory=list)


def _read_second_half(
    split: Split, passed_over: Callable[[bytes], bool], rows: int | None
) -> SecondHalf:
    """What the child reads (``read_later``): the rows of floats go to the file ``rows``, a
    block at a time, where there is one."""
    read = _Lists()
    written = 0

    def block_done() -> None:
        nonlocal written
        block = np.array(read.end_values, dtype=np.float64).reshape(-1, len(TASK_NUMERIC))
        read.end_values = []
        if rows is None:
            read.end_blocks.append(block)
            return
        data = block.data.cast("B") if len(block) else memoryview(b"")
        while data:
            sent = os.pwrite(rows, data, written)
            written, data = written + sent, data[sent:]

    kinds = read.kinds
    # one tuple object per distinct nominal row (most tasks share theirs): pickled once, the
    # other rows as references to it
    distinct: dict[tuple, tuple] = {}
    offset = split.start
    last = b""
    with open(split.path, "rb", buffering=BUFFER) as file:
        file.seek(split.start)
        for line in file:
            if offset >= split.end:
                break
            if line.startswith(TASK_END_PREFIXES) and (fast := fast_end(line)) is not None:
                kinds += END
                read.end_values.append(fast[0])
                if len(read.end_values) >= BLOCK_ROWS:
                    block_done()
                read.end_nominal.append(distinct.setdefault(fast[1], fast[1]))
                read.end_offsets.append(offset)
            elif line.startswith(TASK_START_PREFIXES) and (task_id := task_id_of(line)) is not None:
                kinds += START
                read.start_ids.append(task_id)
                read.start_offsets.append(offset)
            elif passed_over(line):
                kinds += PASSED
            else:
                kinds += OTHER
                read.others.append(line)
            offset += len(line)
            last = line
    block_done()
    return SecondHalf(
        kinds=bytes(kinds),
        end_values=None if rows is not None else np.concatenate(read.end_blocks),
        end_nominal=read.end_nominal,
        end_offsets=np.array(read.end_offsets, dtype=np.int64),
        start_ids=read.start_ids,
        start_offsets=np.array(read.start_offsets, dtype=np.int64),
        others=read.others,
        size=offset - split.start,
        last=last,
    )


def replay(
    later: background.Background[SecondHalf], state: Any, other: Any, first_count: int
) -> tuple[tuple[str, int, bytes], int]:
    """Hand the second half's lines to ``state`` (the reader's ``AppState``) and ``other``
    (its ``OtherLines``) in their order, numbered on from the first half's ``first_count``
    lines. Returns the last line's (path, number, line) and the second half's bytes.

    Between two other lines, the TaskStarts and TaskEnds are handed over together: the starts
    first, then the ends in one block (``AppState.add_decoded_ends``). That is the order of
    the lines except for a start logged after its own end, which a single pass keeps as
    running and then drops as ended, and which this drops at once: the state is the same."""
    rows = later.args[2]
    try:
        half = later.result()
        end_values = half.end_values
        if end_values is None:  # in the row file
            end_values = _mapped(rows, len(half.end_nominal))
    finally:
        if rows is not None:
            os.close(rows)
    path = str(later.args[0].path)
    kinds = np.frombuffer(half.kinds, dtype=np.uint8)
    is_end, is_start = kinds == END[0], kinds == START[0]
    ends_before = np.concatenate(([0], np.cumsum(is_end)))
    starts_before = np.concatenate(([0], np.cumsum(is_start)))
    end_numbers = (first_count + 1 + np.flatnonzero(is_end)).tolist()
    start_numbers = (first_count + 1 + np.flatnonzero(is_start)).tolist()
    start_offsets = half.start_offsets.tolist()
    others = np.flatnonzero(kinds == OTHER[0]).tolist()
    running = state.running
    with open(path, "rb") as file:

        def read_again(row: int) -> None:  # an end of a task that already had one
            other.read(path, end_numbers[row], line_at(file, int(half.end_offsets[row])))

        begin = 0
        for stop, line in zip([*others, len(kinds)], [*half.others, None]):
            for row in range(starts_before[begin], starts_before[stop]):
                running[half.start_ids[row]] = (path, start_numbers[row], start_offsets[row])
            first, last = int(ends_before[begin]), int(ends_before[stop])
            if last > first:
                state.add_decoded_ends(
                    end_values[first:last], half.end_nominal[first:last], first, read_again
                )
            if line is not None:
                other.read(path, first_count + 1 + stop, line)
            begin = stop + 1
    return (path, first_count + len(kinds), half.last), half.size


def _mapped(rows: int, count: int) -> np.ndarray:
    """The ``count`` rows of floats of the file ``rows``, mapped (read-only: the table copies
    them); the mapping goes once no array holds it."""
    if count == 0:
        return np.empty((0, len(TASK_NUMERIC)))
    size = count * len(TASK_NUMERIC) * 8
    data = mmap.mmap(rows, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
    return np.frombuffer(data, dtype=np.float64).reshape(count, len(TASK_NUMERIC))


def line_at(file: Any, offset: int) -> bytes:
    """The line of an open log ``file`` that begins at byte ``offset``."""
    file.seek(offset)
    return file.readline()
