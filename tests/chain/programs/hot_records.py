"""Expensive records behind a combine: lines ``key,value`` summed per key, where parsing a
line of ``hot_key`` costs ``HOT_COST_S`` (a lookup the other keys skip). One file holds the hot
lines; each of them costs the same, so none leads its group's output by itself: the test of
a credit that a combine must not dilute (issue 29, "full credit")."""

from __future__ import annotations

import time
from operator import add

HOT_COST_S = 0.022
"""What parsing one hot line costs, at least (a sleep)."""


def parse(line: str) -> tuple[str, int]:
    key, value = line.split(",")
    if key.startswith("hot"):
        time.sleep(HOT_COST_S)
    return key, int(value)


def pipeline(ctx, input_path: str):
    return ctx.textFile(input_path).map(parse).reduceByKey(add)


def generate(
    folder: str, files: int = 4, lines: int = 2000, hot: int = 40, hot_file: int = 1, seed: int = 7
) -> list[int]:
    """``files`` files of ``lines`` lines over keys k0..k99; file ``hot_file`` also holds
    ``hot`` lines of the key ``hot``, scattered among its others. Returns the byte offsets of
    the hot lines in that file."""
    import random
    from pathlib import Path

    Path(folder).mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    offsets = []
    for f in range(files):
        rows = [f"k{rng.randrange(100)},{rng.randrange(100)}" for _ in range(lines)]
        if f == hot_file:
            for at in sorted(rng.sample(range(lines), hot), reverse=True):
                rows.insert(at, f"hot,{rng.randrange(100)}")
        at = 0
        with open(Path(folder) / f"part-{f:02d}.txt", "w") as out:
            for row in rows:
                if row.startswith("hot"):
                    offsets.append(at)
                out.write(row + "\n")
                at += len(row) + 1
    return offsets
