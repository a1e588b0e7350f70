"""``perfx skew --log PATH``: find stages with computation skew in an event log and say how
to re-run the program traced to find the records behind it (the JSON is
:class:`perfx.results.skew.SkewReport`'s)."""

from __future__ import annotations

import click

from perfx.results.headline import ROWS

from .options import (
    all_option,
    emit,
    format_option,
    log_note,
    log_option,
    number_option,
    open_session,
)


@click.command()
@log_option("Event log file or folder of the original run (repeatable).")
@number_option(
    "--factor",
    1.5,
    "Flag tasks whose time per record exceeds this multiple of their stage's median.",
    least=1.0,
    kind=float,
)
@number_option(
    "--min-excess",
    100.0,
    "Flag only tasks that cost at least this many ms beyond their stage's typical task.",
    least=0.0,
    kind=float,
)
@number_option(
    "--top",
    20,
    "Skewed tasks listed in text, the most costly first (at most 40; --all lists every "
    "one, as JSON does).",
    least=1,
)
@all_option
@format_option
def skew(logs, factor, min_excess, top, show_all, fmt) -> None:
    """Flag stages with computation skew (slow time per record, or GC / serialization far
    above the stage's) and print the perfx isolate command for a traced re-run."""
    from perfx.terminal import working

    session = open_session(logs)
    with working("looking for skew"):
        report = session.skew(factor, min_excess, None if show_all else min(top, ROWS))
    emit(report, fmt, sort_keys=True, note=log_note(session))
