"""The input of the regex scripts here: files of short word lines, and in one file a few
long lines of one letter ending in another, on which their regex backtracks (``^(a+)+$``
costs about twice as much per extra letter)."""

from __future__ import annotations

import random
from pathlib import Path

SLOW = {2: (501, 1701, 2601)}
"""File number -> the line numbers (from 1) of its pathological lines."""

PATHOLOGICAL = "a" * 21 + "!"


def write_lines(
    folder: Path,
    files: int = 4,
    lines: int = 3000,
    slow: dict | None = None,
    pathological: str = PATHOLOGICAL,
) -> set[tuple[str, int]]:
    """``files`` files of ``lines`` short word lines each, with the ``pathological`` lines of
    ``slow`` (default ``SLOW``); returns their (resolved path, line number)."""
    slow = SLOW if slow is None else slow
    folder.mkdir(parents=True, exist_ok=True)
    words = ["alpha", "beta", "gamma", "x1", "y22"]
    draw = random.Random(31)
    found = set()
    for number in range(files):
        path = folder / f"part-{number}.txt"
        out = []
        for line in range(1, lines + 1):
            if line in slow.get(number, ()):
                out.append(pathological)
                found.add((str(path.resolve()), line))
            else:
                out.append(" ".join(draw.choice(words) for _ in range(6)))
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return found
