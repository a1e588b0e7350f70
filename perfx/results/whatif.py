"""Job and app completion times without blocked time or stragglers (``perfx whatif``,
``Session.whatif()``).

JSON (stable)::

    {"summary": {"text": "...", "real_ms": x, "best_scenario": s, "best_saved_ms": x, ...},
     "scenarios": ["gc", "network+disk", ...],
     "model_error": {"jobs": n, "median": r, "p95": r, "max": r},   # |modelled - real| / real
     "jobs": [{"app_id", "job_id", "real_ms", "modelled_ms", "model_error",
               "overlapped_with": ["<job id>", ...],   # jobs of the app that ran at once
               "whatif": {"<scenario>": {"ms": x, "improvement": r}}}],
     "apps": [... same fields per app ...]}
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.table import Table
from rich.text import Text

from perfx.terminal import html_of, safe_text

from .headline import ROWS, Headline, count, duration, id_order, limited, more
from .values import job_label

DEFAULT_SCENARIOS = ("gc", "network", "disk", "scheduler", "serialization", "stragglers")


def scenarios_of(values: Sequence[str]) -> list[list[str]]:
    """``--without`` values as scenarios: each value one scenario, its comma-separated names
    removed together; by default the paper's scenarios one by one. Unknown names are a
    ValueError naming the choices."""
    from perfx.explain.blocked.whatif import CHOICES

    scenarios = [[n.strip() for n in v.split(",") if n.strip()] for v in values] or [
        [s] for s in DEFAULT_SCENARIOS
    ]
    unknown = sorted({n for s in scenarios for n in s} - set(CHOICES))
    if unknown or not all(scenarios):
        raise ValueError(
            f"unknown {', '.join(unknown) or 'empty name'}; choose from {', '.join(CHOICES)}"
        )
    return scenarios


def _number(value: Any) -> float | None:
    return (
        None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)
    )


def _rows(results: Sequence[Any], table: str, keys: list[str]) -> list[dict[str, Any]]:
    """One dict per job (or app) with the real, modelled and each scenario's what-if time."""
    first = getattr(results[0], table)
    rows = []
    for i, row in enumerate(first.to_dict(orient="records")):
        whatif: dict[str, dict[str, float | None]] = {}
        for result in results:
            other = getattr(result, table).iloc[i]
            whatif["+".join(result.without)] = {
                "ms": _number(other["whatif_ms"]),
                "improvement": _number(other["improvement"]),
            }
        out: dict[str, Any] = {
            **{k: str(row[k]) for k in keys},
            "real_ms": _number(row["real_ms"]),
            "modelled_ms": _number(row["modelled_ms"]),
            "model_error": _number(row["model_error"]),
        }
        if "overlaps" in first.columns:
            out["overlapped_with"] = [str(j) for j in row["overlaps"]]
        out["whatif"] = whatif
        rows.append(out)
    return rows


def _error_summary(jobs: list[dict[str, Any]]) -> dict[str, Any]:
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


def _saved(row: dict[str, Any], scenario: str) -> float:
    """How much sooner the job (or app) would have finished in ``scenario`` than in the
    replay of its real durations (ms; never negative)."""
    modelled, whatif = row["modelled_ms"], row["whatif"][scenario]["ms"]
    return max(modelled - whatif, 0.0) if modelled is not None and whatif is not None else 0.0


def _stake(row: dict[str, Any], scenarios: Sequence[str]) -> float:
    """A job's time at stake: what its best scenario saves."""
    return max((_saved(row, s) for s in scenarios), default=0.0)


OVERLAPS_SHOWN = 5
"""Jobs named in a row's "Overlapped with" cell before "and N more"."""


def _overlapped(jobs: list[str]) -> str:
    shown = ", ".join(jobs[:OVERLAPS_SHOWN])
    more = len(jobs) - OVERLAPS_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown or "-"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def left_out_words(left_out: int, of: str = "the replay") -> str:
    """What the replay (or ``of`` another view) says of the attempts it left out
    (``WhatIf.left_out``)."""
    they, their = ("it", "its") if left_out == 1 else ("they", "their")
    return (
        f"{count(left_out, 'task attempt')} left out of {of}: {they} launched outside "
        f"{their} application's logged span (damaged times)"
    )


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value / 1000:.2f}s"


