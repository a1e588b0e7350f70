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
@explain_options
@click.option(
    "--despite-width",
    type=click.IntRange(min=1),
    default=None,
    help="Generate a DESPITE extension of up to this width.",
)
@click.option(
    "--bind", "binds", multiple=True, help="Value for a '?' placeholder, in order (repeatable)."
)
@click.option(
    "--method",
    default="perfxplain",
    show_default=True,
    help="perfxplain, ruleofthumb, simbutdiff or peers (robust z against the stage).",
)
@click.option(
    "--level",
    type=click.IntRange(1, 3),
    default=3,
    show_default=True,
    help="Pair-feature level (1 isSame; 2 + compare, diff; 3 + base).",
)
@format_option
@host_metrics_option
@run_options
@click.argument("query")
def explain(
    logs,
    width,
    sample,
    seed,
    despite_width,
    binds,
    method,
    level,
    fmt,
    host_metrics,
    run,
    store,
    query,
) -> None:
    """Explain why a pair of executions behaved as OBSERVED rather than EXPECTED.

    QUERY is PXQL, e.g. "WHY TASK 33 SLOWER" or a full FOR ... DESPITE ... OBSERVED ...
    EXPECTED query. The answer is a DESPITE/BECAUSE explanation with its relevance,
    precision and generality, the duration gap split into its parts with a diagnosis, and,
    with --run, the input records inside the slow task's partition that cost the time.
    """
    from perfx.terminal import working

    # a large feature store among the logs is read only as far as this question needs
    session = open_session(logs, host_metrics, questions=[(query, binds)])
    with working("explaining"):
        answer = session.explain(
            query,
            width=width,
            despite_width=despite_width,
            sample=sample,
            seed=seed,
            method=method,
            bind=binds,
            level=level,
            run=run,
            store=store,
        )
    emit(answer, fmt, note=log_note(session))
