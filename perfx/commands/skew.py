"""``perfx skew --log PATH``: find stages with computation skew in an event log and say how
to re-run the program traced to find the records behind it."""

from __future__ import annotations

import json

import click


def _material(flagged, tasks, min_excess: float):
    """The flagged tasks (``skewed_tasks``) with only the reasons that cost them at least
    ``min_excess`` ms beyond their stage's typical task, and ``excess_ms``, the most any of
    them cost; the others dropped, most costly first.

    The detector flags by ratio, and a ratio of small times is noise: a GC of 5 ms against a
    stage median of 0 ms is "infinitely" above it and costs nothing. A time per record
    ``rate_ratio`` x the median's costs ``duration - duration / rate_ratio``; a GC,
    (de)serialization time its excess over the stage's median (such a reason starts with
    its ``COSTS`` label, as the detector words it)."""
    from perfx.isolation.detect import COSTS

    flagged = flagged.reset_index(drop=True)
    columns = [c for c in COSTS if c in tasks]
    keys = ["stage_key", "task_id"]
    costs = flagged[keys].merge(tasks[keys + columns], how="left", on=keys)[columns]
    medians = tasks.groupby("stage_key")[columns].median().fillna(0).reindex(flagged["stage_key"])
    excess = costs - medians.reset_index(drop=True)
    labels = {f"{label} ": column for column, label in COSTS.items() if column in columns}

    def cost(row: int, reason: str) -> float:
        column = next((c for label, c in labels.items() if reason.startswith(label)), None)
        if column is not None:
            return float(excess.at[row, column])
        return float(flagged.at[row, "duration"] * (1 - 1 / flagged.at[row, "rate_ratio"]))

    kept = [
        [r for r in reasons if cost(row, r) >= min_excess]
        for row, reasons in enumerate(flagged["reasons"])
    ]
    flagged = flagged.assign(
        reasons=kept,
        excess_ms=[max((cost(row, r) for r in rs), default=0.0) for row, rs in enumerate(kept)],
    )
    return flagged[flagged["reasons"].map(bool)].sort_values(
        "excess_ms", ascending=False, kind="stable"
    )


def _rerun(log, flagged) -> str:
    """The perfx isolate command for the app of the most costly skewed task."""
    from perfx.chain import isolate_command

    return isolate_command(log, str(flagged["app_id"].iloc[0]))


def _spark_tasks(tasks):
    """The Spark tasks of a log (a folder may mix in MapReduce histories, whose tasks have no
    Spark stage or task ids): computation skew is looked for in PySpark programs' stages."""
    if not {"stage_id", "task_id"} <= set(tasks.columns):
        return tasks.iloc[0:0].assign(app_id="", stage_id=0, task_id=0, partition_id=-1)
    return tasks[tasks["stage_id"].notna() & tasks["task_id"].notna()]


def _partition(value) -> int | None:
    """The task's partition, None where Spark did not log it (before 3.3: -1 in the table)."""
    return int(value) if value >= 0 else None


@click.command()
@click.option(
    "--log",
    "logs",
    multiple=True,
    required=True,
    type=click.Path(exists=True),
    help="Event log file or folder of the original run (repeatable).",
)
@click.option(
    "--factor",
    type=float,
    default=1.5,
    show_default=True,
    help="Flag tasks whose time per record exceeds this multiple of their stage's median.",
)
@click.option(
    "--min-excess",
    type=float,
    default=100.0,
    show_default=True,
    help="Flag only tasks that cost at least this many ms beyond their stage's typical task.",
)
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Skewed tasks listed in text, the most costly first (JSON lists them all).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def skew(logs, factor, min_excess, top, fmt) -> None:
    """Flag stages with computation skew (slow time per record, or GC / serialization far
    above the stage's) and print the perfx isolate command for a traced re-run."""
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

    from perfx.isolation.detect import skewed_tasks
    from perfx.logs.loader import load_log

    log = load_log(list(logs))
    spark = _spark_tasks(log.tasks)
    flagged = skewed_tasks(spark, factor=factor)
    flagged = _material(flagged, log.tasks, min_excess) if len(flagged) else flagged
    names = (
        dict(zip(log.apps.get("app_id", []), log.apps.get("name", [])))
        if not log.apps.empty
        else {}
    )
    stages = []
    tasks_per_stage = log.tasks["stage_key"].value_counts()
    for (app, stage), rows in flagged.groupby(["app_id", "stage_id"], sort=False):
        stages.append(
            {
                "app_id": app,
                "app_name": names.get(app, ""),
                "stage_id": int(stage),
                "tasks": int(tasks_per_stage[rows.stage_key.iloc[0]]),
                "skewed_tasks": [
                    {
                        "task_id": int(r.task_id),
                        "partition": _partition(r.partition_id),
                        "duration_ms": float(r.duration),
                        "excess_ms": round(float(r.excess_ms), 1),
                        "rate_ratio": None
                        if pd.isna(r.rate_ratio)
                        else round(float(r.rate_ratio), 3),
                        "reasons": list(r.reasons),
                    }
                    for r in rows.itertuples()
                ],
            }
        )
    if fmt == "json":
        click.echo(
            json.dumps(
                {"stages": stages, "rerun": _rerun(log, flagged) if stages else None},
                indent=2,
                sort_keys=True,
            )
        )
        return
    console = Console()
    if not stages:
        others = len(log.tasks) - len(spark)
        other = (
            f" ({others} MapReduce tasks not judged: perfx isolate re-runs PySpark programs)"
            if others
            else ""
        )
        console.print(
            f"No computation skew found in {len(spark)} Spark tasks{other}.",
            markup=False,
            highlight=False,
        )
        return
    table = Table(title="Stages with computation skew")
    for column in ("app", "stage", "tasks", "skewed task (partition)", "why"):
        table.add_column(column, overflow="fold")
    for r in flagged.head(top).itertuples():
        partition = f" ({r.partition_id})" if _partition(r.partition_id) is not None else ""
        table.add_row(
            r.app_id,
            str(r.stage_id),
            str(tasks_per_stage[r.stage_key]),
            f"{r.task_id}{partition}",
            "; ".join(r.reasons),
        )
    console.print(table)
    if len(flagged) > top:
        console.print(
            f"and {len(flagged) - top} more (a larger --top lists them, as --format json does)",
            markup=False,
            highlight=False,
        )
    console.print(
        "Some input records cost far more than others. Re-run the program traced to name them:"
    )
    console.print(f"  {_rerun(log, flagged)}", markup=False, highlight=False)
    console.print(
        "then 'perfx culprits RUN --stage S --partition P' shows the records of one task.",
        markup=False,
        highlight=False,
    )
