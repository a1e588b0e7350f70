"""What a log holds: counts of applications, jobs, stages and tasks, Spark versions, the
lines the reader skipped and the files it did not read (``perfx logs``, ``Session.summary()``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.table import Table

from perfx.logs.model import executions, implausible_tasks, unended_tasks
from perfx.terminal import safe_text

from .headline import Headline, count, listing

SKIPPED_SHOWN = 20
"""Skipped lines listed one by one in text; the rest are only counted (JSON lists them all)."""


def stage_keys(stages: Any, tasks: Any) -> set:
    """The stages of a log (or of one application's part of it): the rows of its stage table,
    and the stages of the tasks no stage table lists — MapReduce's, whose job's map tasks and
    reduce tasks are its two stages — as ``perfx stragglers`` groups them. The one count of
    stages: ``perfx logs``, the report and the REPL say it."""
    from perfx.explain.blocked.stragglers import with_stages

    keys = set(stages["id"]) if "id" in stages else set()
    tasks = with_stages(tasks)
    if "stage_key" in tasks:
        keys.update(tasks["stage_key"].dropna())
    return keys


def without_app(table: Any) -> Any:
    """Which rows of a job or task table belong to none of the log's applications: all of a
    table without application keys (MapReduce job histories, tabular logs), those without
    one in a table with them (such logs read beside Spark logs)."""
    import pandas as pd

    if "app_key" not in table:
        return pd.Series(True, index=table.index)
    return table["app_key"].isna()


def app_count(log: Any) -> int:
    """How many applications the log has: the rows of its application table, and one more
    where jobs or tasks belong to none of them (``without_app``), as the report shows them."""
    outside = any(without_app(table).any() for table in (log.jobs, log.tasks))
    return len(log.apps) + int(outside)


def stage_count(log: Any) -> int:
    """How many stages the log has (``stage_keys``)."""
    return len(stage_keys(log.stages, log.tasks))


def skipped_stage_count(log: Any) -> int:
    """How many of them never ran: Spark skipped them, their output computed before (a job's
    ``Stage Infos`` list them; no task of theirs ran)."""
    if "status" not in log.stages:
        return 0
    return int((log.stages["status"] == "SKIPPED").sum())


def _ranked(reasons: Counter) -> list[tuple[str, int]]:
    """Skip reasons with their counts, most frequent first (then by name)."""
    return sorted(reasons.items(), key=lambda item: (-item[1], item[0]))


def _skipped_parts(skipped: list[dict[str, Any]]) -> list[str]:
    """The lines skipped and the whole files not read (line 0: a file no format reads, a
    second copy of an attempt, a rolling part missing), each counted with its reasons, most
    frequent first: a file is no line."""
    parts = []
    for noun, verb, whole in (("line", "skipped", False), ("file", "not read", True)):
        reasons = Counter(s["reason"] for s in skipped if (not s["line"]) == whole)
        if reasons:
            why = listing([(f"{reason}:", n) for reason, n in _ranked(reasons)])
            parts.append(f"{count(reasons.total(), noun)} {verb} ({why})")
    return parts


def _unended_ids(log: Any) -> list[str]:
    """The ids of the tasks without a usable end in a finished application
    (``logs.model.unended_tasks``)."""
    return [str(i) for i in log.tasks.loc[unended_tasks(log), "id"]]


def _ids_line(what: str, ids: list[str]) -> str:
    """``what: a, b, c and 12 more`` (the first ``SKIPPED_SHOWN`` ids)."""
    more = len(ids) - SKIPPED_SHOWN
    return (
        f"{what}: " + ", ".join(ids[:SKIPPED_SHOWN]) + (f" and {more:,} more" if more > 0 else "")
    )


def _implausible_ids(log: Any) -> list[str]:
    """The ids of the tasks holding values no Spark run gives
    (``logs.model.implausible_tasks``)."""
    if "id" not in log.tasks.columns:
        return []
    return [str(i) for i in log.tasks.loc[implausible_tasks(log), "id"]]


@dataclass(frozen=True)
class LogSummary:
    """The stable JSON summary of a log, and its rendering as two tables."""

    data: dict[str, Any]

    @classmethod
    def of(cls, log: Any) -> LogSummary:
        # "" for a Spark log before 1.3; missing for the apps of other logs read beside it
        given = log.apps["spark_version"] if "spark_version" in log.apps else []
        versions = sorted({v for v in given if isinstance(v, str)})
        reasons = Counter(s.reason for s in log.skipped)
        return cls(
            {
                "sources": list(log.sources),
                "apps": app_count(log),
                "app_rows": len(log.apps),
                "jobs": len(log.jobs),
                "stages": stage_count(log),
                "stages_skipped": skipped_stage_count(log),
                "tasks": len(log.tasks),
                "tasks_unended": _unended_ids(log),
                "tasks_implausible": _implausible_ids(log),
                "spark_versions": [v if v else "unknown (< 1.3)" for v in versions],
                "skipped": {
                    "count": len(log.skipped),
                    "files": sum(1 for s in log.skipped if not s.line),
                    "by_reason": dict(_ranked(reasons)),
                    "lines": [
                        {"path": s.path, "line": s.line, "reason": s.reason} for s in log.skipped
                    ],
                },
                "cut_off": [asdict(c) for c in log.cut_off],
            }
        )

    def headline(self) -> Headline:
        """What the log holds, in one sentence."""
        data = self.data
        apps = data["apps"]
        versions = ", ".join(data["spark_versions"])
        skipped = data["skipped"]
        # a job history's jobs are of no application the log names: "1 application: 3 jobs"
        # counted one where there is none (a probe of the CLI)
        held = (
            f"{apps:,} {'application' if apps == 1 else 'applications'}"
            + (f" (Spark {versions})" if versions else "")
            + ": "
            if data["app_rows"]
            else ""
        )
        text = (
            held
            + f"{count(data['jobs'], 'job')}, {count(data['stages'], 'stage')}"
            + (f" ({data['stages_skipped']:,} skipped by Spark)" if data["stages_skipped"] else "")
            + ", "
            + f"{count(data['tasks'], 'task')}"
            + (
                f" ({len(data['tasks_unended']):,} without a usable end event in a finished application)"
                if data["tasks_unended"]
                else ""
            )
            + (
                f" ({len(data['tasks_implausible']):,} with values no Spark run gives)"
                if data["tasks_implausible"]
                else ""
            )
            + "; "
            + ("; ".join(_skipped_parts(skipped["lines"])) or "no line skipped")
            + "."
        )
        if cut := len(data["cut_off"]):
            ran = executions((c["execution"] for c in data["cut_off"]), plural=cut > 1)
            text += (
                f" {count(cut, 'file')} {'ends' if cut == 1 else 'end'} before "
                f"{'its' if cut == 1 else 'their'} {ran} did (cut off or still running)."
            )
        values = {k: data[k] for k in ("apps", "jobs", "stages", "tasks", "spark_versions")}
        return Headline(text, {**values, "skipped": skipped["count"], "cut_off": cut})

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.headline().to_dict(), **self.data}

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> Iterator[RenderableType]:
        data = self.data
        yield self.headline()
        counts = Table(title="Log", show_header=False)
        counts.add_column("what")
        counts.add_column("count", justify="right")
        for label, key in (
            ("applications", "apps"),
            ("jobs", "jobs"),
            ("stages", "stages"),
            ("tasks", "tasks"),
        ):
            counts.add_row(label, str(data[key]))
        counts.add_row("Spark versions", safe_text(", ".join(data["spark_versions"]) or "-"))
        if data["tasks_unended"]:
            counts.add_row("tasks without an end", str(len(data["tasks_unended"])))
        if data["tasks_implausible"]:
            counts.add_row("tasks of impossible values", str(len(data["tasks_implausible"])))
        files = data["skipped"]["files"]
        counts.add_row("skipped lines", str(data["skipped"]["count"] - files))
        if files:
            counts.add_row("files not read", str(files))
        if data["cut_off"]:
            counts.add_row("files cut off", str(len(data["cut_off"])))
        yield counts
        if data["cut_off"]:
            ran = executions((c["execution"] for c in data["cut_off"]), plural=False)
            cut = Table(title=f"Cut off before the {ran} ended")
            cut.add_column("file")
            cut.add_column("last line", justify="right")
            cut.add_column("last event")
            for item in data["cut_off"]:
                cut.add_row(
                    safe_text(str(item["path"])),
                    f"{item['line']:,}",
                    safe_text(item["last_event"] or "-"),
                )
            yield cut
        if unended := data["tasks_unended"]:
            yield safe_text(_ids_line("Tasks without a usable end event", unended))
        if implausible := data["tasks_implausible"]:
            yield safe_text(
                _ids_line(
                    "Tasks with values no Spark run gives (a negative time or size, a part "
                    "longer than the task, a launch before the application)",
                    implausible,
                )
            )
        lines = data["skipped"]["lines"]
        if not lines:
            return
        skipped = Table(title="Skipped")
        skipped.add_column("file")
        skipped.add_column("line", justify="right")
        skipped.add_column("reason")
        for item in lines[:SKIPPED_SHOWN]:
            skipped.add_row(
                safe_text(str(item["path"])),
                str(item["line"]) if item["line"] else "-",
                safe_text(item["reason"]),
            )
        yield skipped
        if len(lines) > SKIPPED_SHOWN:
            yield safe_text(
                f"... and {len(lines) - SKIPPED_SHOWN} more (--format json lists them all)"
            )
