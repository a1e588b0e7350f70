"""``perfx repl``: an interactive PXQL prompt over a loaded log."""

from __future__ import annotations

import click

from perfx.explain.options import ExplainOptions

from .options import explain_options, format_option, log_option, rest_settings, run_options


@click.command()
@log_option(required=False)
@explain_options()
@format_option
@run_options
def repl(
    logs: tuple[str, ...],
    fmt: str,
    run: str | None,
    store: str | None,
    options: ExplainOptions,
) -> None:
    """Ask many PXQL questions of one log, interactively.

    Enter submits a complete query (an unfinished one continues on the next line); Tab
    completes keywords, feature names and \\commands; \\help lists the commands. History is
    kept in $XDG_STATE_HOME/perfx/history.
    """
    from perfx.repl import ReplSession
    from perfx.repl import run as run_repl

    try:
        session = ReplSession(
            width=options.width,
            sample=options.sample,
            seed=options.seed,
            format=fmt,
            run=run,
            store=store,
        )
    except ValueError as err:  # an option the REPL refuses (a run that does not exist)
        raise click.UsageError(str(err)) from None
    if logs:
        session.load(logs, **rest_settings())
    run_repl(session)
