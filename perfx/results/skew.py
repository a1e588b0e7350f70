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


def judged_tasks(tasks: Any) -> tuple[Any, int]:
    """The tasks computation skew is looked for in, with the ids a skewed task is named by
    (``app_id``, ``stage_id``, ``task_id``, ``partition_id``), and how many of them are
    MapReduce tasks. Only attempts that succeeded are judged (as ``perfx stragglers`` judges
    them): a failed, killed or lost attempt's time ends where it stopped, no measure of what
    its records cost (a Spark 1.3 log's 44 attempts of a lost executor were listed as skew). A Spark task has its own; a MapReduce task (a job history's, alone or in
    a folder with Spark logs) is named by its job (``app_id``), its phase (``stage_id``:
    ``MAP`` or ``REDUCE``) and its id (``task_id``, ``task_..._m_000003``, which holds its
    number in the phase: no partition of its own)."""
    import pandas as pd

    if "status" in tasks.columns:
        tasks = tasks[tasks["status"].eq("SUCCESS")]
    frames = []
    spark = pd.Series(False, index=tasks.index)
    if {"stage_id", "task_id"} <= set(tasks.columns):
        spark = tasks["stage_id"].notna() & tasks["task_id"].notna()
        frames.append(tasks[spark])
    mapreduce = tasks.iloc[0:0]
    if {"job_id", "task_type", "id"} <= set(tasks.columns):
        mapreduce = tasks[tasks["task_type"].isin(MAPREDUCE_PHASES) & ~spark]
        frames.append(
            mapreduce.assign(
                app_id=mapreduce["job_id"],
                stage_id=mapreduce["task_type"],
                task_id=mapreduce["id"],
                partition_id=-1,
            )
        )
    if not frames:
        return tasks.iloc[0:0].assign(app_id="", stage_id=0, task_id=0, partition_id=-1), 0
    return (frames[0] if len(frames) == 1 else pd.concat(frames)), len(mapreduce)


MAPREDUCE_RERUN = (
    "MapReduce tasks get no traced re-run (perfx isolate re-runs PySpark programs): their "
    "cause is the log's"
)
"""What a report with skewed MapReduce tasks says instead of a re-run command."""

MAPREDUCE_PHASES = ("MAP", "REDUCE")
"""The phases of a MapReduce job whose tasks are judged (a job history's setup and cleanup
tasks do no work of the job's records)."""


def _names(table: Any, key: str) -> dict[str, str]:
    """``key`` -> ``name`` of the rows of ``table`` that have both."""
    if table.empty or not {key, "name"} <= set(table.columns):
        return {}
    return dict(zip(table[key].astype(str), table["name"].fillna("").astype(str)))


def _id(value: Any) -> int | str:
    """A Spark stage's or task's id as its number; a MapReduce phase's or task's as it is
    spelled (``MAP``, ``task_..._m_000003``)."""
    return value if isinstance(value, str) else int(value)


def partition(value: Any) -> int | None:
    """The task's partition, None where Spark did not log it (before 3.3: -1 in the table)."""
    return int(value) if value >= 0 else None


