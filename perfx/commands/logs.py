"""``perfx logs``: what a log holds (counts, skipped lines, Spark versions), or one of its
canonical tables as CSV, JSON or Parquet."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import click

ENTITY_CHOICES = ("task", "stage", "job", "app")
SUMMARY_FORMATS = ("text", "json")
SKIPPED_SHOWN = 20
"""Skipped lines listed one by one in text output; the rest are only counted."""


def stage_count(log) -> int:
    """The stages of the log: the rows of its stage table, and the stages of the tasks no
    stage table lists — MapReduce's, whose job's map tasks and reduce tasks are its two
    stages — as ``perfx stragglers`` groups them."""
    from perfx.explain.blocked.stragglers import with_stages

    stages = set(log.stages["id"]) if "id" in log.stages else set()
    tasks = with_stages(log.tasks)
    if "stage_key" in tasks:
        stages.update(tasks["stage_key"].dropna())
    return len(stages)


def summary(log) -> dict:
    """The stable JSON summary of a log: counts, Spark versions and skipped lines."""
    versions = sorted(set(log.apps["spark_version"])) if "spark_version" in log.apps else []
    reasons = Counter(s.reason for s in log.skipped)
    return {
        "sources": list(log.sources),
        "apps": len(log.apps),
        "jobs": len(log.jobs),
        "stages": stage_count(log),
        "tasks": len(log.tasks),
        "spark_versions": [v if v else "unknown (< 1.3)" for v in versions],
        "skipped": {
            "count": len(log.skipped),
            "by_reason": dict(sorted(reasons.items(), key=lambda item: (-item[1], item[0]))),
            "lines": [{"path": s.path, "line": s.line, "reason": s.reason} for s in log.skipped],
        },
    }


def print_summary(data: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    counts = Table(title="Log", show_header=False)
    counts.add_column("what")
    counts.add_column("count", justify="right")
    for label, key in (
        ("applications", "apps"),
        ("jobs", "jobs"),
        ("stages", "stages"),
        ("tasks", "tasks"),
    ):
        counts.add_row(label, str(data[key]))
    counts.add_row("Spark versions", ", ".join(data["spark_versions"]) or "-")
    counts.add_row("skipped lines", str(data["skipped"]["count"]))
    console.print(counts)
    lines = data["skipped"]["lines"]
    if not lines:
        return
    skipped = Table(title="Skipped")
    skipped.add_column("file")
    skipped.add_column("line", justify="right")
    skipped.add_column("reason")
    for item in lines[:SKIPPED_SHOWN]:
        skipped.add_row(item["path"], str(item["line"]) if item["line"] else "-", item["reason"])
    console.print(skipped)
    if len(lines) > SKIPPED_SHOWN:
        console.print(f"... and {len(lines) - SKIPPED_SHOWN} more (--format json lists them all)")


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
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
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
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the table here instead of stdout.",
)
@click.option(
    "--host-metrics",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Host metrics CSV/Parquet (host, timestamp, metrics...) to join onto tasks and jobs.",
)
def logs(paths, entity, fmt, out, host_metrics) -> None:
    """Read Spark event logs (any codec, rolling, directories of apps) or tabular logs and
    print what they hold, or dump one of their canonical tables.

    \b
    perfx logs /tmp/spark-events
    perfx logs app.zstd --entity task --format parquet --out tasks.parquet
    """
    from perfx.logs.loader import load_log

    if entity is None and fmt not in (None, *SUMMARY_FORMATS):
        raise click.UsageError(f"--format {fmt} needs --entity (the summary is text or json)")
    if entity is not None and fmt == "text":
        raise click.UsageError("a table is written as csv, json or parquet, not text")
    if entity is None and out is not None:
        raise click.UsageError("--out needs --entity")
    log = load_log(list(paths), progress=True, host_metrics=host_metrics)
    if entity is not None:
        write_table(log.table(entity), fmt or "csv", out)
    elif fmt == "json":
        click.echo(json.dumps(summary(log), indent=2))
    else:
        print_summary(summary(log))