@dataclass(frozen=True)
class WhatIfReport:
    """Per job and app: real, modelled (the replay of the real durations) and each scenario's
    time with its improvement over the modelled one."""

    scenarios: list[str]
    jobs: list[dict[str, Any]]
    apps: list[dict[str, Any]]
    limit: int | None = ROWS
    """Jobs the table shows, those with the most time at stake first (None: all)."""
    left_out: int = 0
    """Task attempts not replayed: launched outside their application's logged span."""

    @classmethod
    def of(cls, log: Any, scenarios: Sequence[Sequence[str]]) -> WhatIfReport:
        from perfx.explain.blocked.whatif import whatifs

        results = whatifs(log, [list(s) for s in scenarios])
        jobs = _rows(results, "jobs", ["app_id", "job_id"])
        apps = _rows(results, "apps", ["app_id"])
        return cls(
            ["+".join(s) for s in scenarios],
            sorted(jobs, key=lambda r: (id_order(r["app_id"]), id_order(r["job_id"]))),
            sorted(apps, key=lambda r: id_order(r["app_id"])),
            left_out=results[0].left_out if results else 0,
        )

    def headline(self) -> Headline:
        """How long the applications ran, the scenario that saves the most and the job with
        the most at stake, in one paragraph."""
        real = sum(a["real_ms"] or 0 for a in self.apps)
        saved = {s: sum(_saved(a, s) for a in self.apps) for s in self.scenarios}
        best = max(self.scenarios, key=lambda s: saved[s]) if self.scenarios else None
        values: dict[str, Any] = {
            "jobs": len(self.jobs),
            "apps": len(self.apps),
            "real_ms": round(real, 1),
            "best_scenario": best,
            "best_saved_ms": round(saved[best], 1) if best else None,
            "saved_ms": {s: round(v, 1) for s, v in saved.items()},
        }
        text = (  # the applications' time, first event to last: their jobs' and between them
            f"{count(len(self.apps), 'application')} ({count(len(self.jobs), 'job')}) ran "
            f"{duration(real)}."
        )
        if best is not None and saved[best] > 0:
            modelled = sum(a["modelled_ms"] or 0 for a in self.apps)
            share = saved[best] / modelled if modelled else None
            values["best_saved_share"] = share
            text += (
                f" Without {best} they would have finished {duration(saved[best])} sooner"
                + (f" ({100 * share:.1f} % of the modelled time)" if share is not None else "")
                + ", the most of any scenario"
            )
            others = [s for s in sorted(saved, key=lambda s: -saved[s]) if s != best]
            if others and saved[others[0]] > 0:
                text += f"; then without {others[0]} ({duration(saved[others[0]])})"
            job = max(self.jobs, key=lambda r: _stake(r, self.scenarios))
            values["most_at_stake_job"] = {"app_id": job["app_id"], "job_id": job["job_id"]}
            values["most_at_stake_ms"] = round(_stake(job, self.scenarios), 1)
            label = job_label(job["job_id"])
            text += (
                f". {f'Job {label}' if label else 'A job whose start the log lacks'} has the "
                "most at stake "
                f"({duration(_stake(job, self.scenarios))} in its best scenario)."
            )
        else:
            text += " No scenario would have made them finish sooner."
        if self.left_out:
            values["left_out"] = self.left_out
            text += f" {left_out_words(self.left_out)}."
        return Headline(text, values)

    @property
    def model_error(self) -> dict[str, Any]:
        return _error_summary(self.jobs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.headline().to_dict(),
            "scenarios": self.scenarios,
            "model_error": self.model_error,
            "jobs": self.jobs,
            "apps": self.apps,
        }

    def _table(self, title: str, rows: list[dict[str, Any]], keys: list[str]) -> Table:
        table = Table(title=title)
        if len({r["app_id"] for r in self.jobs}) <= 1 and len(keys) > 1:
            keys = [k for k in keys if k != "app_id"]  # one application: named in its table
        for k in keys:
            table.add_column(k.replace("_", " ").title(), no_wrap=True)
        overlaps = any(r.get("overlapped_with") for r in rows)
        if overlaps:
            table.add_column("Overlapped with", overflow="fold")
        table.add_column("Real", justify="right")
        table.add_column("Modelled (error)", justify="right")
        for s in self.scenarios:
            table.add_column(f"Without {s}", justify="right", overflow="fold")
        for r in rows:
            cells: list[Text | str] = [safe_text(r[k]) for k in keys]
            if overlaps:
                cells.append(_overlapped(r.get("overlapped_with", [])))
            cells += [
                _seconds(r["real_ms"]),
                f"{_seconds(r['modelled_ms'])} ({_percent(r['model_error'])})",
            ]
            cells += [
                f"{_seconds(r['whatif'][s]['ms'])} ({_percent(r['whatif'][s]['improvement'])})"
                for s in self.scenarios
            ]
            table.add_row(*cells)
        return table

    def _repr_html_(self) -> str:
        """In a notebook: the command's tables, as HTML."""
        return html_of(self)

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> Iterator[RenderableType]:
        if not self.jobs:
            yield safe_text("No jobs with finished tasks in the log.")
            return
        yield self.headline()
        ordered = sorted(self.jobs, key=lambda r: -_stake(r, self.scenarios))
        shown, hidden = limited(ordered, self.limit)
        yield self._table(
            "Jobs by time at stake: real, modelled and what-if completion time (improvement)",
            shown,
            ["app_id", "job_id"],
        )
        if hidden:
            yield more(hidden, "job")
        apps = sorted(self.apps, key=lambda r: -_stake(r, self.scenarios))
        shown, hidden = limited(apps, self.limit)
        yield self._table("Applications", shown, ["app_id"])
        if hidden:
            yield more(hidden, "application")
        summary = self.model_error
        yield safe_text(
            f"Model error |modelled - real| / real over {summary['jobs']} jobs: median "
            f"{_percent(summary['median'])}, 95th percentile {_percent(summary['p95'])}, "
            f"max {_percent(summary['max'])}"
        )
        overlapped = sum(bool(j.get("overlapped_with")) for j in self.jobs)
        yield safe_text(
            f"{overlapped} of {len(self.jobs)} jobs overlapped other jobs of their app and "
            "shared its slots"
        )
