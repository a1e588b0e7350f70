"""Stragglers per stage and the share of them with a known cause (``perfx stragglers``,
``Session.stragglers()``).

JSON (stable)::

    {"causes": ["gc", ...],                       # the causes this log allowed to evaluate
     "stragglers": n, "explained": n, "explained_share": r,
     "by_cause": {"gc": n, ...},
     "stages": [{"stage_key", "app_id", "app_key", "job_id", "stage_id", "tasks", "basis",
                 "median_rate", "stragglers", "explained", "explained_share", "<cause>": n}],
     "straggler_tasks": [{"id", "stage_key", "duration", "progress_ratio", "causes": [...],
                          "primary_cause"}]}
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.table import Table

from perfx.terminal import html_of, safe_text

from .values import plain, records

TITLE = "Stragglers per stage (inverse progress rate > 1.5x the stage median)"
COLUMNS = (
    "App",
    "Job",
    "Stage",
    "Tasks",
    "Basis",
    "Stragglers",
    "Explained",
    "Causes (stragglers)",
)
NUMERIC = ("Tasks", "Stragglers", "Explained")


def _cell(value: Any) -> str:
    """A table cell: "-" where a log has no value (a MapReduce stage has no Spark stage id),
    whole numbers without ".0" (pandas keeps ids float beside missing ones)."""
    value = plain(value)
    if value is None:
        return "-"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass(frozen=True)
class StragglerReport:
    """The blocked-time analysis's straggler report (explain.blocked.stragglers) as a result."""

    report: Any

    def to_dict(self) -> dict[str, Any]:
        report = self.report
        stragglers = report.tasks[report.tasks["straggler"]]
        tasks = [
            {
                "id": plain(row["id"]) if "id" in row else None,
                "stage_key": row["stage_key"],
                "duration": plain(row["duration"]),
                "progress_ratio": plain(row["progress_ratio"]),
                "causes": [c for c in row["causes"].split(",") if c],
                "primary_cause": row["primary_cause"],
            }
            for _, row in stragglers.iterrows()
        ]
        return {
            "causes": list(report.causes),
            "stragglers": report.stragglers,
            "explained": report.explained,
            "explained_share": plain(report.explained_share),
            "by_cause": {c: int(report.stages[c].sum()) for c in report.causes},
            "stages": records(report.stages),
            "straggler_tasks": tasks,
        }

    def _repr_html_(self) -> str:
        """In a notebook: the command's tables, as HTML."""
        return html_of(self)

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> Iterator[RenderableType]:
        report = self.report
        if report.stages.empty:
            yield safe_text("No successful tasks in the log.")
            return
        table = Table(title=TITLE)
        for name in COLUMNS:
            table.add_column(name, justify="right" if name in NUMERIC else "left", overflow="fold")
        for _, s in report.stages.iterrows():
            share = "" if s["stragglers"] == 0 else f" ({100 * s['explained_share']:.0f}%)"
            causes = ", ".join(f"{c.replace('_', ' ')} {s[c]}" for c in report.causes if s[c])
            cells = (
                s.get("app_key", s.get("app_id", "")),
                s.get("job_id", ""),
                s.get("stage_id", s["stage_key"]),
                s["tasks"],
                s["basis"],
                s["stragglers"],
                f"{s['explained']}{share}",
                causes,
            )
            table.add_row(*(safe_text(_cell(cell)) for cell in cells))
        yield table
        if report.stragglers:
            yield safe_text(
                f"{report.stragglers} stragglers, {report.explained} explained "
                f"({100 * report.explained_share:.0f}%). "
                f"Causes evaluated: {', '.join(report.causes) or 'none'}."
            )
        else:
            yield safe_text("No stragglers.")
