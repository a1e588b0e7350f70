"""``perfx why PROGRAM.py --input DATA``: the whole chain in one command — run the program
traced with its event log, find the skewed stage and its slowest task, explain it against its
stage, and name the input records inside it that cost the time."""

from __future__ import annotations

import click

from .options import (
    emit,
    format_option,
    master_option,
    number_option,
    program_options,
    store_option,
)


@click.command()
@program_options
@master_option
@store_option
@number_option("--top", 5, "How many culprit records to show.")
@format_option
def why(program, script_args, input_path, out, split_batches, master, store, top, fmt) -> None:
    """Why was PROGRAM.py's slowest task slow, and which input records made it so?

    Runs PROGRAM.py traced with Spark's event log beside the run's lineage: as a script
    (`perfx why SCRIPT.py -- ARGS`, as `python SCRIPT.py ARGS` runs it, unmodified), or,
    with --input, its pipeline(ctx, input_path). Picks the task that lost the most time
    against its stage's median (for a script with Python UDFs, the task that spent the
    most in them) and answers WHY TASK <it> SLOWER with the gap, the diagnosis and the
    records (or rows, with their UDF time) inside it; a stage without Python code gets the
    task-level answer and the Spark remedy.
    """
    from perfx import terminal
    from perfx.isolation.runner import IsolationResult, check_input
    from perfx.isolation.script import ScriptExited
    from perfx.isolation.stores import open_store
    from perfx.why import why as chain_why
    from perfx.why import why_script

    from .isolate import answer_to, check_pipeline_options, on_master, print_result

    if input_path is not None:
        check_pipeline_options(script_args, split_batches)
        check_input(input_path)  # before the status line and the JVM
    store = open_store(store)  # and so is a store that cannot be reached
    if fmt == "text":
        terminal.console(stderr=True).print(
            f"Running {program} traced on {on_master(master)} ...",
            markup=False,
            highlight=False,
        )
    exited = None
    if input_path is None:
        try:
            answer = why_script(
                program,
                script_args,
                master=master,
                store=store,
                top=top,
                split_batches=split_batches,
            )
        except ScriptExited as ended:  # sys.exit(N) after its Spark work: answered, then N
            if ended.answer is None:
                raise
            answer, exited = ended.answer, ended
    else:
        answer = chain_why(program, input_path, master=master, store=store, top=top)
    with answer_to(out):
        if isinstance(answer, IsolationResult):  # no task to explain: the run's records
            print_result(answer, answer.meta.get("lineage", "impact"), fmt)
        else:
            emit(answer, fmt)
    if exited is not None:
        raise exited
