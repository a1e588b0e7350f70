"""A line's digest, computed alike for one line (a row a UDF read, on the worker) and for
every line of a block of input at once (locating those rows in the input, on the driver).

A digest is ``LENGTH-HASH``: the hash is a weighted sum of the line's bytes, modulo 2^64,
whose weight at byte position *i* is ``splitmix64(i)``. Unlike a cryptographic hash it can
be computed for all the lines of a block with a few numpy operations over its bytes (a
running sum, differenced at the lines' ends), so locating a script's rows in its input costs
no Python call per line; two different lines of one length collide with probability about
2^-64.
"""

from __future__ import annotations

import numpy as np

_GOLDEN, _MIX1, _MIX2 = (
    np.uint64(0x9E3779B97F4A7C15),
    np.uint64(0xBF58476D1CE4E5B9),
    np.uint64(0x94D049BB133111EB),
)


def _weights(positions: np.ndarray) -> np.ndarray:
    """``splitmix64`` of each position (uint64, wrapping as the function does)."""
    with np.errstate(over="ignore"):
        z = positions.astype(np.uint64) + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        return z ^ (z >> np.uint64(31))


def digest(line: bytes) -> str:
    """The digest of one line (its text, without its end of line)."""
    data = np.frombuffer(line, np.uint8).astype(np.uint64)
    with np.errstate(over="ignore"):
        total = (data * _weights(np.arange(len(line)))).sum(dtype=np.uint64)
    return key(len(line), int(total))


def key(length: int, hashed: int) -> str:
    return f"{length}-{hashed:016x}"


def parse(digest: str) -> tuple[int, int]:
    """(length, hash) of a digest."""
    length, hashed = digest.split("-", 1)
    return int(length), int(hashed, 16)


def lines(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(starts, stops) of the lines of ``data`` (a block of whole lines; the last may lack
    its end of line): a line runs from its start to its stop, its ``\\n`` or ``\\r\\n`` left
    out."""
    raw = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(raw == 10)
    if not len(ends) or ends[-1] != len(data) - 1:  # a last line without its \n
        ends = np.append(ends, len(data))
    starts = np.concatenate(([0], ends[:-1] + 1)).astype(np.int64)
    stops = ends.astype(np.int64)
    cr = stops > starts
    cr[cr] = raw[stops[cr] - 1] == 13
    stops[cr] -= 1
    return starts, stops


def hashes(data: bytes, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """The hash of each line ``starts[k]:stops[k]`` of ``data`` (as ``digest``'s, all at
    once: each byte weighted by its position in its line, summed by a running sum)."""
    if not len(starts):
        return np.zeros(0, np.uint64)
    raw = np.frombuffer(data, np.uint8).astype(np.uint64)
    spans = np.diff(np.append(starts, len(data)))  # each line with its end of line
    positions = np.arange(len(data), dtype=np.int64) - np.repeat(starts, spans)
    with np.errstate(over="ignore"):
        weighted = raw * _weights(np.arange(int(spans.max())))[positions]
        running = np.concatenate(([np.uint64(0)], np.cumsum(weighted, dtype=np.uint64)))
        return running[stops] - running[starts]
