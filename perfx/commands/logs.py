"""``perfx logs``: what a log holds (counts, skipped lines, Spark versions), or one of its
canonical tables as CSV, JSON or Parquet."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .options import LogSource, OutputPath, rest_options

ENTITY_CHOICES = ("task", "stage", "job", "app")
SUMMARY_FORMATS = ("text", "json")


def write_table(table, fmt: str, out: Path | None) -> None:
    """Dump one table: CSV and JSON (records, one object per row) to a file or stdout;
    Parquet only to a file."""
    if fmt == "parquet":
        if out is None:
            raise click.UsageError("--format parquet needs --out FILE")
        table.to_parquet(out, index=False)
        return
    if fmt == "csv":
        text = table.to_csv(index=False)
    else:
        records = table.astype(object).where(table.notna(), None).to_dict(orient="records")
        text = json.dumps(records, indent=2) + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text)


@click.command()
@click.argument("paths", nargs=-1, type=LogSource(must_exist=False))
@click.option(
    "--log",
    "logged",
    multiple=True,
    type=LogSource(must_exist=False),
    help="A log, as the other commands take it: the same as a PATH argument (repeatable).",
)
@click.option(
    "--entity",
    type=click.Choice(ENTITY_CHOICES),
    help="Dump this canonical table instead of the summary.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json", "csv", "parquet")),
    help="Summary: text (default) or json. Table: csv (default), json or parquet.",
)
@click.option(
    "--out",
    type=OutputPath(path_type=Path),
    help="Write the table here instead of stdout.",
)
@click.option(
    "--host-metrics",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Host metrics CSV/Parquet (host, timestamp, metrics...) to join onto tasks and jobs.",
)
@rest_options
def logs(paths, logged, entity, fmt, out, host_metrics) -> None:
    """Read Spark event logs (any codec, rolling, directories of apps) or tabular logs and
    print what they hold, or dump one of their canonical tables.

    \b
    perfx logs /tmp/spark-events
    perfx logs app.zstd --entity task --format parquet --out tasks.parquet
    perfx logs http://history-server:18080 --app application_1700000000000_0042
    """
    from .options import emit, open_session

    paths = (*paths, *logged)
    if not paths:
        raise click.UsageError("give the logs to read: perfx logs PATH... (or --log PATH)")
    if entity is None and fmt not in (None, *SUMMARY_FORMATS):
        raise click.UsageError(f"--format {fmt} needs --entity (the summary is text or json)")
    if entity is not None and fmt == "text":
        raise click.UsageError("a table is written as csv, json or parquet, not text")
    if entity is None and out is not None:
        raise click.UsageError("--out needs --entity")
    session = open_session(paths, host_metrics, progress=True)
    if entity is not None:
        write_table(session.raw.held_table(entity), fmt or "csv", out)
    else:
        emit(session.summary(), fmt or "text")
