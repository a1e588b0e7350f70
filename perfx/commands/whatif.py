"""``perfx whatif``: job and app completion times without blocked time or stragglers.

Each ``--without`` is one scenario (comma-separated names are removed together); by default
the paper's separate scenarios are shown side by side. JSON output (stable)::

    {"scenarios": ["gc", "network+disk", ...],
     "model_error": {"jobs": n, "median": r, "p95": r, "max": r},   # |modelled - real| / real
     "jobs": [{"app_id", "job_id", "real_ms", "modelled_ms", "model_error",
               "overlapped_with": ["<job id>", ...],   # jobs of the app that ran at once
               "whatif": {"<scenario>": {"ms": x, "improvement": r}}}],
     "apps": [... same fields per app ...]}
"""

from __future__ import annotations

import json
import math

import click

DEFAULT_SCENARIOS = ("gc", "network", "disk", "scheduler", "serialization", "stragglers")


def _scenarios(values: tuple[str, ...]) -> list[list[str]]:
    from perfx.explain.blocked.whatif import CHOICES

    scenarios = [[n.strip() for n in v.split(",") if n.strip()] for v in values] or [
        [s] for s in DEFAULT_SCENARIOS
    ]
    unknown = sorted({n for s in scenarios for n in s} - set(CHOICES))
    if unknown or not all(scenarios):
        raise click.BadParameter(
            f"unknown {', '.join(unknown) or 'empty name'}; choose from {', '.join(CHOICES)}",
            param_hint="--without",
        )
    return scenarios


def _number(value) -> float | None:
    return (
        None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)
    )


def _rows(results, table: str, keys: list[str]) -> list[dict]:
    """One dict per job (or app) with the real, modelled and each scenario's what-if time."""
    first = getattr(results[0], table)
    rows = []
    for i, row in first.iterrows():
        out = {k: str(row[k]) for k in keys}
        out.update(
            real_ms=_number(row["real_ms"]),
            modelled_ms=_number(row["modelled_ms"]),
            model_error=_number(row["model_error"]),
            whatif={},
        )
        if "overlaps" in first.columns:
            out["overlapped_with"] = [str(j) for j in row["overlaps"]]
        for result in results:
            other = getattr(result, table).iloc[i]
            out["whatif"]["+".join(result.without)] = {
                "ms": _number(other["whatif_ms"]),
                "improvement": _number(other["improvement"]),
            }
        rows.append(out)
    return rows


def _error_summary(jobs: list[dict]) -> dict:
    import numpy as np

    errors = np.abs([j["model_error"] for j in jobs if j["model_error"] is not None])
    if not len(errors):
        return {"jobs": 0, "median": None, "p95": None, "max": None}
    return {
        "jobs": len(errors),
        "median": float(np.median(errors)),
        "p95": float(np.percentile(errors, 95)),
        "max": float(errors.max()),
    }


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value / 1000:.2f}s"


OVERLAPS_SHOWN = 5
"""Jobs named in a row's "Overlapped with" cell before "and N more"."""


def _overlapped(jobs: list[str]) -> str:
    shown = ", ".join(jobs[:OVERLAPS_SHOWN])
    more = len(jobs) - OVERLAPS_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown or "-"


def _table(title: str, rows: list[dict], keys: list[str], scenarios: list[str]):
    """One row per job (app): real, modelled (model error), the jobs it overlapped, then per
    scenario the what-if time and its improvement."""
    from rich.table import Table

    table = Table(title=title)
    for k in keys:
        table.add_column(k.replace("_", " ").title(), overflow="fold")
    overlaps = any("overlapped_with" in r for r in rows)
    if overlaps:
        table.add_column("Overlapped with", overflow="fold")
    table.add_column("Real", justify="right")
    table.add_column("Modelled (error)", justify="right")
    for s in scenarios:
        table.add_column(f"Without {s}", justify="right", overflow="fold")
    for r in rows:
        cells = [r[k] for k in keys]
        if overlaps:
            cells.append(_overlapped(r.get("overlapped_with", [])))
        cells += [
            _seconds(r["real_ms"]),
            f"{_seconds(r['modelled_ms'])} ({_percent(r['model_error'])})",
        ]
        cells += [
            f"{_seconds(r['whatif'][s]['ms'])} ({_percent(r['whatif'][s]['improvement'])})"
            for s in scenarios
        ]
        table.add_row(*cells)
    return table


@click.command()
@click.option(
    "--log",
    "logs",
    multiple=True,
    required=True,
    type=click.Path(exists=True),
    help="Event log file or folder (repeatable).",
)
@click.option(
    "--without",
    "without",
    multiple=True,
    metavar="NAMES",
    help="Comma-separated components removed together: gc, network, disk, scheduler, serialization, "
    "stragglers, or a single cause (shuffle_read, input_read, ...). Repeatable: one scenario each. "
    "Default: each of " + ", ".join(DEFAULT_SCENARIOS) + " on its own.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def whatif(logs, without, fmt) -> None:
    """How much faster would each job have run without GC, network, disk, ... or stragglers?

    Replays all of an application's jobs together on its executors' slots with shortened
    tasks (blocked-time analysis, NSDI 2015), keeping the delays each task really had with a
    free slot (locality wait). The improvement compares with the replay of the real
    durations; the model error is how far that replay is from the real job time. Jobs that
    ran at the same time share the slots and are listed as overlapped.
    """
    from perfx.explain.blocked.whatif import whatifs
    from perfx.logs.loader import load_log

    scenarios = _scenarios(without)
    results = whatifs(load_log(list(logs)), scenarios)
    labels = ["+".join(s) for s in scenarios]
    jobs = _rows(results, "jobs", ["app_id", "job_id"])
    apps = _rows(results, "apps", ["app_id"])
    summary = _error_summary(jobs)
    if fmt == "json":
        click.echo(
            json.dumps(
                {"scenarios": labels, "model_error": summary, "jobs": jobs, "apps": apps}, indent=2
            )
        )
        return
    from perfx.commands.stragglers import _console

    console = _console()
    if not jobs:
        console.print("No jobs with finished tasks in the log.")
        return
    console.print(
        _table(
            "Jobs: real, modelled and what-if completion time (improvement)",
            jobs,
            ["app_id", "job_id"],
            labels,
        )
    )
    console.print(_table("Applications", apps, ["app_id"], labels))
    console.print(
        f"Model error |modelled - real| / real over {summary['jobs']} jobs: median {_percent(summary['median'])}, "
        f"95th percentile {_percent(summary['p95'])}, max {_percent(summary['max'])}"
    )
    overlapped = sum(bool(j.get("overlapped_with")) for j in jobs)
    console.print(
        f"{overlapped} of {len(jobs)} jobs overlapped other jobs of their app and shared its slots"
    )
