"""The README's demo (``./dev demo``): perfx end to end on a job it runs itself.

1. Writes Movie Ratings input (PerfDebug's running example) as 24 daily batch files; in six
   batches one movie has far more ratings than the others (in one, a huge number) — computation skew inside one record.
2. Runs the plain PySpark job (flatMap + reduceByKey) on ``local[2]`` with Spark 4's default
   event log (rolling, zstd-compressed) into a temporary folder.
3. Re-runs the same program under record-level tracing (``perfx isolate``), which writes
   the traced execution's event log beside its lineage.
4. Loads the first run's log and asks ``WHY TASK <slowest> SLOWER`` with the traced run:
   perfx picks a reference task, learns the DESPITE / BECAUSE explanation from the other
   tasks, splits the gap, diagnoses the skew (its time follows its input bytes), links the
   slow task to its partition of the traced run by stage position and names the records inside it that cost the time.
5. Does it all again in one command, ``perfx why``: a traced run with its own event log, the
   task that lost the most time against its stage, its explanation and its culprits.

Everything is written under a temporary folder (``--keep DIR`` keeps it).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from perfx.terminal import SafeConsole

PARTITIONS = 24
"""Batch files, one per day; Spark reads each as (at least) one partition: one task each."""


def write_batches(folder: Path, movies_per_batch: int, hot: dict[int, int], seed: int) -> None:
    """PARTITIONS files of movie ratings; batch ``b`` in ``hot`` has one movie with
    ``hot[b]`` ratings (the paper's movie with far more ratings than the others)."""
    from perfx.isolation.programs import movie_ratings

    folder.mkdir(exist_ok=True)
    for day in range(PARTITIONS):
        movie_ratings.generate(
            str(folder / f"day-{day:02d}.txt"),
            movies_per_batch,
            seed=seed * 100 + day,
            ratings=20,
            hot_ratings=hot.get(day, 0),
        )


def _paper_queries(console: Console) -> None:
    from perfx.grammar.parser import parse
    from perfx.grammar.printer import to_pxql

    console.print(Rule("1. PXQL: the paper's queries, parsed"))
    for text in (
        "FOR J1, J2 WHERE J1.JobID = ? and J2.JobID = ? "
        "DESPITE inputsize compare = SIM ∧ numinstances isSame = T "
        "OBSERVED duration compare = GT EXPECTED duration compare = SIM",
        "WHY TASK 33 SLOWER THAN TASK 22 DESPITE hostname isSame = T WITH WIDTH 2",
    ):
        console.print(Text(text, style="dim"), Text(f"  → {to_pxql(parse(text))}"), sep="\n")


def _spark(event_dir: Path | None):
    """A local[2] session; with ``event_dir``, logging events with Spark 4's defaults."""
    from perfx.isolation.runner import session_builder

    builder = session_builder("local[2]", "perfx demo: movie ratings").config(
        "spark.eventLog.enabled", str(event_dir is not None).lower()
    )
    if event_dir is not None:
        builder = builder.config("spark.eventLog.dir", event_dir.as_uri())
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m perfx.demo", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--keep", metavar="DIR", help="write everything to DIR and keep it")
    parser.add_argument("--movies", type=int, default=2000, help="movies per daily batch")
    parser.add_argument("--seed", type=int, default=7, help="seed of the input generator")
    args = parser.parse_args(argv)

    from perfx.commands.culprits import print_culprits
    from perfx.explain.options import ExplainOptions
    from perfx.isolation.programs import movie_ratings
    from perfx.isolation.runner import run_traced
    from perfx.session import open as open_session
    from perfx.why import why

    console = SafeConsole()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="perfx-demo-"))
    work.mkdir(parents=True, exist_ok=True)
    events, store = work / "spark-events", work / "runs"
    events.mkdir(exist_ok=True)
    try:
        _paper_queries(console)

        console.print(Rule("2. A skewed PySpark job, logged by Spark"))
        batches = work / "ratings"
        rng = random.Random(args.seed)
        days = rng.sample(range(PARTITIONS), 6)
        hot = {day: rng.choice((50_000, 100_000, 200_000)) for day in days[1:]} | {
            days[0]: 1_200_000
        }
        write_batches(batches, args.movies, hot, args.seed)
        console.print(
            f"input: {batches}: {PARTITIONS} daily batches of {args.movies:,} movies; one movie has "
            + ", ".join(f"{n:,} ratings on day {d}" for d, n in sorted(hot.items())),
            highlight=False,
        )
        spark = _spark(events)
        spark.sparkContext.parallelize(range(4), 2).count()  # start the Python workers first
        counts = movie_ratings.pipeline(spark.sparkContext, str(batches)).collect()
        console.print("ratings per score: " + ", ".join(f"{r}: {n:,}" for r, n in sorted(counts)))
        spark.stop()  # completes the event log; the traced run gets a session of its own

        console.print(Rule("3. The same program, traced record by record"))
        program = Path(movie_ratings.__file__)
        console.print(
            f"$ perfx isolate {program} --input {batches} --store {store}",
            style="bold",
            highlight=False,
        )
        traced = run_traced(
            program, str(batches), store=str(store), top=5
        )  # its own session and event log
        print_culprits(console, traced.culprits, f"top culprit input records (run {traced.run_id})")

        console.print(Rule("4. Why was the slowest task slower, and which records made it so?"))
        session = open_session([events])
        log = session.log
        sizes = log.tasks.groupby("stage_id").size()  # the job's map stage: the first of the widest
        first_stage = log.tasks[log.tasks["stage_id"] == sizes[sizes == sizes.max()].index.min()]
        slowest = first_stage.sort_values("duration", ascending=False).iloc[0]
        query = f"WHY TASK '{slowest['id']}' SLOWER"
        console.print(
            f"log: {events} — {len(log.tasks)} tasks; slowest: {slowest['id']} "
            f"({slowest['duration']:.0f} ms, partition {int(slowest['task_index'])})",
            highlight=False,
        )
        console.print(
            f'$ perfx explain --log {events} --run {traced.run_id} --store {store} "{query}"',
            style="bold",
            highlight=False,
        )
        console.print(session.explain(query, seed=0, run=traced.run_id, store=str(store)))

        console.print(Rule("5. The same chain in one command"))
        console.print(
            f"$ perfx why {program} --input {batches} --store {store}",
            style="bold",
            highlight=False,
        )
        console.print(
            why(str(program), str(batches), store=str(store), options=ExplainOptions(seed=0))
        )
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    from perfx.user_errors import user_error_types

    try:
        sys.exit(main())
    except user_error_types() as err:
        print(f"perfx demo: {err}", file=sys.stderr)
        sys.exit(1)
