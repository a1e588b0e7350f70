"""Writes the chain tests' fixture: Movie Ratings input (24 daily batches, one movie of day 9
with 300,000 ratings) and the event log of one plain run of the program on it, in its own
local[2] application with Spark 4's default event log (rolling, zstd): the "slow production
run" whose log a user has. ``python -m tests.chain.make_slow_run`` rewrites
``tests/data/chain/``; the tests then trace the same input in their own session and link
the two runs by stage position (perfx/chain.py, rule 2)."""

from __future__ import annotations

import shutil

from tests.data_files import fixture_log

HERE = fixture_log("chain")
HOT_DAY, HOT_RATINGS, MOVIES = 9, 300_000, 150


def main() -> None:
    from perfx.demo import write_batches
    from perfx.isolation.programs import movie_ratings
    from perfx.isolation.runner import session_builder

    shutil.rmtree(HERE, ignore_errors=True)
    HERE.mkdir(parents=True)
    write_batches(HERE / "ratings", MOVIES, {HOT_DAY: HOT_RATINGS}, seed=3)
    spark = session_builder("local[2]", "movie_ratings.py", str(HERE / "slow-run")).getOrCreate()
    try:
        # Python workers and Hadoop's text input warm before the job: its first tasks would
        # pay for starting them and hide the hot movie behind a cold start.
        spark.sparkContext.textFile(str(HERE / "ratings" / "day-00.txt"), 2).map(len).count()
        movie_ratings.pipeline(spark.sparkContext, str(HERE / "ratings")).collect()
    finally:
        spark.stop()
    print(f"wrote {HERE}")


if __name__ == "__main__":
    main()
