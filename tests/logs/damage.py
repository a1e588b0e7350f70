"""The damage real logs suffer, done to shipped logs (tests/data): a driver killed mid-write
(a cut), a disk or a copy flipping bits, relays replaying or reordering lines, tools writing a
field with another type or without it, and a compressed file under a name that says
otherwise. Each damage takes the log's bytes and a ``random.Random`` and returns new bytes;
the fuzzer (fuzzing.py) draws which damages and which seed.

``WHOLE`` damages keep every event whole (they repeat or reorder lines): a log so damaged
must give the same tables and the same answers as the original.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Callable

import orjson
import zstandard

from tests.logs.test_reader import lz4_stream, snappy_stream

Damage = Callable[[bytes, random.Random, int], bytes]
"""(log bytes, random source, header lines to keep in place) -> damaged bytes."""


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def cut(data: bytes, rng: random.Random, header: int) -> bytes:
    """The log ends early, most often inside a line."""
    return data[: rng.randrange(1, len(data))] if data else data


def flip_bytes(data: bytes, rng: random.Random, header: int) -> bytes:
    """One to three bytes changed: a bit flipped or a byte replaced (often not UTF-8)."""
    damaged = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(damaged))
        damaged[at] = (
            damaged[at] ^ (1 << rng.randrange(8)) if rng.random() < 0.5 else rng.randrange(256)
        )
    return bytes(damaged)


def delete_lines(data: bytes, rng: random.Random, header: int) -> bytes:
    lines = _lines(data)
    for _ in range(rng.randint(1, 3)):
        if len(lines) > header + 1:
            del lines[rng.randrange(header, len(lines))]
    return b"".join(lines)


def garbage_lines(data: bytes, rng: random.Random, header: int) -> bytes:
    """Lines of random bytes, a half-written event or a JSON value that is no event."""
    lines = _lines(data)
    for _ in range(rng.randint(1, 3)):
        junk = rng.choice(
            [
                bytes(rng.randrange(256) for _ in range(rng.randint(1, 80))),
                b'{"Event":"SparkListenerTaskEnd","Stage ID":',
                b"[1, 2, 3]",
                b'{"Event":"SparkListenerJobStart"}',
                b"null",
            ]
        )
        lines.insert(rng.randint(header, len(lines)), junk.replace(b"\n", b" ") + b"\n")
    return b"".join(lines)


def _other_type(value: object, rng: random.Random) -> object:
    choices = [
        "12abc",
        {"a": 1},
        [1, 2],
        None,
        True,
        1.5,
        -1,
        "",
    ]
    return rng.choice([c for c in choices if type(c) is not type(value)])


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside a JSON object (keys of objects, indices of lists)."""
    found: list[tuple] = []
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, inner in items:
        found.append((*prefix, key))
        found.extend(_paths(inner, (*prefix, key)))
    return found


def _edit_field(data: bytes, rng: random.Random, header: int, remove: bool) -> bytes:
    lines = _lines(data)
    for _ in range(10):  # a line that parses as an object with fields
        at = rng.randrange(header, len(lines)) if len(lines) > header else 0
        try:
            event = orjson.loads(lines[at])
        except orjson.JSONDecodeError:
            continue
        paths = _paths(event)
        if not paths:
            continue
        *parents, last = rng.choice(paths)
        holder = event
        for key in parents:
            holder = holder[key]
        if remove:
            del holder[last]
        else:
            holder[last] = _other_type(holder[last], rng)
        lines[at] = orjson.dumps(event) + b"\n"
        break
    return b"".join(lines)


def retype_field(data: bytes, rng: random.Random, header: int) -> bytes:
    """A field of one event given a value of another type (a tool that writes strings)."""
    return _edit_field(data, rng, header, remove=False)


def remove_field(data: bytes, rng: random.Random, header: int) -> bytes:
    """A field of one event left out."""
    return _edit_field(data, rng, header, remove=True)


def duplicate_lines(data: bytes, rng: random.Random, header: int) -> bytes:
    """Lines written twice (a relay replaying, logs concatenated), anywhere after the header."""
    lines = _lines(data)
    if not lines or not lines[-1].endswith(b"\n"):
        return data
    for _ in range(rng.randint(1, 20)):
        copy = lines[rng.randrange(header, len(lines))]
        lines.insert(rng.randint(header, len(lines)), copy)
    return b"".join(lines)


def swap_lines(data: bytes, rng: random.Random, header: int) -> bytes:
    """Two lines trade places (events delivered out of order)."""
    lines = _lines(data)
    if len(lines) > header + 1 and lines[-1].endswith(b"\n"):
        for _ in range(rng.randint(1, 5)):
            a, b = rng.randrange(header, len(lines)), rng.randrange(header, len(lines))
            lines[a], lines[b] = lines[b], lines[a]
    return b"".join(lines)


def start_after_end(data: bytes, rng: random.Random, header: int) -> bytes:
    """A task's start moved after its end (the swap that left a task twice in the table)."""
    lines = _lines(data)
    starts = [i for i, line in enumerate(lines) if b'"SparkListenerTaskStart"' in line[:40]]
    if not starts or not lines[-1].endswith(b"\n"):
        return swap_lines(data, rng, header)
    at = rng.choice(starts)
    start = lines.pop(at)
    lines.insert(rng.randint(at, len(lines)), start)
    return b"".join(lines)


def shuffle_lines(data: bytes, rng: random.Random, header: int) -> bytes:
    """A stretch of lines (up to all of them) in random order."""
    lines = _lines(data)
    if len(lines) <= header + 1 or not lines[-1].endswith(b"\n"):
        return data
    start = rng.randrange(header, len(lines))
    end = rng.choice([len(lines), rng.randint(start, len(lines))])
    middle = lines[start:end]
    rng.shuffle(middle)
    lines[start:end] = middle
    return b"".join(lines)


def zstd_frames(data: bytes, size: int = 16 << 10) -> bytes:
    """zstd as Spark writes it: a frame per flush of its buffer, without content size."""
    compress = zstandard.ZstdCompressor(write_content_size=False).compress
    return b"".join(compress(data[i : i + size]) for i in range(0, len(data), size))


COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "zstd": zstd_frames,
    "lz4": lz4_stream,
    "snappy": snappy_stream,
    "gzip": gzip.compress,
}
MISLEADING_NAMES = ("events.json", "app.lz4", "eventlog.txt", "log.gz", "part.zstd")


DAMAGES: dict[str, Damage] = {
    "cut": cut,
    "flip_bytes": flip_bytes,
    "delete_lines": delete_lines,
    "garbage_lines": garbage_lines,
    "retype_field": retype_field,
    "remove_field": remove_field,
    "duplicate_lines": duplicate_lines,
    "swap_lines": swap_lines,
    "start_after_end": start_after_end,
    "shuffle_lines": shuffle_lines,
}
"""Damage to the decompressed lines; then the fuzzer may compress the result (and cut or
flip the compressed bytes) and name it misleadingly."""

WHOLE = frozenset({"duplicate_lines", "swap_lines", "start_after_end", "shuffle_lines"})
"""Damages after which every event is still there, whole: same tables, same answers."""
