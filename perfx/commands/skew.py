"""``perfx skew --log PATH``: find stages with computation skew in an event log and say how
to re-run the program traced to find the records behind it."""

from __future__ import annotations

import json

import click

RERUN = "perfx isolate PROGRAM.py --input INPUT"


@click.command()
@click.option("--log", "logs", multiple=True, required=True, type=click.Path(exists=True),
              help="Event log file or folder of the original run (repeatable).")
@click.option("--factor", type=float, default=1.5, show_default=True,
              help="Flag tasks whose time per record exceeds this multiple of their stage's median.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def skew(logs, factor, fmt) -> None:
    """Flag stages with computation skew (slow time per record, or GC / serialization far
    above the stage's) and print the perfx isolate command for a traced re-run."""
    from rich.console import Console
    from rich.table import Table

    from perfx.isolation.detect import skewed_tasks
    from perfx.logs.loader import load_log

    log = load_log(list(logs))
    flagged = skewed_tasks(log.tasks, factor=factor)
    names = dict(zip(log.apps.get("app_id", []), log.apps.get("name", []))) if not log.apps.empty else {}
    stages = []
    tasks_per_stage = log.tasks["stage_key"].value_counts()
    for (app, stage), rows in flagged.groupby(["app_id", "stage_id"], sort=False):
        stages.append({
            "app_id": app, "app_name": names.get(app, ""), "stage_id": int(stage),
            "tasks": int(tasks_per_stage[rows.stage_key.iloc[0]]),
            "skewed_tasks": [{"task_id": int(r.task_id), "partition": int(r.partition_id),
                              "duration_ms": float(r.duration), "rate_ratio": round(float(r.rate_ratio), 3),
                              "reasons": list(r.reasons)} for r in rows.itertuples()],
        })
    if fmt == "json":
        click.echo(json.dumps({"stages": stages, "rerun": RERUN if stages else None}, indent=2, sort_keys=True))
        return
    console = Console()
    if not stages:
        console.print(f"No computation skew found in {len(log.tasks)} tasks.")
        return
    table = Table(title="Stages with computation skew")
    for column in ("app", "stage", "tasks", "skewed task (partition)", "why"):
        table.add_column(column, overflow="fold")
    for stage in stages:
        for task in stage["skewed_tasks"]:
            table.add_row(stage["app_name"] or stage["app_id"], str(stage["stage_id"]), str(stage["tasks"]),
                          f"{task['task_id']} ({task['partition']})", "; ".join(task["reasons"]))
    console.print(table)
    console.print("Some input records cost far more than others. Re-run the program traced to name them:")
    console.print(f"  {RERUN}", markup=False, highlight=False)
    console.print("then 'perfx culprits RUN --stage S --partition P' shows the records of one task.",
                  markup=False, highlight=False)
