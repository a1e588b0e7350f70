"""``perfx features``: the features a log offers for one entity kind, with kind, unit, role
and description, so users know what they can write in PXQL."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .logs import ENTITY_CHOICES


@click.command()
@click.option(
    "--log",
    "logs",
    multiple=True,
    required=True,
    type=click.Path(path_type=Path),
    help="Log file or folder (repeatable).",
)
@click.option("--entity", type=click.Choice(ENTITY_CHOICES), default="task", show_default=True)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--host-metrics",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Host metrics CSV/Parquet (host, timestamp, metrics...) to join onto tasks and jobs.",
)
def features(logs, entity, fmt, host_metrics) -> None:
    """List the features of a log's tasks (or stages, jobs, apps).

    Role ``feature`` may appear in generated explanations; ``outcome`` (restates the duration),
    ``symptom`` (computed from an outcome: time per record, shares) and ``identity`` (names an
    execution) may be written in queries but are never proposed.
    """
    from perfx.questions import load_for_questions

    log = load_for_questions(logs, progress=True, host_metrics=host_metrics)
    specs = log.features(entity)
    if fmt == "json":
        rows = [
            {
                "name": s.name,
                "kind": s.kind,
                "unit": s.unit,
                "role": log.registry.role_of(entity, s),
                "description": s.description,
                "aliases": list(s.aliases),
                "inputs": list(s.inputs),
                "accounts_for": list(s.accounts),
                "context": s.context,
            }
            for s in specs
        ]
        click.echo(json.dumps({"entity": entity, "features": rows}, indent=2))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{entity} features ({len(specs)})")
    for column in ("name", "kind", "unit", "role", "description"):
        table.add_column(column, overflow="fold")
    for s in specs:
        table.add_row(
            *(
                Text(v)
                for v in (s.name, s.kind, s.unit, log.registry.role_of(entity, s), s.description)
            )
        )
    Console(highlight=False).print(table)
