"""A line's digest, computed alike for one line (a row a UDF read, on the worker) and for
every line of a block of input at once (locating those rows in the input, on the driver).

A digest is ``LENGTH-SAMPLE-HASH``: the line's length, 64 bits sampled from its first,
middle and last 8 bytes, and 8 bytes of BLAKE2b. The sample is what makes locating cheap:
numpy reads it for every line of a block at once from the block's bytes (the line ends, and
three 8-byte loads at each line's start, middle and end), with no Python call per line; only
a line whose length and sample are wanted is hashed with BLAKE2b to confirm it. Splitting a
block into lines and taking each one's CRC, as this did before, cost about as much as the
traced script's UDF calls on short lines (a third of a second for 400,000 lines).
"""

from __future__ import annotations

import hashlib

import numpy as np

_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], np.uint64)
"""The low ``n`` bytes of a word, for a line of ``n`` < 8 bytes (index 8: all of them)."""


def digest(line: bytes) -> str:
    """The digest of one line (its text, without its end of line)."""
    n = len(line)
    at = [0, (n - 8) // 2, n - 8] if n >= 8 else [0, 0, 0]
    words = np.array([int.from_bytes(line[i : i + 8], "little") for i in at], np.uint64)
    return f"{n}-{int(_mixed(*words)):016x}-{_blake(line)}"


def _mixed(first, middle, last):
    """The sample of three words (numpy uint64 scalars or arrays alike)."""
    return first ^ _rotated(middle, 21) ^ _rotated(last, 42)


def _rotated(word, bits: int):
    return (word << np.uint64(bits)) | (word >> np.uint64(64 - bits))


def _blake(line: bytes) -> str:
    return hashlib.blake2b(line, digest_size=8).hexdigest()


def find(data: bytes, wanted: set[str]) -> tuple[list[tuple[str, list[int], list[int]]], int]:
    """The wanted lines of ``data`` (a block of whole lines; the last may lack its end of
    line): (digest, byte offsets in ``data``, line indexes from 0) of each, in the order of
    their first line, each one's offsets and indexes in order; and how many lines ``data``
    has. A line ends as Hadoop's LineRecordReader (Spark's text, CSV and JSON lines
    sources) ends it: at ``\\r\\n``, ``\\n`` or a lone ``\\r``."""
    raw = np.frombuffer(data, np.uint8)
    lf, cr = raw == 10, raw == 13
    lone_cr = cr & ~np.append(lf[1:], False)
    breaks = np.flatnonzero(lf | lone_cr)  # each line end's last byte
    crlf = lf[breaks] & (breaks > 0) & cr[np.maximum(breaks - 1, 0)]  # its CR ends the text
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks - crlf, [len(data)]))
    if not data or data.endswith((b"\n", b"\r")):  # no line after the last end of line
        starts, ends = starts[:-1], ends[:-1]
    if not wanted:
        return [], len(starts)
    keys = {(int(n), int(sample, 16)) for n, sample, _ in (d.split("-", 2) for d in wanted)}
    sizes = ends - starts
    ahead = np.flatnonzero(
        np.isin(sizes, np.fromiter({n for n, _ in keys}, np.int64), kind="table")
    )
    if not len(ahead):
        return [], len(starts)
    # every 8-byte word of the block, at every byte (padded: a word may run past the end)
    padded = np.frombuffer(data + bytes(8), np.uint8)
    words = np.ndarray((len(data) + 1,), "<u8", padded, 0, (1,))
    start, size = starts[ahead], sizes[ahead]
    long = size >= 8
    first = words[start] & _MASKS[np.minimum(size, 8)]
    middle = np.where(long, words[start + np.maximum(size - 8, 0) // 2], first)
    last = np.where(long, words[np.maximum(start + size - 8, 0)], first)
    samples = _mixed(first, middle, last)
    known = np.fromiter({sample for _, sample in keys}, np.uint64)
    low = np.zeros(1 << 16, bool)  # a sample's low 16 bits first: one look-up a line
    low[(known & np.uint64(0xFFFF)).astype(np.intp)] = True
    maybe = np.flatnonzero(low[(samples & np.uint64(0xFFFF)).astype(np.intp)])
    hits = ahead[maybe[np.isin(samples[maybe], known)]]
    by_line: dict[bytes, list[int]] = {}
    for k, begin, end in zip(hits.tolist(), starts[hits].tolist(), ends[hits].tolist()):
        by_line.setdefault(data[begin:end], []).append(k)
    found = []
    for line, indexes in by_line.items():
        key = digest(line)
        if key in wanted:
            found.append((key, starts[indexes].tolist(), indexes))
    return found, len(starts)
