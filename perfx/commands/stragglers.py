"""``perfx stragglers``: stragglers per stage and the share of them with a known cause (the
JSON is :class:`perfx.results.stragglers.StragglerReport`'s)."""

from __future__ import annotations

import click

from .options import emit, format_option, log_option, open_session


@click.command()
@log_option()
@format_option
def stragglers(logs, fmt) -> None:
    """Find the stragglers of every stage and what caused them.

    A straggler's inverse progress rate (time per byte read) exceeds 1.5x its stage's median;
    it is caused by X (GC, shuffle read wait, shuffle write, input read, scheduler delay,
    (de)serialization) if it would not straggle had X taken no time in every task of the
    stage, and by output skew or by being a first task on a cold executor as the NSDI 2015
    paper defines them.
    """
    from perfx.terminal import working

    session = open_session(logs)
    with working("finding stragglers"):
        report = session.stragglers()
    emit(report, fmt)
