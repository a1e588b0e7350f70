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
356-391 MB, in the same time; glibc's starting threshold, 128 KB, costs 0.4 s of page faults
there. With another C library (no ``mallopt``) nothing changes.
"""

from __future__ import annotations

import ctypes

MMAP_THRESHOLD = 4 << 20
"""Requests of more bytes than this get a mapping of their own: a column of 500,000 floats,
not a small object's."""
M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter (malloc.h)."""


def return_large_blocks() -> None:
    """Set the C library's mmap threshold to ``MMAP_THRESHOLD``, where it has ``mallopt``."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no such C library, or no mallopt
        return
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
