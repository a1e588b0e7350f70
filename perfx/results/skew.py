"""Stages with computation skew and the ``perfx isolate`` command that re-runs the program
traced to name the records behind it (``perfx skew``, ``Session.skew()``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.table import Table

from perfx.terminal import safe_text

from .headline import Headline, count, duration, limited, listing, more


def material(flagged: Any, tasks: Any, min_excess: float) -> Any:
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


def spark_tasks(tasks: Any) -> Any:
    """The Spark tasks of a log (a folder may mix in MapReduce histories, whose tasks have no
    Spark stage or task ids): computation skew is looked for in PySpark programs' stages."""
    if not {"stage_id", "task_id"} <= set(tasks.columns):
        return tasks.iloc[0:0].assign(app_id="", stage_id=0, task_id=0, partition_id=-1)
    return tasks[tasks["stage_id"].notna() & tasks["task_id"].notna()]


def partition(value: Any) -> int | None:
    """The task's partition, None where Spark did not log it (before 3.3: -1 in the table)."""
    return int(value) if value >= 0 else None


def _task_ids(tasks: Any, flagged: Any) -> list[str]:
    """The log's id (``tasks["id"]``) of each flagged task, by its stage and Spark task id;
    "" where the log has none (a log cut before its task events)."""
    if "id" not in tasks.columns or flagged.empty:
        return [""] * len(flagged)
    keys = ["stage_key", "task_id"]
    found = flagged[keys].merge(tasks[[*keys, "id"]].drop_duplicates(keys), how="left", on=keys)
    return [str(i) if isinstance(i, str) else "" for i in found["id"]]


def _reason_kind(reason: str) -> str:
    """What a detector's reason is about, without its figures: "21.0x the stage's median
    duration" -> "slow duration", "GC 608 ms (stage median 0 ms)" -> "GC"."""
    import re

    ratio = re.match(r"[\d.]+x the stage's median (.+)$", reason)
    if ratio:
        return f"slow {ratio.group(1)}"
    return re.split(r"\s\d", reason, maxsplit=1)[0]


