"""Movie Ratings (PerfDebug sections 3 and 5.4, PUMA): the number of ratings per rating
score, with flatMap + reduceByKey.

Input: one movie per line, ``movie_id:user_rating,user_rating,...`` e.g.
``127142:2628763_4,2206105_4,802003_3``. A movie with far more ratings than the others
makes its task slow: the computation skew perfx isolates.

    perfx isolate isolation/programs/movie_ratings.py --input ratings.txt
"""

from __future__ import annotations

import random
from operator import add

from perfx.isolation.programs import with_delay


def rating_counts(line: str) -> list[tuple[int, int]]:
    """(rating, count) for each rating score of one movie (lines 3-10 of the paper's Fig. 1)."""
    _, ratings = line.split(":", 1)
    counts: dict[int, int] = {}
    for pair in ratings.split(","):
        rating = int(pair[pair.rindex("_") + 1 :])
        counts[rating] = counts.get(rating, 0) + 1
    return list(counts.items())


def pipeline(ctx, input_path: str, delay=None):
    return ctx.textFile(input_path).flatMap(with_delay(rating_counts, delay)).reduceByKey(add)


def generate(
    path: str, records: int, seed: int = 7, ratings: int = 20, hot_ratings: int = 0
) -> None:
    """``records`` movies with about ``ratings`` ratings each; with ``hot_ratings``, one
    movie at a random line has that many (the paper's movie 129707)."""
    rng = random.Random(seed)
    hot = rng.randrange(records) if hot_ratings else -1
    with open(path, "w") as out:
        for line in range(records):
            count = hot_ratings if line == hot else max(1, int(rng.expovariate(1 / ratings)))
            pairs = ",".join(
                f"{rng.randrange(1, 2_700_000)}_{rng.choice((1, 2, 3, 3, 4, 4, 4, 5, 5))}"
                for _ in range(count)
            )
            out.write(f"{100000 + line}:{pairs}\n")
