"""``perfx ingest``: the logs of every registered format (logs.formats), local paths or
s3://, gs://, hdfs:// URIs, into a Parquet feature store that ``--log`` accepts.

JSON output (stable)::

    {"store": "...", "read": n, "resumed": n, "unchanged": n, "tasks": n, "bytes": n,
     "seconds": s, "skipped_lines": n,
     "failed": [{"source", "reason"}], "not_logs": [...], "duplicates": [...]}
"""

from __future__ import annotations

import json

import click

from perfx import terminal
from perfx.terminal import safe_text

from .options import LogSource, OutputPath, choice_option, format_option


def _progress_bar():
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=terminal.console(stderr=True),
    )


def _payload(store: str, report) -> dict:
    def listed(pairs):
        return [{"source": s, "reason": r} for s, r in pairs]

    return {
        "store": store,
        "read": report.read,
        "resumed": report.resumed,
        "unchanged": report.unchanged,
        "tasks": report.tasks,
        "bytes": report.bytes,
        "seconds": round(report.seconds, 3),
        "skipped_lines": report.skipped_lines,
        "failed": listed(report.failed),
        "not_logs": listed(report.not_logs),
        "duplicates": listed(report.duplicates),
    }


def _print(store: str, report) -> None:
    console = terminal.console()
    resumed = f" ({report.resumed} resumed)" if report.resumed else ""
    console.print(
        safe_text(
            f"{store}: {report.read} logs read{resumed}, {report.unchanged} unchanged, "
            f"{report.tasks:,} tasks written in {report.seconds:.1f} s"
            + (f"; {report.skipped_lines} bad lines skipped" if report.skipped_lines else "")
        )
    )
    err = terminal.console(stderr=True)
    for label, pairs in (
        ("failed", report.failed),
        ("not a log", report.not_logs),
        ("duplicate", report.duplicates),
    ):
        for source, reason in pairs:
            err.print(safe_text(f"{label}: {source}: {reason}"))


@click.command()
@click.argument("sources", nargs=-1, required=True, type=LogSource(must_exist=False))
@click.option(
    "--store",
    required=True,
    type=OutputPath(folder=True),
    help="Store folder or URI (created if missing); --log accepts it.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Local worker processes (default: one per core).",
)
@choice_option(
    "--engine", ["local", "spark"], "local", "Read with local worker processes, or as a Spark job."
)
@click.option("--master", default=None, help="Spark master URL for --engine spark.")
@format_option
def ingest(sources, store, workers, engine, master, fmt) -> None:
    """Read SOURCES (every log perfx logs reads: event logs, history folders, job histories,
    tabular and Ousterhout logs; paths or URIs such as s3://bucket/spark-events) into the feature store STORE, one partition per application.

    Incremental: an unchanged log is not read again, an in-progress one resumes where the
    last run stopped. A log that cannot be read is reported and left out; the store keeps
    what it had. Exits 1 when some log failed.
    """
    from perfx.logs.store.ingest import ingest as run_ingest

    with _progress_bar() if fmt == "text" else _nothing() as bar:
        advance = None
        if bar is not None:
            task = bar.add_task("Ingesting logs", total=None)
            advance = lambda done, total: bar.update(task, completed=done, total=total)  # noqa: E731
        report = run_ingest(
            list(sources), store, workers=workers, engine=engine, master=master, progress=advance
        )
    if fmt == "json":
        click.echo(json.dumps(_payload(store, report), indent=2))
    else:
        _print(store, report)
    if report.failed:
        raise click.exceptions.Exit(1)


def _nothing():
    from contextlib import nullcontext

    return nullcontext(None)
