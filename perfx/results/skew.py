"""Stages with computation skew and the ``perfx isolate`` command that re-runs the program
traced to name the records behind it (``perfx skew``, ``Session.skew()``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.table import Table

from perfx.terminal import safe_text


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


@dataclass(frozen=True)
class SkewReport:
    """Skewed tasks grouped by stage, most costly first; ``top`` of them shown in text."""

    stages: list[dict[str, Any]]
    rerun: str | None
    spark_tasks: int
    other_tasks: int
    top: int = 20

    @classmethod
    def of(cls, log: Any, factor: float, min_excess: float, top: int = 20) -> SkewReport:
        import pandas as pd

        from perfx.chain import isolate_command
        from perfx.isolation.detect import skewed_tasks

        spark = spark_tasks(log.tasks)
        flagged = skewed_tasks(spark, factor=factor)
        flagged = material(flagged, log.tasks, min_excess) if len(flagged) else flagged
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
                        "task_id": int(r.task_id),
                        "partition": partition(r.partition_id),
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

    def to_dict(self) -> dict[str, Any]:
        return {"stages": self.stages, "rerun": self.rerun}

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
        table = Table(title="Stages with computation skew")
        for column in ("app", "stage", "tasks", "skewed task (partition)", "why"):
            table.add_column(column, overflow="fold")
        for r in self.rows[: self.top]:
            where = f" ({r['partition']})" if r["partition"] is not None else ""
            cells = (
                r["app_id"],
                r["stage_id"],
                r["tasks"],
                f"{r['task_id']}{where}",
                "; ".join(r["reasons"]),
            )
            table.add_row(*(safe_text(str(cell)) for cell in cells))
        yield table
        if len(self.rows) > self.top:
            yield safe_text(
                f"and {len(self.rows) - self.top} more (a larger --top lists them, as "
                "--format json does)"
            )
        yield safe_text(
            "Some input records cost far more than others. Re-run the program traced to name them:"
        )
        yield safe_text(f"  {self.rerun}")
        yield safe_text(
            "then 'perfx culprits RUN --stage S --partition P' shows the records of one task."
        )