@dataclass(frozen=True)
class SkewReport:
    """Skewed tasks grouped by stage, most costly first; ``top`` of them shown in text."""

    stages: list[dict[str, Any]]
    rerun: str | None
    spark_tasks: int
    other_tasks: int
    top: int | None = 20
    """Skewed tasks the table shows, the most costly first (None: all)."""

    @classmethod
    def of(
        cls,
        log: Any,
        factor: float,
        min_excess: float,
        top: int | None = 20,
        asked: Any = None,
    ) -> SkewReport:
        """The skewed tasks of ``log``, each with its cause as ``perfx explain`` names it
        (``explain.cause.cause_names``) on ``asked``, the log questions are asked of (the
        session's ``log``; by default ``log`` itself)."""
        import pandas as pd

        from perfx.chain import isolate_command
        from perfx.explain.cause import cause_names
        from perfx.isolation.detect import skewed_tasks

        spark = spark_tasks(log.tasks)
        flagged = skewed_tasks(spark, factor=factor)
        flagged = material(flagged, log.tasks, min_excess) if len(flagged) else flagged
        flagged = flagged.reset_index(drop=True)
        ids = _task_ids(log.tasks, flagged)
        named = cause_names(asked if asked is not None else log, [i for i in ids if i])
        names = (
            dict(zip(log.apps.get("app_id", []), log.apps.get("name", [])))
            if not log.apps.empty
            else {}
        )
        per_stage = log.tasks["stage_key"].value_counts()
        stages = [
            {
                "app_id": app,
                "app_name": names.get(app, ""),
                "stage_id": int(stage),
                "tasks": int(per_stage[rows.stage_key.iloc[0]]),
                "skewed_tasks": [
                    {
                        "id": ids[r.Index] or None,
                        "task_id": int(r.task_id),
                        "partition": partition(r.partition_id),
                        "duration_ms": float(r.duration),
                        "excess_ms": round(float(r.excess_ms), 1),
                        "rate_ratio": None
                        if pd.isna(r.rate_ratio)
                        else round(float(r.rate_ratio), 3),
                        "reasons": list(r.reasons),
                        "cause": named.get(ids[r.Index]),
                    }
                    for r in rows.itertuples()
                ],
            }
            for (app, stage), rows in flagged.groupby(["app_id", "stage_id"], sort=False)
        ]
        rerun = isolate_command(log, str(flagged["app_id"].iloc[0])) if stages else None
        return cls(stages, rerun, len(spark), len(log.tasks) - len(spark), top)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One per skewed task with its stage's app, id and task count, most costly first."""
        tasks = [
            {"app_id": s["app_id"], "stage_id": s["stage_id"], "tasks": s["tasks"], **task}
            for s in self.stages
            for task in s["skewed_tasks"]
        ]
        return sorted(tasks, key=lambda task: -task["excess_ms"])

    def headline(self) -> Headline:
        """Which stages have computation skew, the time it cost and the reasons, in one
        paragraph."""
        rows = self.rows
        at_stake = sum(r["excess_ms"] for r in rows)
        values: dict[str, Any] = {
            "stages": len(self.stages),
            "skewed_tasks": len(rows),
            "at_stake_ms": round(at_stake, 1),
            "spark_tasks": self.spark_tasks,
        }
        if not rows:
            return Headline(
                f"No computation skew found in {self.spark_tasks:,} Spark tasks.", values
            )
        worst = rows[0]
        reasons: dict[str, int] = {}
        for r in rows:
            for reason in r["reasons"]:
                kind = _reason_kind(reason)
                reasons[kind] = reasons.get(kind, 0) + 1
        top = sorted(reasons.items(), key=lambda pair: -pair[1])
        causes = Counter(r["cause"] for r in rows if r.get("cause")).most_common()
        values.update(
            {
                "most_costly": {
                    "app_id": worst["app_id"],
                    "stage_id": worst["stage_id"],
                    "task_id": worst["task_id"],
                    "excess_ms": worst["excess_ms"],
                },
                "reasons": dict(top),
                "causes": dict(causes),
            }
        )
        text = (
            f"{count(len(rows), 'task')} in {count(len(self.stages), 'stage')} "
            f"cost {duration(at_stake)} "
            f"beyond their stages' typical task; task {worst['task_id']} of stage "
            f"{worst['stage_id']} the most ({duration(worst['excess_ms'])}). Reasons: "
            f"{listing(top)}"
            + (f"; their causes as perfx explain names them: {listing(causes)}" if causes else "")
            + ". Re-run the program traced (below) to name the records."
        )
        return Headline(text, values)

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.headline().to_dict(), "stages": self.stages, "rerun": self.rerun}

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> Iterator[RenderableType]:
        if not self.stages:
            other = (
                f" ({self.other_tasks} MapReduce tasks not judged: perfx isolate re-runs "
                "PySpark programs)"
                if self.other_tasks
                else ""
            )
            yield safe_text(f"No computation skew found in {self.spark_tasks} Spark tasks{other}.")
            return
        yield self.headline()
        one_app = len({s["app_id"] for s in self.stages}) <= 1
        title = "Skewed tasks by time at stake"
        if one_app:  # its id once, in the title, rather than on every row
            title += f" (application {self.stages[0]['app_id']})"
        table = Table(title=safe_text(title))
        columns = ("app", "stage", "tasks", "skewed task (partition)", "at stake", "cause", "why")
        for column in columns[1:] if one_app else columns:
            table.add_column(
                column,
                no_wrap=column in ("app", "stage", "skewed task (partition)"),
                justify="right" if column in ("tasks", "at stake") else "left",
                overflow="fold",
            )
        shown, hidden = limited(self.rows, self.top)
        for r in shown:
            where = f" ({r['partition']})" if r["partition"] is not None else ""
            cells = (
                r["app_id"],
                r["stage_id"],
                r["tasks"],
                f"{r['task_id']}{where}",
                duration(r["excess_ms"]),
                r.get("cause") or "-",
                "; ".join(r["reasons"]),
            )
            table.add_row(*(safe_text(str(cell)) for cell in cells[one_app:]))
        yield table
        if hidden:
            yield more(hidden, "skewed tasks")
        yield safe_text(
            "Some input records cost far more than others. Re-run the program traced to name them:"
        )
        yield safe_text(f"  {self.rerun}")
        yield safe_text(
            "then 'perfx culprits RUN --stage S --partition P' shows the records of one task."
        )
