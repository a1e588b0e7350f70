"""A data-skew job for the chain tests: lines ``key,value``, summed per key. One input file
holds twelve times the lines of the others, most of them one key: its task reads 12x the
records at the same cheap cost per record (data skew, not computation skew)."""

from __future__ import annotations

from operator import add


def parse(line: str) -> tuple[str, int]:
    key, value = line.split(",")
    return key, int(value)


def pipeline(ctx, input_path: str):
    return ctx.textFile(input_path).map(parse).reduceByKey(add)


def generate(
    folder: str, files: int = 8, lines: int = 20_000, heavy_file: int = 3, hot_key: str = "hot"
) -> None:
    """``files`` files of ``lines`` lines over keys k0..k199; file ``heavy_file`` has 12x the
    lines, 80 % of them of ``hot_key``."""
    import random
    from pathlib import Path

    Path(folder).mkdir(parents=True, exist_ok=True)
    rng = random.Random(5)
    for f in range(files):
        heavy = f == heavy_file
        with open(Path(folder) / f"part-{f:02d}.txt", "w") as out:
            for _ in range(lines * (12 if heavy else 1)):
                key = hot_key if heavy and rng.random() < 0.8 else f"k{rng.randrange(200)}"
                out.write(f"{key},{rng.randrange(100)}\n")
