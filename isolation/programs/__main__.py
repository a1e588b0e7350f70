"""Write a benchmark program's data set: ``python -m perfx.isolation.programs NAME OUT [RECORDS]``.

python -m perfx.isolation.programs movie_ratings ratings.txt 20000
perfx isolate isolation/programs/movie_ratings.py --input ratings.txt
"""

from __future__ import annotations

import importlib
import sys

from perfx.isolation.programs import PROGRAMS

DEFAULT_RECORDS = {
    "movie_ratings": 20_000,
    "college_student": 200_000,
    "weather": 200_000,
    "taxi": 100_000,
}


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or argv[0] not in PROGRAMS:
        print(
            f"usage: python -m perfx.isolation.programs {{{','.join(PROGRAMS)}}} OUT [RECORDS]",
            file=sys.stderr,
        )
        return 2
    name, out = argv[0], argv[1]
    records = int(argv[2]) if len(argv) == 3 else DEFAULT_RECORDS[name]
    module = importlib.import_module(f"perfx.isolation.programs.{name}")
    extra = {"hot_ratings": 200 * 1000} if name == "movie_ratings" else {}
    module.generate(out, records, **extra)
    print(f"wrote {records:,} {name} records to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
