"""The README's demo (``./dev demo``): perfx end to end on a job it runs itself.

1. Writes NYC-taxi-style trip records (PerfDebug's case study): the borough of each pickup is
   found by testing polygons, and borough 4's winding boundary makes its trips far costlier.
   The trips come in 24 blocks (hours) whose share of borough-4 pickups varies: computation
   skew with the same bytes and records in every block.
2. Runs the plain PySpark job (map + aggregateByKey) on ``local[2]`` with Spark 4's default
   event log (rolling, zstd-compressed) into a temporary folder.
3. Loads that log and asks ``WHY TASK <slowest> SLOWER``: perfx picks a reference task and
   learns the DESPITE / BECAUSE explanation from the other tasks.
4. Re-runs the same program under record-level tracing and names the input records that
   cost the time, overall and inside the slow task's partition.

Everything is written under a temporary folder (``--keep DIR`` keeps it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

PARTITIONS = 24
BOROUGH4_SHARES = (0.005, 0.005, 0.005, 0.005, 0.05, 0.15, 0.4)
"""Share of borough-4 pickups in an hour's block, drawn per block."""


def write_trips(folder: Path, trips_per_block: int, seed: int) -> list[float]:
    """PARTITIONS files of trips (one per hour: Spark reads each as one partition), each with
    its own borough-4 share; returns the shares."""
    import random

    from perfx.isolation.programs import taxi

    rng = random.Random(seed)
    shares = [rng.choice(BOROUGH4_SHARES) for _ in range(PARTITIONS)]
    folder.mkdir(exist_ok=True)
    for hour, share in enumerate(shares):
        taxi.generate(str(folder / f"hour-{hour:02d}.csv"), trips_per_block, seed=seed * 1000 + hour, in_complex=share)
    return shares


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
        console.print(f"[dim]{text}[/dim]\n  → {to_pxql(parse(text))}", highlight=False)


def _spark(event_dir: Path | None):
    """A local[2] session; with ``event_dir``, logging events with Spark 4's defaults."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("perfx demo: taxi fares")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.eventLog.enabled", str(event_dir is not None).lower())
    )
    if event_dir is not None:
        builder = builder.config("spark.eventLog.dir", event_dir.as_uri())
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfx.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--keep", metavar="DIR", help="write everything to DIR and keep it")
    parser.add_argument("--trips", type=int, default=1500, help="trips per block (hour); 24 blocks")
    args = parser.parse_args(argv)

    from perfx.commands.culprits import print_culprits
    from perfx.explain.engine import explain
    from perfx.isolation.programs import taxi
    from perfx.isolation.runner import run_traced
    from perfx.logs.loader import load_log

    console = Console()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="perfx-demo-"))
    work.mkdir(parents=True, exist_ok=True)
    events, store = work / "spark-events", work / "runs"
    events.mkdir(exist_ok=True)
    try:
        _paper_queries(console)

        console.print(Rule("2. A skewed PySpark job, logged by Spark"))
        trips = work / "trips"
        shares = write_trips(trips, args.trips, seed=7)
        console.print(f"input: {trips} ({PARTITIONS * args.trips:,} trips in {PARTITIONS} blocks; "
                      f"borough-4 share per block: {', '.join(f'{s:.1%}' for s in shares)})", highlight=False)
        spark = _spark(events)
        spark.sparkContext.parallelize(range(4), 2).count()  # start the Python workers first
        fares = taxi.pipeline(spark.sparkContext, str(trips)).collect()
        console.print("average fare per borough: " + ", ".join(f"{b}: ${f:.2f}" for b, f in sorted(fares)))
        spark.stop()  # completes the event log; the traced run gets a session of its own

        console.print("re-running the same program under record-level tracing ...")
        program = Path(taxi.__file__)
        spark = _spark(None)
        traced = run_traced(program, str(trips), spark=spark, store=str(store), top=5)
        spark.stop()

        console.print(Rule("3. Why was the slowest task slower?"))
        log = load_log([str(events)])
        sizes = log.tasks.groupby("stage_id").size()
        first_stage = log.tasks[log.tasks["stage_id"] == sizes[sizes == PARTITIONS].index.min()]
        slowest = first_stage.sort_values("duration", ascending=False).iloc[0]
        query = f"WHY TASK '{slowest['id']}' SLOWER"
        console.print(f"log: {events} — {len(log.tasks)} tasks; "
                      f"slowest: {slowest['id']} ({slowest['duration']:.0f} ms, partition "
                      f"{int(slowest['partition_id']) if slowest['partition_id'] >= 0 else slowest['task_index']})")
        console.print(f"$ perfx explain --log {events} \"{query}\"", style="bold", highlight=False)
        console.print(explain(log, query, seed=0))

        console.print(Rule("4. ...and the input records that cost the time"))
        console.print(f"$ perfx isolate {program} --input {trips} --store {store}", style="bold", highlight=False)
        print_culprits(console, traced.culprits, f"top culprit input records (run {traced.run_id})")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    from perfx.cli import user_error_types

    try:
        sys.exit(main())
    except user_error_types() as err:
        print(f"perfx demo: {err}", file=sys.stderr)
        sys.exit(1)
