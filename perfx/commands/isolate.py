"""``perfx isolate PROGRAM.py --input PATH``: re-run a PySpark program under record-level
tracing and name the input records that cost the time (PerfDebug)."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager

import click

from perfx.commands.culprits import print_culprits, print_outputs
from perfx.results.culprits import culprits_json, outputs_json

from .options import (
    choice_option,
    format_option,
    master_option,
    number_option,
    program_options,
    store_option,
)


@contextmanager
def spark_progress(sc, console):
    """A live line per running Spark stage (tasks done / total) on stderr, when stderr is a
    terminal (elsewhere a transient display would leave a blank line behind)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

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
        bars: dict[int, TaskID] = {}

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
@choice_option(
    "--lineage",
    ["impact", "full"],
    "impact",
    "impact: O(1) per record; full: all input ids too (for --trace).",
)
@number_option("--top", 5, "How many culprits to show.")
@format_option
def isolate(
    program, script_args, input_path, out, split_batches, master, store, lineage, top, fmt
) -> None:
    """Run PROGRAM.py traced and show its slowest outputs and culprit input records.

    PROGRAM.py runs as a script (`perfx isolate SCRIPT.py -- ARGS`: as `python SCRIPT.py
    ARGS` runs it, on the SparkSession/SparkContext it creates, traced; its Python UDFs
    timed per call), or, with --input, defines pipeline(ctx, input_path) returning the final
    traced dataset (or an action's value); ctx has textFile/wholeTextFiles/parallelize,
    datasets have the RDD operators and actions (README, "Traced programs").
    """
    from pathlib import Path

    from perfx import terminal
    from perfx.isolation.runner import (
        DEFAULT_MASTER,
        check_input,
        load_program,
        run_traced,
        traced_session,
    )
    from perfx.isolation.stores import open_store

    store = open_store(store)  # a store that cannot be reached fails before a JVM starts
    if input_path is None:
        _isolate_script(program, script_args, master, store, lineage, top, fmt, out, split_batches)
        return
    check_pipeline_options(script_args, split_batches)
    module = load_program(program)  # a broken program or a missing input fails before a JVM starts
    check_input(input_path)
    master = master or DEFAULT_MASTER
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
    with answer_to(out):
        print_result(result, lineage, fmt)


@contextmanager
def answer_to(out: str | None):
    """perfx's answer on stdout, or in the file ``out``."""
    if out is None:
        yield
        return
    import contextlib

    with open(out, "w", encoding="utf-8") as handle, contextlib.redirect_stdout(handle):
        yield


def on_master(master: str | None) -> str:
    """The master a script's traced run is said to run on before it starts: the one given,
    else the script's own (isolation.script.ScriptTracer)."""
    from perfx.isolation.runner import SPARK_DEFAULT_MASTER

    return master or f"the master it sets (Spark's default, {SPARK_DEFAULT_MASTER}, if none)"


def check_pipeline_options(script_args: tuple[str, ...], split_batches: bool) -> None:
    """A pipeline program (``--input``) takes neither a script's arguments nor its UDF
    options."""
    if script_args:
        raise click.UsageError(
            "arguments after PROGRAM.py are a script's; a pipeline program takes --input only"
        )
    if split_batches:
        raise click.UsageError(
            "--split-batches splits a script's pandas UDF batches; a pipeline program has none"
        )


def _isolate_script(script, args, master, store, lineage, top, fmt, out, split_batches) -> None:
    """``perfx isolate SCRIPT.py -- ARGS``: the script runs first, its output its own; then
    perfx's answer."""
    from perfx import terminal
    from perfx.isolation.script import ScriptExited, script_result, trace_script

    if fmt == "text":
        terminal.console(stderr=True).print(
            f"Running {script} traced on {on_master(master)} ...", markup=False, highlight=False
        )
    exited = None
    try:
        tracer = trace_script(
            script, args, master=master, store=store, lineage=lineage, split_batches=split_batches
        )
    except ScriptExited as ended:  # sys.exit(N) after its Spark work: answered, then N
        tracer, exited = ended.tracer, ended
    with answer_to(out):
        print_result(script_result(tracer, top), lineage, fmt)
    if exited is not None:
        raise exited


def print_result(result, lineage: str, fmt: str) -> None:
    """A traced run's answer (``IsolationResult``): its note, its costliest UDF rows, its
    outputs and culprit records, as text or JSON; ``perfx why`` prints it too where no task
    of the run can be explained against its stage."""
    from perfx import terminal
    from perfx.commands.culprits import print_udf_culprits
    from perfx.isolation.ids import excerpt
    from perfx.results.culprits import udf_culprits_json
    from perfx.terminal import safe_text

    if fmt == "json":
        click.echo(
            json.dumps(
                {
                    "run": result.run_id,
                    "lineage": lineage,
                    "store": result.meta["store"],
                    "outputs": outputs_json(result.outputs),
                    "culprits": culprits_json(result.culprits),
                    "udf_culprits": udf_culprits_json(result.udf_culprits),
                    "note": result.note,
                    "value": None if result.value is None else repr(result.value),
                    "spark_log": result.spark_log,
                },
                indent=2,
                sort_keys=True,
            )
        )
        return
    console = terminal.console()
    if result.note:
        console.print(safe_text(f"Note: {result.note}"))
    if result.value is not None:
        console.print(safe_text(f"The program returned {excerpt(result.value, 200)}"))
    if result.udf_culprits is not None:
        print_udf_culprits(console, result.udf_culprits)
    if len(result.outputs) or (result.udf_culprits is None and not result.note):
        # no empty tables under a note that says why there is nothing to show; the culprits
        # (the answer) before the outputs they lead, which are context: a probe's run
        # showed 20 outputs of 0.1 ms before the 10 ms records it asked about
        print_culprits(
            console,
            result.culprits,
            "Top culprit input records (impact: on the outputs each leads, or its own cost)",
        )
        print_outputs(console, result.outputs)
    console.print(
        f"run {result.run_id} stored in {result.meta['store']} "
        f"(perfx culprits {result.run_id} to query it again)"
    )
    if result.spark_log:  # one line, unwrapped: a path to copy
        console.print(
            safe_text(
                "Spark's and the Python workers' output (what the script printed on the "
                f"workers among it): {result.spark_log}"
            ),
            soft_wrap=True,
        )
