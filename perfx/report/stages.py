"""Stages, slowest first: task count, median / 95th percentile / max task time, skew (max over
median), stragglers (the blocked-time paper's rule) and their causes as ``perfx explain``
names them (``explain.cause``); and the task-time distribution of the slowest stages with
their stragglers marked."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from perfx.explain.cause import NO_REFERENCE

from . import plots
from .page import Html, Section, join, ms, table, tag

ROWS_SHOWN = 60
"""Stages listed in the table (the slowest first)."""
PLOTTED = 8
"""Stages whose task-time distribution is drawn (the slowest first)."""

if TYPE_CHECKING:
    from perfx.explain.blocked.stragglers import StragglerReport


@dataclass(frozen=True)
class Stages:
    """Per stage (``stage_key``, slowest first): ``time`` (its span, ms), ``name``, task time
    figures and straggler counts; and the straggler analysis it was built from."""

    table: pd.DataFrame
    report: StragglerReport
    """The straggler analysis of the log's tasks."""

    def slowest(self, n: int) -> list[str]:
        return list(self.table["stage_key"].head(n))


def _spans(log, analysed: pd.DataFrame) -> pd.Series:
    """Each stage's wall-clock time: the stage table's duration where the log has one, else
    its tasks' span (first launch to last finish), else their summed durations."""
    stage = analysed["stage_key"]
    if {"launch_time", "finish_time"} <= set(log.tasks.columns):
        tasks = log.tasks[log.tasks["stage_key"].isin(set(stage))]
        launch = pd.to_numeric(tasks["launch_time"], errors="coerce")
        finish = pd.to_numeric(tasks["finish_time"], errors="coerce")
        span = finish.groupby(tasks["stage_key"]).max() - launch.groupby(tasks["stage_key"]).min()
    else:
        span = analysed.groupby(stage)["duration"].sum()
    if not log.stages.empty and {"id", "duration"} <= set(log.stages.columns):
        logged = pd.to_numeric(log.stages.set_index("id")["duration"], errors="coerce")
        logged = logged[~logged.index.duplicated()]
        span = logged.reindex(span.index).fillna(span)
    return span


def stage_table(log, report: StragglerReport, named: dict[str, str] | None = None) -> Stages:
    """Figures per stage, from ``report``, the straggler analysis of the log's tasks, and
    ``named``, each straggler's cause by task id as ``perfx explain`` names it
    (``perfx.results.stragglers.StragglerReport.named``); without it, the blocked-time
    analysis's causes."""
    tasks = report.tasks
    if tasks.empty:
        return Stages(pd.DataFrame(columns=["stage_key", "time"]), report)
    grouped = tasks.groupby("stage_key", sort=False)["duration"]
    figures = pd.DataFrame(
        {
            "median": grouped.median(),
            "p95": grouped.quantile(0.95),
            "max": grouped.max(),
        }
    )
    figures["skew"] = figures["max"] / figures["median"].where(figures["median"] > 0)
    figures["time"] = _spans(log, tasks)
    stages = report.stages.set_index("stage_key").join(figures).reset_index()
    if not log.stages.empty and {"id", "name"} <= set(log.stages.columns):
        names = log.stages.drop_duplicates("id").set_index("id")["name"]
        stages["name"] = stages["stage_key"].map(names).fillna("")
    else:
        stages["name"] = ""
    if named is not None:
        causes, explained = _named_causes(tasks, named)
        stages["causes"] = [causes.get(key, "") for key in stages["stage_key"]]
        stages["explained"] = [explained.get(key, 0) for key in stages["stage_key"]]
        stages["named"] = True
    else:
        stages["causes"] = [
            ", ".join(f"{c.replace('_', ' ')} {int(row[c])}" for c in report.causes if row[c])
            for _, row in stages.iterrows()
        ]
    stages = stages.sort_values("time", ascending=False, kind="stable").reset_index(drop=True)
    return Stages(stages, report)


def stage_label(key: str, with_app: bool = False) -> str:
    """``3`` for Spark stage key ``app/3/0``, ``3 (attempt 1)`` for a retry, the app first
    with ``with_app``; other keys (a MapReduce job's map tasks) as they are."""
    parts = str(key).rsplit("/", 2)
    if len(parts) < 3 or not parts[1].isdigit():
        return str(key)
    label = parts[1] + (f" (attempt {parts[2]})" if parts[2] not in ("0", "") else "")
    return f"{parts[0]} {label}" if with_app else label


