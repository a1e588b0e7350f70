"""Proof by remediation at size (``./dev bench verify``): a Movie Ratings job whose hot
movie has 1,000x the ratings of the others (4 daily batches of 20 movies with ~2,000 ratings
each, one with 2,000,000), traced, then ``perfx verify --without 1``: the job time with and
without that movie's line (median of 5 plain runs each, in one session) beside the lineage's
prediction. PerfDebug (section 5) measured 1.5x-16x on its jobs."""

from __future__ import annotations

import tempfile
from pathlib import Path


def main() -> None:
    from perfx.isolation.programs import movie_ratings
    from perfx.isolation.runner import run_traced, spark_session
    from perfx.verify import verify

    work = Path(tempfile.mkdtemp(prefix="perfx-bench-verify-"))
    data = work / "ratings"
    data.mkdir()
    for day in range(4):
        movie_ratings.generate(str(data / f"day-{day:02d}.txt"), 20, seed=day, ratings=2000,
                               hot_ratings=2_000_000 if day == 1 else 0)
    session, _ = spark_session("local[2]", "perfx bench verify")
    try:
        run = run_traced(movie_ratings.__file__, str(data), spark=session, store=str(work / "runs")).run_id
        result = verify(run, without=1, store=str(work / "runs"), repeats=5, spark=session)
    finally:
        session.stop()
    for line in result.lines():
        print(line)
    print(f"speedup {result.speedup:.2f}x (wanted >= 1.3x); predicted saving / measured saving "
          f"{result.predicted_saving_ms / result.measured_saving_ms:.2f} (wanted within 0.75-1.25)")
