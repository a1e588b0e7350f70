"""``perfx explain``: answer one PXQL question from a log, as text (rich) or stable JSON."""

from __future__ import annotations

import click

from .options import (
    emit,
    explain_options,
    format_option,
    host_metrics_option,
    log_note,
    log_option,
    open_session,
    run_options,
)


@click.command()
@log_option()
@explain_options("width", "sample", "seed", "despite_width", "method", "level")
@click.option(
    "--bind", "binds", multiple=True, help="Value for a '?' placeholder, in order (repeatable)."
)
@format_option
@host_metrics_option
@run_options
@click.argument("query")
def explain(logs, binds, fmt, host_metrics, run, store, query, options) -> None:
    """Explain why a pair of executions behaved as OBSERVED rather than EXPECTED.

    QUERY is PXQL, e.g. "WHY TASK 33 SLOWER" or a full FOR ... DESPITE ... OBSERVED ...
    EXPECTED query. The answer is a DESPITE/BECAUSE explanation with its relevance,
    precision and generality, the duration gap split into its parts with a diagnosis, and,
    with --run, the input records inside the slow task's partition that cost the time.
    """
    from perfx.grammar.parser import parse
    from perfx.terminal import working

    parsed = parse(query)  # once: a syntax error is reported before any log is read
    # a large feature store among the logs is read only as far as this question needs
    session = open_session(logs, host_metrics, questions=[(parsed, binds)])
    with working("explaining"):
        answer = session.explain(parsed, options, bind=binds, run=run, store=store)
    emit(answer, fmt, note=log_note(session))