def _named_causes(tasks: pd.DataFrame, named: dict[str, str]) -> tuple[dict, dict]:
    """Per stage key, its stragglers' causes as perfx explain names them ("data skew 2, no
    cause stands out 1", every straggler counted) and how many have a cause."""
    from perfx.results.stragglers import NOT_A_CAUSE

    stragglers = tasks[tasks["straggler"]] if "id" in tasks.columns else tasks.iloc[0:0]
    texts, explained = {}, {}
    for key, ids in stragglers.groupby("stage_key", sort=False)["id"]:
        counts = Counter(named.get(str(i), NO_REFERENCE) for i in ids)
        texts[key] = ", ".join(f"{c} {n}" for c, n in sorted(counts.items(), key=_by_count))
        explained[key] = sum(n for c, n in counts.items() if c not in NOT_A_CAUSE)
    return texts, explained


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _cause_text(row) -> str:
    """The stage's causes; stragglers the blocked-time analysis left unexplained are said so
    (the named causes already count every straggler)."""
    text = row["causes"] or ""
    unexplained = int(row["stragglers"] - row["explained"])
    if unexplained and not row.get("named", False):
        text += (", " if text else "") + f"unexplained {unexplained}"
    return text


def stages_section(log, stages: Stages) -> Section:
    frame = stages.table
    if frame.empty:
        return Section("stages", "Stages", "no successful task to measure", Html(""))
    with_app = frame["stage_key"].astype(str).str.rsplit("/", n=2).str[0].nunique() > 1
    rows = [
        (
            stage_label(row["stage_key"], with_app),
            row["name"],
            ms(row["time"]),
            f"{int(row['tasks']):,}",
            ms(row["median"]),
            ms(row["p95"]),
            ms(row["max"]),
            "-" if pd.isna(row["skew"]) else f"{row['skew']:.1f}x",
            f"{int(row['stragglers']):,}",
            _cause_text(row),
        )
        for _, row in frame.head(ROWS_SHOWN).iterrows()
    ]
    headers = [
        "stage",
        "name",
        "time",
        "tasks",
        "median",
        "p95",
        "max",
        "skew",
        "stragglers",
        "causes",
    ]
    by_explain = "named" in frame.columns  # causes as perfx explain names them
    note = (
        f"The {ROWS_SHOWN} slowest of {len(frame)} stages. " if len(frame) > ROWS_SHOWN else ""
    ) + (
        "Task times are of successful attempts; skew is the slowest task over the median; a "
        "straggler's time per byte (or record) exceeds 1.5x its stage's median"
        + (
            ", and its cause is the one perfx explain names (WHY TASK <it> SLOWER's diagnosis)."
            if by_explain
            else ", and it is caused by X when it would not straggle had X taken no time in "
            "every task of its stage."
        )
    )
    plotted = []
    tasks = stages.report.tasks
    for key in stages.slowest(PLOTTED):
        mine = tasks[tasks["stage_key"] == key]
        row = frame[frame["stage_key"] == key].iloc[0]
        chart = plots.task_times(
            mine["duration"].to_numpy(float), mine["straggler"].to_numpy(bool), f"stage-{key}"
        )
        caption = (
            f"Stage {stage_label(key, with_app)}: {len(mine):,} tasks, median {ms(row['median'])}, max {ms(row['max'])}, "
            f"{int(row['stragglers'])} stragglers"
            + (
                f" (all marked; {plots.MAX_POINTS} other tasks shown, evenly by rank)"
                if len(mine) > plots.MAX_POINTS
                else ""
            )
        )
        plotted.append(tag("figure", chart, tag("figcaption", caption)))
    slowest = frame.iloc[0]
    stragglers = int(frame["stragglers"].sum())
    explained = int(frame["explained"].sum())
    summary = (
        f"{len(frame)} stages; the slowest, {stage_label(slowest['stage_key'], with_app)}, took {ms(slowest['time'])} over "
        f"{int(slowest['tasks']):,} tasks; {stragglers:,} stragglers, {explained:,} with a "
        + ("cause perfx explain names" if by_explain else "known cause")
    )
    body = join(
        [
            table(headers, rows, numeric=range(2, 9)),
            tag("p", note, cls="note"),
            tag("h3", f"Task time of the {min(PLOTTED, len(frame))} slowest stages"),
            *plotted,
        ]
    )
    return Section("stages", "Stages", summary, body)
