"""``perfx batch``: answer a file of queries, or every straggler, into an HTML report."""

from __future__ import annotations

import json
import sys

import click


@click.command()
@click.option(
    "--log",
    "logs",
    multiple=True,
    required=True,
    type=click.Path(exists=True),
    help="Event log file or folder (repeatable).",
)
@click.option(
    "--queries",
    type=click.Path(exists=True, dir_okay=False),
    help="A .pxql file of queries separated by ';'.",
)
@click.option(
    "--pairs",
    type=click.Path(exists=True, dir_okay=False),
    help="CSV of ids bound to '?' placeholders, one row per pair.",
)
@click.option(
    "--stragglers",
    is_flag=True,
    help="Ask WHY ... SLOWER for the 50 longest straggler tasks of the log.",
)
@click.option(
    "--out", required=True, type=click.Path(dir_okay=False), help="Where to write the HTML report."
)
@click.option(
    "--width",
    type=int,
    default=None,
    help="BECAUSE width for queries without WITH WIDTH  [default: 3]",
)
@click.option("--sample", type=int, default=2000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--run",
    default=None,
    help="A traced run of the same program: each answer gets its task's culprit records.",
)
@click.option("--store", default=None, help="Lineage store of --run (default: $PERFX_HOME/runs).")
def batch(logs, queries, pairs, stragglers, out, width, sample, seed, fmt, run, store) -> None:
    """Answer many questions against one log and write them to a self-contained HTML report.

    Exits 1 when any question could not be answered (the report marks which).
    """
    from pathlib import Path

    from perfx.batch import expand, read_pairs, run_batch, split_queries, straggler_questions
    from perfx.questions import load_for_questions
    from perfx.report import render_html

    if bool(queries) == bool(stragglers):
        raise click.UsageError("give exactly one of --queries FILE or --stragglers")
    log = load_for_questions(logs, progress=True)
    if queries:
        texts = split_queries(Path(queries).read_text())
        if not texts:
            raise click.UsageError(f"{queries} holds no query")
        try:
            jobs = expand(texts, read_pairs(pairs) if pairs else [])
        except ValueError as err:
            raise click.UsageError(str(err)) from None
    else:
        jobs = [(q, ()) for q in straggler_questions(log)]
    items = run_batch(
        log, jobs, progress=True, width=width, sample=sample, seed=seed, run=run, store=store
    )
    summary = f"{len(log.tasks)} tasks from {', '.join(logs)}"
    Path(out).write_text(render_html(items, log_summary=summary))
    failed = [item for item in items if not item.ok]
    if fmt == "json":
        click.echo(
            json.dumps(
                {"report": out, "items": [i.to_dict() for i in items]}, indent=2, sort_keys=True
            )
        )
    elif stragglers and not items:
        click.echo(
            f"no stragglers (inverse progress rate > 1.5x their stage's median): nothing to ask; "
            f"report written to {out}"
        )
    else:
        click.echo(
            f"{len(items) - len(failed)} of {len(items)} questions answered; report written to {out}"
        )
        for item in failed:
            click.echo(
                f"not answered: {item.query} {' '.join(item.binding)}: {item.error}", err=True
            )
    if failed:
        sys.exit(1)
