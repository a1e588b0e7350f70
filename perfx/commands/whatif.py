"""``perfx whatif``: job and app completion times without blocked time or stragglers (the
JSON is :class:`perfx.results.whatif.WhatIfReport`'s)."""

from __future__ import annotations

import click

from perfx.results.whatif import DEFAULT_SCENARIOS

from .options import all_option, emit, format_option, log_note, log_option, open_session


@click.command()
@log_option()
@click.option(
    "--without",
    "without",
    multiple=True,
    metavar="NAMES",
    help="Comma-separated components removed together: gc, network, disk, scheduler, serialization, "
    "stragglers, or a single cause (shuffle_read, input_read, ...). Repeatable: one scenario each. "
    "Default: each of " + ", ".join(DEFAULT_SCENARIOS) + " on its own.",
)
@all_option
@format_option
def whatif(logs, without, show_all, fmt) -> None:
    """How much faster would each job have run without GC, network, disk, ... or stragglers?

    Replays all of an application's jobs together on its executors' slots with shortened
    tasks (blocked-time analysis, NSDI 2015), keeping the delays each task really had with a
    free slot (locality wait). The improvement compares with the replay of the real
    durations; the model error is how far that replay is from the real job time. Jobs that
    ran at the same time share the slots and are listed as overlapped.
    """
    from perfx.results.whatif import scenarios_of

    try:
        scenarios_of(without)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--without") from None
    from perfx.terminal import working

    session = open_session(logs)
    with working("replaying the jobs"):
        report = session.whatif(without)
    emit(report, fmt, note=log_note(session), show_all=show_all)
