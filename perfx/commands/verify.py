"""``perfx verify RUN --without K``: re-run the program plain without its top-K culprit
records and set the measured job time beside the traced run's prediction (PerfDebug, section 5)."""

from __future__ import annotations

import json

import click

from .options import format_option, master_option, number_option, store_option


@click.command()
@click.argument("run")
@number_option("--without", 1, "How many of the run's top culprit records to remove.", least=1)
@store_option
@master_option
@number_option("--repeats", 3, "Plain runs per input (median).", least=1)
@format_option
def verify(run, without, store, master, repeats, fmt) -> None:
    """Proof by remediation: how much faster is RUN's program without its culprit records?

    Re-runs the traced program plain on the run's input and on a copy without the top
    --without culprit records (text inputs), median of --repeats runs each, and prints both
    job times beside the time the traced run predicts for the stages that spent their cost,
    with and without them.
    """
    from perfx import terminal
    from perfx.isolation.stores import open_store
    from perfx.terminal import safe_text
    from perfx.verify import rerun_master
    from perfx.verify import verify as measure

    if fmt == "text":
        # the run's metadata alone: verify opens the run, its every partition checked, itself
        master = rerun_master(open_store(store).complete_meta(run), master)
        terminal.console(stderr=True).print(
            safe_text(f"Re-running run {run}'s program plain on {master} ...")
        )
    result = measure(run, without=without, store=store, master=master, repeats=repeats)
    if fmt == "json":
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    console = terminal.console()
    for line in result.lines():
        console.print(safe_text(line))
