"""Stragglers per stage and the share of them with a known cause (``perfx stragglers``,
``Session.stragglers()``).

JSON (stable)::

    {"summary": {"text": "...", "stragglers": n, "at_stake_ms": x, "top_causes": {...}, ...},
     "causes": ["gc", ...],                       # the causes this log allowed to evaluate
     "stragglers": n, "explained": n, "explained_share": r,
     "by_cause": {"gc": n, ...},
     "stages": [{"stage_key", "app_id", "app_key", "job_id", "stage_id", "tasks", "basis",
                 "median_rate", "stragglers", "explained", "explained_share", "<cause>": n}],
     "straggler_tasks": [{"id", "stage_key", "duration", "progress_ratio", "causes": [...],
                          "primary_cause", "cause"}],
     "slow_not_stragglers": [{"id", "stage_key", "duration", "stage_median", "cause"}]}

``causes`` and ``primary_cause`` are the blocked-time analysis's (what removing each blocked
time would save); ``cause`` is the task's cause as ``perfx explain`` names it
(``explain.cause.task_cause``: the mechanism of its gap to its stage's typical task, or "no
cause stands out"), so that the two commands never give one task two causes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.table import Table

from perfx.terminal import html_of, safe_text

from .headline import ROWS, Headline, count, duration, id_order, limited, listing, more
from .values import job_label, plain, records

TITLE = "Stragglers per stage (inverse progress rate > 1.5x the stage median)"
COLUMNS = (
    "App",
    "Job",
    "Stage",
    "Tasks",
    "Basis",
    "Stragglers",
    "At stake",
    "By rule",
    "Rule causes (stragglers)",
)
"""The table's columns. "By rule" and the rule causes are the blocked-time rules' (a straggler
whose GC, shuffle, ... time or output is out of line with its stage's), not the causes the
headline counts, which ``perfx explain`` names: a log's stragglers can have many of one and
none of the other, so the two are never both called "explained"."""
NUMERIC = ("Tasks", "Stragglers", "At stake", "By rule")
NOT_A_CAUSE = ("no cause stands out", "no reference")
"""What ``task_cause`` says of a straggler it names no cause for: never a top cause."""
NAMED_IN_HALVES = 2000
"""Stragglers from which half of them are named in a forked child: about 0.3 ms each, so a
fork (tens of ms) pays from a few thousand."""
IDS = ("App", "Job", "Stage")
"""Columns of ids: never wrapped mid-id."""


def _cell(value: Any) -> str:
    """A table cell: "-" where a log has no value (a MapReduce stage has no Spark stage id),
    whole numbers without ".0" (pandas keeps ids float beside missing ones)."""
    value = plain(value)
    if value is None:
        return "-"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def apps_of(stages: Any) -> int:
    """How many applications a stage table covers (its App column is shown only for two)."""
    column = next((c for c in ("app_key", "app_id") if c in stages), None)
    return int(stages[column].nunique()) if column else 1


BASIS_WORDS = {"bytes": "time per byte", "records": "time per record", "duration": "duration"}
"""How the headline says a stage's basis (``find_stragglers``: time per byte read, per
record where no bytes are logged, the duration where tasks read nothing)."""


def _basis_order(basis: str) -> int:
    return list(BASIS_WORDS).index(basis) if basis in BASIS_WORDS else len(BASIS_WORDS)


def _have(n: int) -> str:
    """The verb agreeing with a count: ``1 has``, ``0 have``, ``2 have``."""
    return "has" if n == 1 else "have"


SLOW_FOLD = 2.0
"""Times its stage's median duration a task that is no straggler must take to be listed as
slow all the same: a straggler is slow for its data (time per byte or record), and a task
that read 50x its stage's bytes at their pace took 7.8x the median while neither this
listing nor ``perfx skew`` named it (a probe of held-out causes: data skew)."""
SLOW_MIN_MS = 100.0
"""...and at least this much longer than the median: 2x a 20 ms median is no time at stake."""
SLOW_SHOWN = 3
"""Slow tasks that are no stragglers named at most, the most time beyond its median first."""


def slow_not_stragglers(tasks: Any) -> list[dict[str, Any]]:
    """The tasks that are no stragglers yet took ``SLOW_FOLD`` times their stage's median
    duration (stages of three tasks or more), the ``SLOW_SHOWN`` with the most time beyond
    it: {id, stage_key, duration, stage_median}."""
    if tasks.empty or not {"id", "stage_key", "duration", "straggler"} <= set(tasks.columns):
        return []
    stage = tasks.groupby("stage_key", observed=True)["duration"]
    median, size = stage.transform("median"), stage.transform("size")
    beyond = tasks["duration"] - median
    slow = (
        ~tasks["straggler"].astype(bool)
        & (size >= 3)
        & (tasks["duration"] >= SLOW_FOLD * median)
        & (beyond >= SLOW_MIN_MS)
    )
    order = beyond[slow].sort_values(ascending=False, kind="stable").index[:SLOW_SHOWN]
    return [
        {
            "id": str(tasks.at[i, "id"]),
            "stage_key": str(tasks.at[i, "stage_key"]),
            "duration": float(tasks.at[i, "duration"]),
            "stage_median": float(median[i]),
        }
        for i in order
    ]


@dataclass(frozen=True)
class StragglerReport:
    """The blocked-time analysis's straggler report (explain.blocked.stragglers) as a result."""

    report: Any
    named: dict[str, str] | None = None
    """Each straggler's cause as ``perfx explain`` names it (``of``), by task id."""
    limit: int | None = ROWS
    """Stages the table shows, those with the most time at stake first (None: all)."""
    slow: tuple[dict[str, Any], ...] = ()
    """The slowest tasks that are no stragglers (``slow_not_stragglers``), with their causes."""

    @classmethod
    def of(cls, analysis: Any, log: Any) -> StragglerReport:
        """The report with each straggler's cause named by the one cause model, half of
        them in a forked child on a large log (``background.in_halves``)."""
        from perfx.explain.cause import cause_names
        from perfx.logs.background import in_halves

        tasks = analysis.tasks
        if "id" not in tasks.columns:  # a log cut before its task events: no task to name
            return cls(analysis, None)
        ids = tasks.loc[tasks["straggler"], "id"].astype(str).tolist()
        found = slow_not_stragglers(tasks)
        # one pass names both: a pass in the forked child leaves the parent's columns unbuilt
        causes = in_halves(
            partial(cause_names, log), ids + [task["id"] for task in found], NAMED_IN_HALVES
        )
        slow = tuple(dict(task, cause=causes.get(task["id"])) for task in found)
        return cls(analysis, {i: causes[i] for i in ids}, slow=slow)

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
                "cause": (self.named or {}).get(str(row.get("id"))),
            }
            for _, row in stragglers.iterrows()
        ]
        return {
            "summary": self.headline().to_dict(),
            "causes": list(report.causes),
            "stragglers": report.stragglers,
            "explained": report.explained,
            "explained_share": plain(report.explained_share),
            "by_cause": {c: int(report.stages[c].sum()) for c in report.causes},
            "stages": records(report.stages),
            "straggler_tasks": tasks,
            "slow_not_stragglers": [dict(task) for task in self.slow],
        }

    def at_stake(self) -> dict[str, float]:
        """Per stage key, the time its stragglers took beyond their stage's median progress
        rate (ms): a straggler ``progress_ratio`` x the median's took ``duration -
        duration / progress_ratio`` more than a median task would have for its data."""
        tasks = self.report.tasks
        stragglers = tasks[tasks["straggler"]]
        if stragglers.empty:
            return {}
        ratio = stragglers["progress_ratio"].astype(float)
        excess = (stragglers["duration"].astype(float) * (1 - 1 / ratio)).clip(lower=0)
        return {
            str(k): float(v)
            for k, v in excess.fillna(0).groupby(stragglers["stage_key"]).sum().items()
        }

    def headline(self) -> Headline:
        """What was slow, the time at stake and the top causes, in one paragraph."""
        report = self.report
        stakes = self.at_stake()
        total = sum(stakes.values())
        stages = int((report.stages["stragglers"] > 0).sum()) if not report.stages.empty else 0
        causes = [
            (cause, n)
            for cause, n in Counter((self.named or {}).values()).most_common()
            if cause not in NOT_A_CAUSE
        ]
        by_rule = sorted(
            ((c.replace("_", " "), int(report.stages[c].sum())) for c in report.causes),
            key=lambda pair: -pair[1],
        )
        top = [(name, n) for name, n in (causes or by_rule) if n]
        values: dict[str, Any] = {
            "stragglers": int(report.stragglers),
            "stages_with_stragglers": stages,
            "stages": len(report.stages),
            "at_stake_ms": round(total, 1),
            "explained": int(report.explained),
            "explained_share": plain(report.explained_share) if report.stragglers else None,
            "top_causes": dict(top[:3]),
        }
        if not report.stragglers:
            bases = " or ".join(
                BASIS_WORDS.get(str(b), f"time per {b}")
                for b in sorted(set(report.stages["basis"].dropna().astype(str)), key=_basis_order)
            )
            return Headline(
                f"No stragglers in {count(len(report.stages), 'stage')}: every task's "
                f"{bases or 'duration'} is within 1.5x its stage's median.",
                values,
            )
        worst = max(stakes, key=lambda key: stakes[key])
        row = report.stages[report.stages["stage_key"].astype(str) == worst].iloc[0]
        named = (
            f"stage {_cell(row['stage_id'])} (job {job_label(row.get('job_id')) or 'unknown'})"
            if apps_of(report.stages) <= 1 and plain(row.get("stage_id")) is not None
            else f"stage {worst}"
        )
        values["slowest_stage"] = worst
        values["slowest_stage_at_stake_ms"] = round(stakes[worst], 1)
        if self.named:  # the one cause model's names, as perfx explain says them
            known = sum(n for _, n in causes)
            said = "a cause perfx explain names"
        else:
            known, said = int(report.explained), "a known cause"
        values["known"] = known
        text = (
            f"{count(report.stragglers, 'straggler')} in {stages:,} of "
            f"{count(len(report.stages), 'stage')} "
            f"took {duration(total)} more than their stages' median tasks would have; "
            f"{named} has the most at stake ({duration(stakes[worst])}). "
            f"{known:,} ({100 * known / report.stragglers:.0f} %) {_have(known)} {said}"
            + (f"; the top causes: {listing(top)}." if top else ".")
        )
        return Headline(text, values)

    def slow_words(self) -> str:
        """The slow tasks that are no stragglers, in one paragraph."""
        said = "; ".join(
            f"task {task['id']} took {duration(task['duration'])} against its stage's median "
            f"{duration(task['stage_median'])}"
            + (f" ({task['cause']})" if task.get("cause") not in (None, *NOT_A_CAUSE) else "")
            for task in self.slow
        )
        return (
            f"Slow, though no stragglers (at {SLOW_FOLD:g}x their stage's median duration or "
            f"more, each at its stage's pace for its data): {said}."
        )

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
        yield self.headline()
        if self.slow:
            yield safe_text(self.slow_words())
        stakes = self.at_stake()
        stages = report.stages.assign(
            at_stake=report.stages["stage_key"].astype(str).map(stakes).fillna(0.0)
        )
        order = sorted(
            range(len(stages)),
            key=lambda i: (
                -stages["at_stake"].iloc[i],
                -int(stages["stragglers"].iloc[i]),
                id_order(stages["stage_key"].iloc[i]),
            ),
        )
        if self.limit is not None:  # stages without stragglers have nothing at stake
            order = [i for i in order if stages["stragglers"].iloc[i] > 0]
            if not order:  # the headline said it all: no table of nothing
                return
        shown, hidden = limited(order, self.limit)
        hidden = len(stages) - len(shown)
        apps = apps_of(stages)
        table = Table(title=TITLE)
        for name in COLUMNS:
            if name == "App" and apps <= 1:
                continue
            table.add_column(
                name,
                justify="right" if name in NUMERIC else "left",
                no_wrap=name in IDS,
                min_width=len(name) if name in NUMERIC else None,
                overflow="fold",
            )
        for i in shown:
            s = stages.iloc[i]
            share = "" if s["stragglers"] == 0 else f" ({100 * s['explained_share']:.0f}%)"
            causes = ", ".join(f"{c.replace('_', ' ')} {s[c]}" for c in report.causes if s[c])
            cells = (
                s.get("app_key", s.get("app_id", "")),
                s.get("job_id", ""),
                s.get("stage_id", s["stage_key"]),
                s["tasks"],
                s["basis"],
                s["stragglers"],
                duration(s["at_stake"]) if s["stragglers"] else "-",
                f"{s['explained']}{share}",
                causes,
            )
            shown_cells = cells[1:] if apps <= 1 else cells
            table.add_row(*(safe_text(_cell(cell)) for cell in shown_cells))
        yield table
        if hidden:
            yield more(hidden, "stage")
        if report.stragglers:
            yield safe_text(  # the table's count: its causes, not explain's (the headline's)
                f"{count(report.stragglers, 'straggler')}; {report.explained:,} "
                f"({100 * report.explained_share:.0f}%) {_have(report.explained)} one of the table's rule causes "
                f"(evaluated: {', '.join(report.causes) or 'none'})."
            )
            if self.named:
                counts = Counter(self.named.values()).most_common()
                yield safe_text(
                    "Their causes as perfx explain names them: "
                    + ", ".join(f"{cause} {n:,}" for cause, n in counts)
                    + "."
                )
        else:
            yield safe_text("No stragglers.")
