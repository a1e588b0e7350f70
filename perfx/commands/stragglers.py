"""``perfx stragglers``: stragglers per stage and the share of them with a known cause.

JSON output (stable)::

    {"causes": ["gc", ...],                       # the causes this log allowed to evaluate
     "stragglers": n, "explained": n, "explained_share": r,
     "by_cause": {"gc": n, ...},
     "stages": [{"stage_key", "app_id", "app_key", "job_id", "stage_id", "tasks", "basis", "median_rate",
                 "stragglers", "explained", "explained_share", "<cause>": n, ...}],
     "straggler_tasks": [{"id", "stage_key", "duration", "progress_ratio", "causes": [...],
                          "primary_cause"}]}
"""

from __future__ import annotations

import json
import math

import click


def _plain(value):
    """JSON-safe scalar: numpy numbers to Python, NaN to None."""
    if hasattr(value, "item"):
        value = value.item()
    return None if isinstance(value, float) and math.isnan(value) else value


def _records(frame) -> list[dict]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _payload(report) -> dict:
    stragglers = report.tasks[report.tasks["straggler"]]
    tasks = [
        {
            "id": _plain(row["id"]) if "id" in row else None,
            "stage_key": row["stage_key"],
            "duration": _plain(row["duration"]),
            "progress_ratio": _plain(row["progress_ratio"]),
            "causes": [c for c in row["causes"].split(",") if c],
            "primary_cause": row["primary_cause"],
        }
        for _, row in stragglers.iterrows()
    ]
    return {
        "causes": list(report.causes),
        "stragglers": report.stragglers,
        "explained": report.explained,
        "explained_share": _plain(report.explained_share),
        "by_cause": {c: int(report.stages[c].sum()) for c in report.causes},
        "stages": _records(report.stages),
        "straggler_tasks": tasks,
    }


def _console():
    """Rich console; reports piped to a file get a wide page instead of 80 columns."""
    import sys

    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else 160)


def _print(report) -> None:
    from rich.table import Table

    console = _console()
    if report.tasks.empty:
        console.print("No successful tasks in the log.")
        return
    table = Table(title="Stragglers per stage (inverse progress rate > 1.5x the stage median)")
    for name in (
        "App",
        "Job",
        "Stage",
        "Tasks",
        "Basis",
        "Stragglers",
        "Explained",
        "Causes (stragglers)",
    ):
        table.add_column(
            name,
            justify="right" if name in ("Tasks", "Stragglers", "Explained") else "left",
            overflow="fold",
        )
    for _, s in report.stages.iterrows():
        share = "" if s["stragglers"] == 0 else f" ({100 * s['explained_share']:.0f}%)"
        causes = ", ".join(f"{c.replace('_', ' ')} {s[c]}" for c in report.causes if s[c])
        table.add_row(
            str(s.get("app_key", s.get("app_id", ""))),
            str(s.get("job_id", "")),
            str(s.get("stage_id", s["stage_key"])),
            str(s["tasks"]),
            s["basis"],
            str(s["stragglers"]),
            f"{s['explained']}{share}",
            causes,
        )
    console.print(table)
    if report.stragglers:
        console.print(
            f"{report.stragglers} stragglers, {report.explained} explained "
            f"({100 * report.explained_share:.0f}%). Causes evaluated: {', '.join(report.causes) or 'none'}."
        )
    else:
        console.print("No stragglers.")


def _fleet_report(store: str, since, until):
    """Stragglers of every application of a store that started in [since, until), found
    application by application (memory holds one at a time, and the straggler tasks)."""
    import pandas as pd

    from perfx.explain.blocked.stragglers import StragglerReport, find_stragglers
    from perfx.logs.errors import NotALog
    from perfx.logs.store.read import app_tasks

    def epoch_ms(day):
        return None if day is None else day.timestamp() * 1000

    tasks, stages, causes = [], [], {}
    for _, app in app_tasks(store, epoch_ms(since), epoch_ms(until)):
        report = find_stragglers(app)
        tasks.append(report.tasks[report.tasks["straggler"]])
        stages.append(report.stages)
        causes.update(dict.fromkeys(report.causes))
    if not stages:
        raise NotALog(f"{store}: no application in the store started in that range")
    stage_table = pd.concat(stages, ignore_index=True)
    for cause in causes:
        stage_table[cause] = stage_table.get(cause, 0)
        stage_table[cause] = stage_table[cause].fillna(0).astype(int)
    return StragglerReport(pd.concat(tasks, ignore_index=True), stage_table, tuple(causes))


@click.command()
@click.option(
    "--log",
    "logs",
    multiple=True,
    type=click.Path(exists=True),
    help="Event log file or folder (repeatable).",
)
@click.option(
    "--store",
    default=None,
    help="A feature store (perfx ingest), read application by application.",
)
@click.option(
    "--since",
    type=click.DateTime(),
    default=None,
    help="With --store: applications started at or after this date (local time).",
)
@click.option(
    "--until",
    type=click.DateTime(),
    default=None,
    help="With --store: applications started before this date (local time).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def stragglers(logs, store, since, until, fmt) -> None:
    """Find the stragglers of every stage and what caused them.

    A straggler's inverse progress rate (time per byte read) exceeds 1.5x its stage's median;
    it is caused by X (GC, shuffle read wait, shuffle write, input read, scheduler delay,
    (de)serialization) if it would not straggle had X taken no time in every task of the
    stage, and by output skew or by being a first task on a cold executor as the NSDI 2015
    paper defines them.
    """
    from perfx.explain.blocked.stragglers import find_stragglers
    from perfx.logs.loader import load_log

    if bool(logs) == bool(store):
        raise click.UsageError("give the logs (--log) or a store (--store), one of the two")
    if (since or until) and not store:
        raise click.UsageError("--since and --until select applications of a --store")
    report = (
        _fleet_report(store, since, until) if store else find_stragglers(load_log(list(logs)).tasks)
    )
    if fmt == "json":
        click.echo(json.dumps(_payload(report), indent=2))
    else:
        _print(report)
