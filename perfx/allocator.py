"""The C library's allocator set for a command's large, short-lived arrays (the command
line's process only: a library does not tune its host's allocator).

glibc's malloc serves a request below its *mmap threshold* from its heap, and raises that
threshold, up to 32 MB, each time a block above it is freed; a heap block freed below the
heap's top stays in the process. Building a large log's tables frees arrays of a few MB to
tens of MB (rows turned into columns, columns into a frame): the threshold rises, and what
is allocated after them (the straggler analysis, the features, the answer) lands in the heap
around the holes they left, which the process keeps. A fixed threshold (``mallopt``, which
also stops the rise) gives every array above ``MMAP_THRESHOLD`` its own mapping, returned to
the system when freed. On the 150,000-task log of ``./dev bench load``, a first
``perfx explain`` peaks at 374 MB instead of 402 MB, a cached one at 324-340 MB instead of
356-391 MB; glibc's starting threshold, 128 KB, costs 0.4 s of page faults there.

What a loaded log's reading freed below that threshold (a cached table's Arrow columns,
turned into pandas, are 1.2 MB each for 150,000 tasks) is still the heap's: once the log is
loaded, ``malloc_trim`` hands its free pages back. A cached ``perfx explain`` on that log
then peaks at 318-322 MB instead of 330-385 MB, in the same time.

A fixed mmap threshold also fixes the *trim threshold* at glibc's default, 128 KB: the heap
was handed back to the system each time more than that was free at its top, and faulted in
again as it grew (0.03-0.05 s of building the tables of that log). It is set as glibc sets
it while its thresholds move: twice the mmap threshold. With another C library (no
``mallopt``) nothing changes.
"""

from __future__ import annotations

import ctypes

MMAP_THRESHOLD = 4 << 20
"""Requests of more bytes than this get a mapping of their own: a column of 500,000 floats,
not a small object's."""
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD
"""Free bytes at the heap's top kept for the next allocations rather than handed back."""
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
"""glibc's ``mallopt`` parameters (malloc.h)."""


def _libc() -> ctypes.CDLL | None:
    """The process's C library, or None where it cannot be loaded."""
    try:
        return ctypes.CDLL(None)
    except (OSError, TypeError):
        return None


def return_large_blocks() -> None:
    """Set the C library's mmap threshold to ``MMAP_THRESHOLD`` and its trim threshold to
    ``TRIM_THRESHOLD``, where it has ``mallopt``."""
    mallopt = getattr(_libc(), "mallopt", None)  # glibc's, not another C library's
    if mallopt is not None:
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)


def hand_back_free_pages() -> None:
    """Return the heap's free pages to the system (glibc's ``malloc_trim``; nothing with
    another C library): what a log's loading freed, before the command's own work."""
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is not None:
        trim(0)
