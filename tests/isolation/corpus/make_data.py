"""The corpus programs' inputs, written from a seed: ``python -m tests.isolation.corpus.make_data``
rewrites ``data/`` (committed; tests/isolation/test_corpus.py checks that it is what this writes).

Each input is small (a traced run of every program in both lineage modes stays quick) and holds
what breaks a tracer: one key far more frequent than the rest, non-ASCII text, duplicate
records, and, for the text programs, a folder whose second file is empty (an empty partition).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

VOCABULARY = (
    "spark shuffle stage task record lineage join key value partition driver executor "
    "café naïve straße Ærø 東京 データ κόσμος привет 🚀 emoji"
).split()
HOT_WORD = "the"
"""One word in about a third of all word slots: the skewed key of the word counts."""


def words(rng: random.Random, lines: int = 300) -> str:
    """Lines of words with single spaces, some doubled (an empty word) and some blank lines."""
    out = []
    for _ in range(lines):
        if rng.random() < 0.05:
            out.append("")
            continue
        count = rng.randint(1, 12)
        chosen = [HOT_WORD if rng.random() < 0.35 else rng.choice(VOCABULARY) for _ in range(count)]
        line = " ".join(chosen)
        if rng.random() < 0.1:
            line = line.replace(" ", "  ", 1)
        out.append(line)
    return "\n".join(out) + "\n"


def numbers(rng: random.Random, lines: int = 200) -> str:
    """Space-separated integers, a third of them the same value (a hot sort key)."""
    rows = []
    for _ in range(lines):
        row = [42 if rng.random() < 0.33 else rng.randint(-1000, 1000) for _ in range(5)]
        rows.append(" ".join(map(str, row)))
    return "\n".join(rows) + "\n"


def links(rng: random.Random, pages: int = 80, edges: int = 600) -> str:
    """``page neighbour`` pairs: a hub page most pages link to, non-ASCII page names and
    duplicate links (the programs drop them with ``distinct``)."""
    names = [f"page{i}" for i in range(pages - 3)] + ["café", "東京", "straße"]
    rows = []
    for _ in range(edges):
        src = rng.choice(names)
        dst = "hub" if rng.random() < 0.3 else rng.choice(names)
        if src != dst:
            rows.append(f"{src} {dst}")
    rows += [f"hub {rng.choice(names)}" for _ in range(5)]
    rows += rows[:20]
    return "\n".join(rows) + "\n"


def points(rng: random.Random, count: int = 300) -> str:
    """3-D points around three centres, most of them in the first (a dense cluster)."""
    centres = ((0.0, 0.0, 0.0), (5.0, 5.0, 5.0), (-5.0, 5.0, 0.0))
    rows = []
    for _ in range(count):
        centre = centres[0] if rng.random() < 0.7 else rng.choice(centres[1:])
        rows.append(" ".join(f"{c + rng.gauss(0, 0.5):.4f}" for c in centre))
    return "\n".join(rows) + "\n"


def labelled_points(rng: random.Random, count: int = 300, dimensions: int = 10) -> str:
    """``label x1 ... x10`` rows, label +1 or -1, the classes shifted apart."""
    rows = []
    for _ in range(count):
        label = 1 if rng.random() < 0.5 else -1
        features = [rng.gauss(0.7 * label, 1.0) for _ in range(dimensions)]
        rows.append(" ".join([str(label), *(f"{x:.4f}" for x in features)]))
    return "\n".join(rows) + "\n"


def time_series(rng: random.Random, count: int = 500) -> str:
    """``name,time,value`` rows for secondary sort: one name holds half of them."""
    names = ["x", "y", "z", "zoë", "東京"]
    rows = []
    for _ in range(count):
        name = "hot" if rng.random() < 0.5 else rng.choice(names)
        rows.append(f"{name},{rng.randint(1, 60)},{rng.randint(0, 99)}")
    return "\n".join(rows) + "\n"


def files(seed: int = 29) -> dict[str, str]:
    """Path under ``data/`` -> content."""
    rng = random.Random(seed)
    return {
        "words/part-0.txt": words(rng),
        "words/part-1.txt": "",
        "numbers.txt": numbers(rng),
        "links.txt": links(rng),
        "points.txt": points(rng),
        "labelled_points.txt": labelled_points(rng),
        "time_series.txt": time_series(rng),
    }


def write(folder: Path = DATA) -> None:
    for name, text in files().items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA)
