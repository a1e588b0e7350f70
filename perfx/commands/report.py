"""``perfx report``: the page a team shares about a slow application."""

from __future__ import annotations

import json
import sys

import click

from .options import (
    log_note,
    log_option,
    number_option,
    open_session,
    page_options,
    queries_options,
)


@click.command("report")
@log_option()
@queries_options(
    "A .pxql file of queries (separated by ';') to ask instead of the stragglers of the "
    "slowest stages."
)
@number_option(
    "--questions", 8, "Straggler questions asked without --queries.", least=0, dest="limit"
)
@page_options("Where to write the HTML page.")
def report_command(logs, questions, limit, out, fmt, run, store, options) -> None:
    """Write one self-contained HTML page about the applications of a log: overview (where
    the time went, what-ifs), stages (task-time distribution, stragglers and causes), a
    timeline of tasks per executor, and questions answered (with --run, the culprit records).

    The page needs no network and prints. Exits 1 when a question could not be answered
    (the page marks which).
    """
    from pathlib import Path

    from perfx.batch import run_batch
    from perfx.report import render_report

    session = open_session(logs, progress=True)
    items = None
    if questions is not None:
        items = run_batch(session, questions, options, progress=True, run=run, store=store)
    report = render_report(session, items, options, sources=logs, run=run, store=store, limit=limit)
    Path(out).write_text(report.html, encoding="utf-8")
    failed = [item for item in report.items if not item.ok]
    note = log_note(session)
    if fmt == "json":
        payload = {"report": out, "items": [item.to_dict() for item in report.items]}
        if note:
            payload["log_note"] = note
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
    else:
        answered = (
            f"{len(report.items) - len(failed)} of {len(report.items)} questions answered"
            if report.items
            else "no question to ask"
        )
        click.echo(
            f"{answered}; report written to {out} ({len(report.html.encode()) / 1e6:.1f} MB)"
        )
        if note:
            from perfx.terminal import console, safe_text

            console(wide=True).print(safe_text(note))
        for item in failed:
            click.echo(
                item.not_answered()
                if questions is not None
                else f"a question the report chose, {item.not_answered()}",
                err=True,
            )
    if failed and questions is not None:
        # only the user's questions unanswered fail the command: one the report chose itself
        # and the log cannot answer is said on the page, and failed a page written whole
        # (a probe of the report)
        sys.exit(1)
