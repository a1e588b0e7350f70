"""A line's digest, computed alike for one line (a row a UDF read, on the worker) and for
the lines of a block of input (locating those rows in the input, on the driver).

A digest is ``LENGTH-CRC-HASH``: the line's length, its CRC-32 and 8 bytes of BLAKE2b. A
block's lines are split and CRC'd by C code (``bytes.split``, ``zlib.crc32``), a fraction of
a microsecond a line, and only a line whose length and CRC are wanted is hashed with BLAKE2b
to confirm it: locating a script's rows costs no Python work per line beyond one call, and
two different lines match with probability about 2^-96.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterator

import numpy as np


def digest(line: bytes) -> str:
    """The digest of one line (its text, without its end of line)."""
    return f"{len(line)}-{zlib.crc32(line):08x}-{_blake(line)}"


def _blake(line: bytes) -> str:
    return hashlib.blake2b(line, digest_size=8).hexdigest()


def find(data: bytes, wanted: set[str]) -> Iterator[tuple[int, int, str]]:
    """(byte offset in ``data``, line index from 0, digest) of each line of ``data`` (a block
    of whole lines; the last may lack its end of line) whose digest is ``wanted``, in order.
    A line ends at ``\\n``, which, with a ``\\r`` before it, is not part of the line."""
    keys = {(int(n), int(crc, 16)) for n, crc, _ in (d.split("-", 2) for d in wanted)}
    parts = data.split(b"\n")
    if data.endswith(b"\n"):
        parts.pop()
    lines = [p[:-1] if p.endswith(b"\r") else p for p in parts] if b"\r" in data else parts
    crcs = np.fromiter(map(zlib.crc32, lines), np.int64, len(lines))
    sizes = np.fromiter(map(len, lines), np.int64, len(lines))
    lengths = np.fromiter({n for n, _ in keys}, np.int64)
    hits = np.flatnonzero(
        np.isin(sizes, lengths) & np.isin(crcs, np.fromiter({c for _, c in keys}, np.int64))
    )
    if not len(hits):
        return
    starts = np.concatenate(([0], np.flatnonzero(np.frombuffer(data, np.uint8) == 10) + 1))
    for k in hits.tolist():
        line = lines[k]
        found = f"{len(line)}-{int(crcs[k]):08x}-{_blake(line)}"
        if found in wanted:
            yield int(starts[k]), k, found
