"""``perfx repl``: an interactive PXQL prompt over a loaded log."""

from __future__ import annotations

import click

from .options import format_option, log_option, run_options


@click.command()
@log_option(required=False)
@click.option(
    "--width",
    type=int,
    default=None,
    help="Width of BECAUSE clauses for queries without WITH WIDTH  [default: 3]",
)
@click.option(
    "--sample", type=int, default=2000, show_default=True, help="Training pairs sampled per query."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the pair sampling.")
@format_option
@run_options
def repl(
    logs: tuple[str, ...],
    width: int | None,
    sample: int,
    seed: int,
    fmt: str,
    run: str | None,
    store: str | None,
) -> None:
    """Ask many PXQL questions of one log, interactively.

    Enter submits a complete query (an unfinished one continues on the next line); Tab
    completes keywords, feature names and \\commands; \\help lists the commands. History is
    kept in $XDG_STATE_HOME/perfx/history.
    """
    from perfx.repl import ReplSession
    from perfx.repl import run as run_repl

    session = ReplSession(width=width, sample=sample, seed=seed, format=fmt, run=run, store=store)
    if logs:
        session.load(logs)
    run_repl(session)
