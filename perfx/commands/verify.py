"""``perfx verify RUN --without K``: re-run the program plain without its top-K culprit
records and set the measured job time beside the traced run's prediction (PerfDebug, section 5)."""

from __future__ import annotations

import json

import click

from .options import format_option, master_option, store_option


@click.command()
@click.argument("run")
@click.option(
    "--without",
    "without",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="How many of the run's top culprit records to remove.",
)
@store_option
@master_option
@click.option(
    "--repeats",
    type=click.IntRange(1),
    default=3,
    show_default=True,
    help="Plain runs per input (median).",
)
@format_option
def verify(run, without, store, master, repeats, fmt) -> None:
    """Proof by remediation: how much faster is RUN's program without its culprit records?

    Re-runs the traced program plain on the run's input and on a copy without the top
    --without culprit records (text inputs), median of --repeats runs each, and prints both
    job times beside the time the traced run predicts for the stages that spent their cost,
    with and without them.
    """
    from perfx import terminal
    from perfx.terminal import safe_text
    from perfx.verify import verify as measure

    if fmt == "text":
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
