"""``perfx runs``: list the traced runs in a lineage store."""

from __future__ import annotations

import json

import click

from .options import format_option, store_option


@click.command()
@store_option
@format_option
def runs(store, fmt) -> None:
    """List stored traced runs, oldest first, with their stages."""
    from rich.table import Table

    from perfx import terminal
    from perfx.isolation.stores import open_store

    opened = open_store(store)
    metas = opened.runs()
    if fmt == "json":
        click.echo(json.dumps({"store": opened.url, "runs": metas}, indent=2, sort_keys=True))
        return
    table = Table(title=f"Traced runs in {opened.url}")
    for column in ("run", "created", "program", "input", "lineage", "complete", "stages"):
        # an id or a time folded mid-way cannot be copied: the other columns give way
        table.add_column(column, overflow="fold", no_wrap=column in ("run", "created"))
    for meta in metas:
        stages = "; ".join(
            f"{number} {info['kind']} ({_partitions(info)}, Spark {','.join(map(str, info['spark_stages'])) or '-'})"
            for number, info in meta.get("stages", {}).items()
        )
        table.add_row(
            meta["run"],
            meta.get("created", ""),
            meta.get("program", ""),
            meta.get("input", ""),
            meta.get("lineage", ""),
            "yes" if meta.get("complete") else "no",
            stages,
        )
    terminal.console().print(table)


def _partitions(info: dict) -> str:
    """A stage's partitions, and how many were computed where an action like take read
    only some."""
    said = f"{info['partitions']} part."
    if "computed" in info:
        said += f", {len(info['computed'])} computed"
    return said
