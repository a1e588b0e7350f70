"""``perfx batch``: answer a file of queries, or the longest stragglers, into an HTML report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .options import log_option, number_option, open_session, page_options, queries_options


@click.command()
@log_option()
@queries_options("A .pxql file of queries separated by ';'.")
@click.option(
    "--stragglers",
    is_flag=True,
    help="Ask WHY ... SLOWER for the longest straggler tasks of the log (see --top).",
)
@number_option(
    "--top", 50, "With --stragglers: how many of the longest stragglers to ask about.", least=1
)
@page_options("Where to write the HTML report.")
def batch(logs, questions, stragglers, top, out, fmt, run, store, options) -> None:
    """Answer many questions against one log and write them to a self-contained HTML report.

    Every query that can be answered is: a query with a syntax error is reported at its line
    and column in the file and the others still run. Exits 1 when any question could not be
    answered (the report marks which).
    """
    from perfx.batch import expand, run_batch, straggler_questions
    from perfx.report import render_html

    if (questions is not None) == bool(stragglers):
        raise click.UsageError("give exactly one of --queries FILE or --stragglers")
    asked = None
    if questions is not None:
        items = questions
        # a large feature store is read for these questions' executions
        asking = [(item.query, item.binding) for item in items if item.ok]
        session = open_session(logs, progress=True, questions=asking)
    else:
        session = open_session(logs, progress=True)
        asked = straggler_questions(session.log, limit=top)
        items = expand(asked.queries, [])
    items = run_batch(session, items, options, progress=True, run=run, store=store)
    summary = f"{len(session.raw.tasks)} tasks from {', '.join(logs)}"
    if asked is not None:
        summary += f"; questions about {asked.describe()}"
    Path(out).write_text(render_html(items, log_summary=summary), encoding="utf-8")
    failed = [item for item in items if not item.ok]
    if fmt == "json":
        payload = {"report": out, "items": [i.to_dict() for i in items]}
        if asked is not None:
            payload["stragglers"] = {"asked": len(asked.queries), "total": asked.total}
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
    elif asked is not None and not asked.total:
        click.echo(
            "no stragglers (inverse progress rate > 1.5x their stage's median): nothing to ask; "
            f"report written to {out}"
        )
    else:
        about = f" about {asked.describe()}" if asked is not None else ""
        click.echo(
            f"{len(items) - len(failed)} of {len(items)} questions{about} answered; "
            f"report written to {out}"
        )
        for item in failed:
            click.echo(item.not_answered(), err=True)
    if failed:
        sys.exit(1)
