"""The chain at size, and proof by remediation (``./dev bench verify``): a Movie Ratings job
whose hot movie has 1,000x the ratings of the others (4 daily batches of 20 movies with
~2,000 ratings each, one with 2,000,000). ``perfx why`` runs it traced and names the cause
and the records; ``perfx verify --without 1`` on that run measures the job time with and
without the top culprit (median of 5 plain runs each, in one session) beside the lineage's
prediction. PerfDebug (section 5) measured 1.5x-16x on its jobs.

Issue 13's acceptance: computation skew named in the hot movie's task, its line first with
its share of the task's time, >= 1.3x faster without it, and the predicted saving within
25 % of the measured one."""

from __future__ import annotations

import tempfile
from pathlib import Path


def main() -> None:
    from perfx.isolation.programs import movie_ratings
    from perfx.verify import verify
    from perfx.why import why

    work = Path(tempfile.mkdtemp(prefix="perfx-bench-verify-"))
    data = work / "ratings"
    data.mkdir()
    for day in range(4):
        movie_ratings.generate(
            str(data / f"day-{day:02d}.txt"),
            20,
            seed=day,
            ratings=2000,
            hot_ratings=2_000_000 if day == 1 else 0,
        )
    answer = why(
        movie_ratings.__file__, str(data), store=str(work / "runs")
    )  # its own session, with its event log
    result = verify(answer.culprits["run"], without=1, store=str(work / "runs"), repeats=5)
    first = answer.culprits["records"][0]
    print(f"perfx why: {answer.gap.diagnosis.name}; gap {answer.gap.line()}")
    print(
        f"first culprit: {first['location']} impact {first['impact_ms']:,.0f} ms "
        f"({first['share']:.0%} of the task's traced time); hot movie in day-01: {'day-01.txt@' in first['location']}"
    )
    for line in result.lines():
        print(line)
    print(
        f"speedup {result.speedup:.2f}x (wanted >= 1.3x); predicted saving / measured saving "
        f"{result.predicted_saving_ms / result.measured_saving_ms:.2f} (wanted within 0.75-1.25)"
    )
