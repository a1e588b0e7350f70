"""``perfx culprits RUN``: query a stored traced run — its outputs and top culprit inputs,
the culprits inside one task's partition, or the backward trace of one output.

Also holds the tables ``perfx isolate`` prints, so both commands show runs the same way."""

from __future__ import annotations

import json

import click

from perfx.terminal import safe_text

from ..results.culprits import culprits_payload, scope_of, udf_calls_of
from .options import format_option, number_option, store_option


def _ms(value: float) -> str:
    return f"{value:,.1f}"


def print_outputs(console, frame, shown: int = 20) -> None:
    from rich.table import Table

    from perfx.isolation.ids import describe_id

    table = Table(
        title=f"Output records, slowest first ({len(frame)} shown)"
        if len(frame) <= shown
        else f"Output records, slowest first (top {shown} of {len(frame)})"
    )
    for column in ("record", "latency ms", "slowest input", "remediated ms"):
        table.add_column(
            column, justify="right" if column.endswith(" ms") else "left", overflow="fold"
        )
    for r in frame.head(shown).itertuples():
        table.add_row(
            safe_text(r.record),
            _ms(r.latency_ms),
            safe_text(f"{describe_id(int(r.source))} {r.location}"),
            _ms(r.remediated_ms),
        )
    console.print(table)


def print_udf_culprits(console, frame) -> None:
    """The rows whose Python UDF calls cost the most in the task that spent most in UDFs."""
    from rich.table import Table

    from perfx.isolation.udf import noted_words, under_noted

    where = (
        f"Spark stage {frame.spark_stage.iloc[0]} partition {frame.partition.iloc[0]}"
        if len(frame)
        else "no task"
    )
    table = Table(title=f"Rows whose Python UDF calls cost the most ({where})")
    share = "share of the task's UDF time"  # udf_culprits without the task's duration
    for column in ("#", "udf", "file", "line", "arguments", "ms", share):
        numeric = column in ("#", "line", "ms", share)
        table.add_column(column, justify="right" if numeric else "left", overflow="fold")
    for rank, r in enumerate(frame.itertuples(), 1):
        if isinstance(r.location, str):
            where = r.location.rsplit("@", 1)[0]
        elif under_noted(r.ms):
            where = f"(under {noted_words()}: not located)"
        else:
            where = "(not located)"
        table.add_row(
            str(rank),
            safe_text(r.udf),
            safe_text(where),
            "" if r.line is None or r.line != r.line else str(int(r.line)),
            safe_text(r.excerpt),
            _ms(r.ms),
            "" if r.share != r.share else f"{r.share * 100:.0f} %",
        )
    console.print(table)


def print_culprits(console, frame, title: str) -> None:
    from rich.table import Table

    from perfx.isolation.ids import describe_id

    table = Table(title=title)
    for column in ("#", "input id", "location", "content", "impact ms", "outputs"):
        numeric = column in ("#", "impact ms", "outputs")
        table.add_column(column, justify="right" if numeric else "left", overflow="fold")
    for rank, r in enumerate(frame.itertuples(), 1):
        table.add_row(
            str(rank),
            describe_id(int(r.source)),
            safe_text(r.location),
            safe_text(r.excerpt),
            _ms(r.impact_ms),
            str(r.outputs),
        )
    console.print(table)


@click.command()
@click.argument("run")
@store_option
@click.option(
    "--stage", type=int, help="Lineage stage of one task (see perfx runs); with --partition."
)
@click.option("--partition", type=int, help="Partition of that task; with --stage.")
@click.option(
    "--trace",
    "trace_key",
    metavar="OUTPUT_KEY",
    help="Backward-trace the output with this key, record or id (needs --lineage full).",
)
@number_option("--top", 10, "How many culprits.")
@format_option
def culprits(run, store, stage, partition, trace_key, top, fmt) -> None:
    """Show the culprit input records of stored run RUN (ids from perfx runs)."""
    from perfx import terminal
    from perfx.isolation.queries import StoredRun, backward_trace, outputs, top_culprits
    from perfx.isolation.stores import open_store
    from perfx.isolation.udf import udf_culprits

    stored = StoredRun.open(open_store(store), run)
    console = terminal.console()
    if trace_key is not None:
        trace = backward_trace(stored, trace_key)
        if fmt == "json":
            click.echo(
                json.dumps(
                    {
                        "run": run,
                        "output": trace.output,
                        "sources": trace.count,
                        "shown": [
                            {"id": int(r.source), "location": r.location, "excerpt": r.excerpt}
                            for r in trace.sources.itertuples()
                        ],
                    },
                    indent=2,
                    sort_keys=True,
                )
            )
            return
        console.print(
            f"Output {trace.output['record']} ({_ms(trace.output['latency_ms'])} ms) derives "
            f"from {trace.count:,} input record(s); the first {len(trace.sources)}:"
        )
        for r in trace.sources.itertuples():
            console.print(safe_text(f"  {r.location}  {r.excerpt}"))
        return
    if fmt == "json":
        click.echo(
            json.dumps(
                culprits_payload(stored, run, top, stage, partition), indent=2, sort_keys=True
            )
        )
        return
    calls = udf_calls_of(stored) if stage is None else None
    if calls is not None:
        print_udf_culprits(console, udf_culprits(calls, top=top))
    if stored.meta.get("outputs"):  # a script's run may hold UDF calls only
        ranked = top_culprits(stored, top, stage=stage, partition=partition)
        print_culprits(  # the answer first, then the outputs it leads (``print_result``)
            console, ranked, f"Top culprit input records of {scope_of(stage, partition)}"
        )
        if stage is None:
            print_outputs(console, outputs(stored))
    console.print(f"run {run}")
