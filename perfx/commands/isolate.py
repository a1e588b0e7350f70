"""``perfx isolate PROGRAM.py --input PATH``: re-run a PySpark program under record-level
tracing and name the input records that cost the time (PerfDebug)."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager

import click

from perfx.commands.culprits import print_culprits, print_outputs
from perfx.results.culprits import culprits_json, outputs_json

from .options import format_option, master_option, program_options, store_option


@contextmanager
def spark_progress(sc, console):
    """A live line per running Spark stage (tasks done / total) on stderr, when stderr is a
    terminal (elsewhere a transient display would leave a blank line behind)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    if not console.is_terminal:
        yield
        return
    stop = threading.Event()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=True,
    ) as progress:
        bars: dict[int, int] = {}

        def poll() -> None:
            tracker = sc.statusTracker()
            while not stop.wait(0.3):
                for stage_id in tracker.getActiveStageIds():
                    info = tracker.getStageInfo(stage_id)
                    if info is None:
                        continue
                    if stage_id not in bars:
                        bars[stage_id] = progress.add_task(
                            f"Spark stage {stage_id}", total=info.numTasks
                        )
                    progress.update(bars[stage_id], completed=info.numCompletedTasks)

        thread = threading.Thread(target=poll, daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()


@click.command()
@program_options
@master_option
@store_option
@click.option(
    "--lineage",
    type=click.Choice(["impact", "full"]),
    default="impact",
    show_default=True,
    help="impact: O(1) per record; full: all input ids too (for --trace).",
)
@click.option("--top", type=int, default=5, show_default=True, help="How many culprits to show.")
@format_option
def isolate(program, input_path, master, store, lineage, top, fmt) -> None:
    """Run PROGRAM.py traced and show its slowest outputs and culprit input records.

    PROGRAM.py defines pipeline(ctx, input_path) returning the final traced dataset; ctx
    has textFile/parallelize, datasets have the RDD operators (map, flatMap, filter,
    mapValues, reduceByKey, groupByKey, aggregateByKey, join, ...).
    """
    from pathlib import Path

    from perfx import terminal
    from perfx.isolation.runner import check_input, load_program, run_traced, traced_session
    from perfx.terminal import safe_text

    module = load_program(program)  # a broken program or a missing input fails before a JVM starts
    check_input(input_path)
    console = terminal.console()
    status = terminal.console(stderr=True)
    if fmt == "text":
        status.print(
            f"Starting Spark ({master}) for a traced run of {program}...",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    with (
        traced_session(store, master, f"perfx isolate {Path(program).name}") as run,
        spark_progress(run.spark.sparkContext, status),
    ):
        result = run_traced(
            program,
            input_path,
            spark=run.spark,
            store=run.store,
            lineage=lineage,
            top=top,
            module=module,
            run_id=run.run_id,
            event_log=run.event_log,
        )
    if fmt == "json":
        click.echo(
            json.dumps(
                {
                    "run": result.run_id,
                    "lineage": lineage,
                    "store": result.meta["store"],
                    "outputs": outputs_json(result.outputs),
                    "culprits": culprits_json(result.culprits),
                    "note": result.note,
                },
                indent=2,
                sort_keys=True,
            )
        )
        return
    if result.note:
        console.print(safe_text(f"Note: {result.note}"))
    print_outputs(console, result.outputs)
    print_culprits(
        console, result.culprits, "Top culprit input records (impact on the slowest outputs)"
    )
    console.print(
        f"run {result.run_id} stored in {result.meta['store']} "
        f"(perfx culprits {result.run_id} to query it again)"
    )