def _stage_and_app(judged: Any, flagged: Any) -> tuple[Any, Any]:
    """Per flagged task, its stage (a Spark stage's attempt in its application's attempt:
    ``stage_key``; a MapReduce job's phase) and the application it is said to be of (its
    attempt where the log has several: ``app_key``). By app id and stage id alone, the four
    attempts of an application read as one stage of four times the tasks, the same task
    listed thrice and no attempt said (a probe of the CLI)."""
    phase = flagged["stage_id"].isin(MAPREDUCE_PHASES)
    by_phase = flagged["app_id"].astype(str) + "/" + flagged["stage_id"].astype(str)
    if "stage_key" not in flagged.columns or "app_key" not in judged.columns:
        return by_phase, flagged["app_id"]
    stage = flagged["stage_key"].astype(str).where(~phase, by_phase)
    app_of_stage = judged.drop_duplicates("stage_key").set_index("stage_key")["app_key"]
    app = flagged["stage_key"].map(app_of_stage).fillna(flagged["app_id"])
    return stage, app.where(~phase, flagged["app_id"])


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
    mapreduce_tasks: int
    top: int | None = 20
    """Skewed tasks the table shows, the most costly first (None: all)."""
    unfinished: int = 0
    """Task attempts not judged: failed, killed or lost ones (``judged_tasks``)."""

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

        judged, mapreduce = judged_tasks(log.tasks)
        status = log.tasks.get("status")
        unfinished = 0 if status is None else int((~status.eq("SUCCESS")).sum())
        flagged = skewed_tasks(judged, factor=factor)
        flagged = material(flagged, judged, min_excess) if len(flagged) else flagged
        flagged = flagged.reset_index(drop=True)
        ids = _task_ids(judged, flagged)
        named = cause_names(asked if asked is not None else log, [i for i in ids if i])
        names = {  # a MapReduce job's name is its job history's
            **(_names(log.jobs, "id") if mapreduce else {}),
            **_names(log.apps, "app_id"),
        }
        per_stage = log.tasks["stage_key"].value_counts()
        stage_of, app_of = _stage_and_app(judged, flagged)
        stages = [
            {
                "app_id": app,
                "app_name": names.get(app, ""),
                "stage_id": _id(stage),
                "tasks": int(per_stage[rows.stage_key.iloc[0]]),
                "skewed_tasks": [
                    {
                        "id": ids[r.Index] or None,
                        "task_id": _id(r.task_id),
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
            for (app, _), rows in flagged.groupby([app_of, stage_of], sort=False)
            for stage in [rows["stage_id"].iloc[0]]
        ]
        spark = flagged[~flagged["stage_id"].isin(MAPREDUCE_PHASES)]
        rerun = isolate_command(log, str(spark["app_id"].iloc[0])) if len(spark) else None
        return cls(stages, rerun, len(judged) - mapreduce, mapreduce, top, unfinished)

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
            "mapreduce_tasks": self.mapreduce_tasks,
            "unfinished_attempts": self.unfinished,
        }
        if not rows:
            return Headline(
                f"No computation skew found in {self._judged()}{self._unjudged()}.", values
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
            f"beyond their stages' typical task{self._unjudged()}; task {worst['task_id']} of stage "
            f"{worst['stage_id']} the most ({duration(worst['excess_ms'])}). Reasons: "
            f"{listing(top)}"
            + (f"; their causes as perfx explain names them: {listing(causes)}" if causes else "")
            + (
                ". Re-run the program traced (below) to name the records."
                if self.rerun
                else f". {MAPREDUCE_RERUN}."
            )
        )
        return Headline(text, values)

    def _unjudged(self) -> str:
        """The attempts left out, where there are any."""
        if not self.unfinished:
            return ""
        return f" ({count(self.unfinished, 'unsuccessful attempt')} left out)"

    def _judged(self) -> str:
        """The tasks looked at: ``1,024 Spark tasks``, ``12 MapReduce tasks`` or both."""
        kinds = [(self.spark_tasks, "Spark"), (self.mapreduce_tasks, "MapReduce")]
        said = [f"{n:,} {kind}" for n, kind in kinds if n]
        return f"{' and '.join(said) or '0 Spark'} {'task' if sum(n for n, _ in kinds) == 1 else 'tasks'}"

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.headline().to_dict(), "stages": self.stages, "rerun": self.rerun}

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> Iterator[RenderableType]:
        yield self.headline()
        if not self.stages:
            return
        one_app = len({s["app_id"] for s in self.stages}) <= 1
        title = "Skewed tasks by time at stake"
        if one_app:  # its id once, in the title, rather than on every row
            only = self.stages[0]
            what = "job" if only["stage_id"] in MAPREDUCE_PHASES else "application"
            title += f" ({what} {only['app_id']})"
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
            yield more(hidden, "skewed task")
        if any(s["stage_id"] in MAPREDUCE_PHASES for s in self.stages):
            yield safe_text(f"{MAPREDUCE_RERUN}.")
        if self.rerun is None:
            return
        yield safe_text(
            # a claim that records cost more would go beyond what the log shows (the tasks'
            # causes may be "no cause stands out"): the command says how to find out
            "To name the input records these tasks spent their time on, re-run the program traced:"
        )
        yield safe_text(f"  {self.rerun}")
        yield safe_text(
            "then 'perfx culprits RUN --stage S --partition P' shows the records of one task."
        )
