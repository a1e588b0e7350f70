"""``perfx stragglers``: stragglers per stage and the share of them with a known cause, in
logs or over a feature store's applications of a date range (the JSON is
:class:`perfx.results.stragglers.StragglerReport`'s)."""

from __future__ import annotations

import click

from .options import all_option, emit, format_option, log_note, log_option, open_session


@click.command()
@log_option(required=False)
@click.option(
    "--store",
    "feature_store",
    default=None,
    help="A feature store (perfx ingest), read application by application.",
)
@click.option(
    "--since",
    type=click.DateTime(),
    default=None,
    help="With --store: applications started at or after this date (local time).",
)
@click.option(
    "--until",
    type=click.DateTime(),
    default=None,
    help="With --store: applications started before this date (local time).",
)
@all_option
@format_option
def stragglers(logs, feature_store, since, until, show_all, fmt) -> None:
    """Find the stragglers of every stage and what caused them.

    A straggler's inverse progress rate (time per byte read) exceeds 1.5x its stage's median;
    it is caused by X (GC, shuffle read wait, shuffle write, input read, scheduler delay,
    (de)serialization) if it would not straggle had X taken no time in every task of the
    stage, and by output skew or by being a first task on a cold executor as the NSDI 2015
    paper defines them.
    """
    from perfx.terminal import working

    if bool(logs) == bool(feature_store):
        raise click.UsageError("give the logs (--log) or a store (--store), one of the two")
    if (since or until) and not feature_store:
        raise click.UsageError("--since and --until select applications of a --store")
    with working("finding stragglers"):
        if feature_store:
            from perfx.fleet import stragglers_over

            report, note = stragglers_over(feature_store, since, until), ""
        else:
            session = open_session(logs)
            report, note = session.stragglers(), log_note(session)
    emit(report, fmt, note=note, show_all=show_all)
