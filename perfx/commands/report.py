"""``perfx report``: the page a team shares about a slow application."""

from __future__ import annotations

import json
import sys

import click


@click.command("report")
@click.option(
    "--log",
    "logs",
    multiple=True,
    required=True,
    type=click.Path(exists=True),
    help="Event log file or folder (repeatable).",
)
@click.option(
    "--run",
    default=None,
    help="A traced run of the same program (perfx runs): culprit records and its latency heat map.",
)
@click.option("--store", default=None, help="Lineage store of --run (default: $PERFX_HOME/runs).")
@click.option(
    "--queries",
    type=click.Path(exists=True, dir_okay=False),
    help="A .pxql file of queries to ask instead of the stragglers of the slowest stages.",
)
@click.option(
    "--pairs",
    type=click.Path(exists=True, dir_okay=False),
    help="CSV of ids bound to '?' placeholders of --queries, one row per pair.",
)
@click.option(
    "--questions",
    "limit",
    type=click.IntRange(min=0),
    default=8,
    show_default=True,
    help="Straggler questions asked without --queries.",
)
@click.option(
    "--out", required=True, type=click.Path(dir_okay=False), help="Where to write the HTML page."
)
@click.option("--sample", type=int, default=2000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def report_command(logs, run, store, queries, pairs, limit, out, sample, seed, fmt) -> None:
    """Write one self-contained HTML page about the applications of a log: overview (where
    the time went, what-ifs), stages (task-time distribution, stragglers and causes), a
    timeline of tasks per executor, and questions answered (with --run, the culprit records).

    The page needs no network and prints. Exits 1 when a question could not be answered
    (the page marks which).
    """
    from pathlib import Path

    from perfx.batch import expand, read_pairs, run_batch, split_queries
    from perfx.questions import load_for_questions
    from perfx.report import render_report

    if pairs and not queries:
        raise click.UsageError("--pairs binds the placeholders of --queries: give --queries too")
    log = load_for_questions(logs, progress=True)
    options = {"sample": sample, "seed": seed}
    items = None
    if queries:
        texts = split_queries(Path(queries).read_text())
        if not texts:
            raise click.UsageError(f"{queries} holds no query")
        try:
            jobs = expand(texts, read_pairs(pairs) if pairs else [])
        except ValueError as err:
            raise click.UsageError(str(err)) from None
        items = run_batch(log, jobs, progress=True, run=run, store=store, **options)
    report = render_report(log, items, sources=logs, run=run, store=store, limit=limit, **options)
    Path(out).write_text(report.html, encoding="utf-8")
    failed = [item for item in report.items if not item.ok]
    if fmt == "json":
        payload = {"report": out, "items": [item.to_dict() for item in report.items]}
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
    else:
        click.echo(
            f"{len(report.items) - len(failed)} of {len(report.items)} questions answered; "
            f"report written to {out} ({len(report.html.encode()) / 1e6:.1f} MB)"
        )
        for item in failed:
            click.echo(
                f"not answered: {item.query} {' '.join(item.binding)}: {item.error}", err=True
            )
    if failed:
        sys.exit(1)
