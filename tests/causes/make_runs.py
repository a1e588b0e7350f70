"""Run injected-cause scenarios in one local[2] SparkSession and record what was injected.

    python -m tests.causes.make_runs --out DIR [--kinds data_skew spill ...] [--seeds N]
                                     [--first-seed S] [--size small|large] [--no-check]

Writes into DIR the session's event log (one plain, uncompressed, non-rolling JSON-lines file,
``DIR/<app id>``), ``DIR/injected.json`` (every ``Injected`` as a dict, with the id of its
injected task in perfx's task table, ``task_id``, and the run's wall time), and
``spark-stderr.log`` (the JVM's and Python workers' stderr, kept off the console). Then, unless
``--no-check``, prints the verification table of ``tests.causes.check`` (exit status 1 if a run
misses its signature).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from .scenarios import KINDS, SIZES, find_injected_task, iter_kinds, run_scenario, warm_up

STDERR_LOG = "spark-stderr.log"


@contextmanager
def _stderr_to(path: Path):
    """Point file descriptor 2 at ``path`` while the JVM starts: the JVM (and the Python
    workers it forks later) inherit it, so Spark's start-up notices and any later noise land in
    the file; this process's own stderr is restored afterwards."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(path, "ab") as sink:
        os.dup2(sink.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def start_session(out: Path, app_name: str = "perfx-causes"):
    """A local[2] SparkSession logging its events as one plain JSON-lines file in ``out``
    (like the tests' ``spark`` fixture), with Spark's logging down to errors
    (isolation/log4j2-quiet.properties) and the JVM's stderr in ``out``/spark-stderr.log."""
    from perfx.isolation.runner import QUIET_LOG4J, session_builder

    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    logging.getLogger("py4j").setLevel(logging.ERROR)
    builder = (
        session_builder("local[2]", app_name)
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", out.resolve().as_uri())
        .config("spark.eventLog.compress", "false")
        .config("spark.eventLog.rolling.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
    )
    # The heap at its full 1 GB from the start: after the full collections of gc_pressure, G1
    # would shrink it, and the young collections of the next scenarios would show as GC time.
    builder = builder.config(
        "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={QUIET_LOG4J.as_uri()} -Xms1g"
    )
    with _stderr_to(out / STDERR_LOG):
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def _event_log(out: Path, app_id: str) -> Path:
    for candidate in (out / app_id, out / f"{app_id}.inprogress"):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"no event log for {app_id} in {out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.causes.make_runs", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--out", required=True, type=Path, help="directory for the event log and injected.json"
    )
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--seeds", type=int, default=3, help="runs per kind (seeds S..S+N-1)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument("--no-check", action="store_true", help="skip the verification table")
    args = parser.parse_args(argv)
    kinds = iter_kinds(args.kinds)
    out: Path = args.out

    started = time.monotonic()
    spark = start_session(out)
    app_id = spark.sparkContext.applicationId
    print(
        f"session {app_id} up in {time.monotonic() - started:.1f} s; event log in {out}", flush=True
    )
    runs: list[dict] = []
    record = out / "injected.json"
    try:
        warm_up(spark)
        event_log = _event_log(out, app_id)
        for kind in kinds:
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                began = time.monotonic()
                injected = run_scenario(spark, kind, seed, args.size)
                wall = time.monotonic() - began
                task_id = find_injected_task(event_log, injected)
                runs.append(injected.as_dict() | {"task_id": task_id, "wall_s": round(wall, 2)})
                record.write_text(
                    json.dumps({"app_id": app_id, "size": args.size, "runs": runs}, indent=2)
                )
                paid = (
                    f"; cold start paid by {injected.details['paid']}"
                    if "paid" in injected.details
                    else ""
                )
                print(
                    f"{kind:<18} seed {seed:<3} {wall:5.1f} s  task {task_id} (index {injected.partition} "
                    f"of {injected.num_tasks}; {injected.stage_hint}{paid})",
                    flush=True,
                )
    finally:
        spark.stop()
    print(f"{len(runs)} runs in {time.monotonic() - started:.0f} s; wrote {record}", flush=True)
    if args.no_check:
        return 0
    from .check import check_dir, problems

    rows, text = check_dir(out)
    print(text)
    return 0 if all(not problems(r) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
