"""``perfx why PROGRAM.py --input DATA``: the whole chain in one command — run the program
traced with its event log, find the skewed stage and its slowest task, explain it against its
stage, and name the input records inside it that cost the time."""

from __future__ import annotations

import click

from .options import emit, format_option, master_option, program_options, store_option


@click.command()
@program_options
@master_option
@store_option
@click.option(
    "--top", type=int, default=5, show_default=True, help="How many culprit records to show."
)
@format_option
def why(program, input_path, master, store, top, fmt) -> None:
    """Why was PROGRAM.py's slowest task slow, and which input records made it so?

    Runs PROGRAM.py (pipeline(ctx, input_path), as for perfx isolate) traced on --input,
    with Spark's event log beside the run's lineage; picks the task that lost the most time
    against its stage's median; answers WHY TASK <it> SLOWER with the gap, the diagnosis and
    the culprit records of its partition.
    """
    from perfx import terminal
    from perfx.isolation.runner import check_input
    from perfx.isolation.stores import open_store
    from perfx.why import why as chain_why

    check_input(input_path)  # before the status line and the JVM
    store = open_store(store)  # and so is a store that cannot be reached
    if fmt == "text":
        terminal.console(stderr=True).print(
            f"Running {program} traced on {master} ...", markup=False, highlight=False
        )
    answer = chain_why(program, input_path, master=master, store=store, top=top)
    emit(answer, fmt)
