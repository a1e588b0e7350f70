"""Stages by impact: those whose stragglers cost the most time first (``perfx stragglers``'
time at stake: their time beyond their stage's median rate), then the longest. Per stage: task
count, median / 95th percentile / max task time, skew (max over median), stragglers (the
blocked-time paper's rule) and their causes as ``perfx explain`` names them
(``explain.cause``), each in its colour (``colours``); stages of one or two tasks are folded
into one line (nothing to compare their tasks with); and the task-time distribution of the
first stages with their stragglers marked."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from perfx.explain.cause import NO_REFERENCE
from perfx.logs.time_parts import BY_NAME

from . import colours, plots
from .page import Html, Section, join, ms, table, tag

ROWS_SHOWN = 60
"""Stages listed in the table (the most at stake first)."""
PLOTTED = 8
"""Stages whose task-time distribution is drawn (the most at stake first)."""
FOLDED_TASKS = 2
"""Stages of at most this many tasks are folded away: a note says how many and their time."""

if TYPE_CHECKING:
    from perfx.explain.blocked.stragglers import StragglerReport


@dataclass(frozen=True)
class Stages:
    """Per stage (``stage_key``, most at stake first, then the longest): ``time`` (its span,
    ms), ``at_stake`` (ms), ``name``, task time figures, straggler counts and ``causes``
    ((cause, stragglers) pairs); and the straggler analysis it was built from."""

    table: pd.DataFrame
    report: StragglerReport
    """The straggler analysis of the log's tasks."""

    def first(self, n: int) -> list[str]:
        """The keys of the ``n`` first stages: the most at stake first."""
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


def stage_table(
    log,
    report: StragglerReport,
    named: dict[str, str] | None = None,
    stakes: dict[str, float] | None = None,
) -> Stages:
    """Figures per stage, from ``report``, the straggler analysis of the log's tasks,
    ``named``, each straggler's cause by task id as ``perfx explain`` names it
    (``perfx.results.stragglers.StragglerReport.named``; without it, the blocked-time
    analysis's causes), and ``stakes``, each stage's time at stake
    (``StragglerReport.at_stake``)."""
    tasks = report.tasks
    if tasks.empty:
        return Stages(pd.DataFrame(columns=["stage_key", "time", "at_stake", "tasks"]), report)
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
            [(_part_label(c), int(row[c])) for c in report.causes if row[c]]
            for _, row in stages.iterrows()
        ]
    stages["at_stake"] = stages["stage_key"].astype(str).map(stakes or {}).fillna(0.0)
    stages = stages.sort_values(
        ["at_stake", "time"], ascending=False, kind="stable", na_position="last"
    ).reset_index(drop=True)
    return Stages(stages, report)


def _part_label(cause: str) -> str:
    """A blocked-time cause as the page names that part of the time (``shuffle_read`` ->
    "shuffle fetch wait"), so that it has the part's colour."""
    part = BY_NAME.get(cause)
    return part.label if part is not None else cause.replace("_", " ")


def stage_label(key: str, with_app: bool = False) -> str:
    """``3`` for Spark stage key ``app/3/0``, ``3 (attempt 1)`` for a retry, the app first
    with ``with_app``; other keys (a MapReduce job's map tasks) as they are."""
    parts = str(key).rsplit("/", 2)
    if len(parts) < 3 or not parts[1].isdigit():
        return str(key)
    label = parts[1] + (f" (attempt {parts[2]})" if parts[2] not in ("0", "") else "")
    return f"{parts[0]} {label}" if with_app else label


def _named_causes(tasks: pd.DataFrame, named: dict[str, str]) -> tuple[dict, dict]:
    """Per stage key, its stragglers' causes as perfx explain names them ([("data skew", 2),
    ("no cause stands out", 1)], every straggler counted) and how many have a cause."""
    from perfx.results.stragglers import NOT_A_CAUSE

    stragglers = tasks[tasks["straggler"]] if "id" in tasks.columns else tasks.iloc[0:0]
    texts, explained = {}, {}
    for key, ids in stragglers.groupby("stage_key", sort=False)["id"]:
        counts = Counter(named.get(str(i), NO_REFERENCE) for i in ids)
        texts[key] = sorted(counts.items(), key=_by_count)
        explained[key] = sum(n for c, n in counts.items() if c not in NOT_A_CAUSE)
    return texts, explained


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _cause_cell(row) -> Html:
    """The stage's causes, each in its colour with its count; stragglers the blocked-time
    analysis left unexplained are said so (the named causes already count every straggler)."""
    parts: list[object] = []
    for cause, n in row["causes"] or []:
        parts += [", "] if parts else []
        parts.append(colours.swatch(cause, f"{cause} {n}"))
    unexplained = int(row["stragglers"] - row["explained"])
    if unexplained and not row.get("named", False):
        parts.append((", " if parts else "") + f"unexplained {unexplained}")
    return join(parts)


def folded(frame: pd.DataFrame) -> pd.Series:
    """Which stages are folded away: those of FOLDED_TASKS tasks or fewer."""
    return frame["tasks"] <= FOLDED_TASKS


def stages_section(log, stages: Stages) -> Section:
    full = stages.table
    if full.empty:
        return Section("stages", "Stages", "no successful task to measure", Html(""))
    with_app = full["stage_key"].astype(str).str.rsplit("/", n=2).str[0].nunique() > 1
    small = folded(full)
    frame = full[~small]
    rows = [
        (
            stage_label(row["stage_key"], with_app),
            row["name"],
            ms(row["at_stake"]) if row["stragglers"] else "-",
            ms(row["time"]),
            f"{int(row['tasks']):,}",
            ms(row["median"]),
            ms(row["p95"]),
            ms(row["max"]),
            "-" if pd.isna(row["skew"]) else f"{row['skew']:.1f}x",
            f"{int(row['stragglers']):,}",
            _cause_cell(row),
        )
        for _, row in frame.head(ROWS_SHOWN).iterrows()
    ]
    headers = [
        "stage",
        "name",
        "at stake",
        "time",
        "tasks",
        "median",
        "p95",
        "max",
        "skew",
        "stragglers",
        "causes",
    ]
    by_explain = "named" in full.columns  # causes as perfx explain names them
    fold_note = (
        f"{int(small.sum()):,} stages of one or two tasks folded away ({ms(full.loc[small, 'time'].sum())} "
        "in all): a task with no peers is no straggler. "
        if small.any()
        else ""
    )
    note = (
        fold_note
        + (f"The first {ROWS_SHOWN} of {len(frame)} stages. " if len(frame) > ROWS_SHOWN else "")
        + "Stages are ordered by time at stake (what their stragglers took beyond their stage's "
        "median rate, as perfx stragglers counts it), then by time. "
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
    shown = list(frame["stage_key"].head(PLOTTED))
    for key in shown:
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
    stragglers = int(full["stragglers"].sum())
    explained = int(full["explained"].sum())
    stake = float(full["at_stake"].sum())
    first = full.iloc[0] if frame.empty else frame.iloc[0]
    lead = (
        f"the most at stake, {stage_label(first['stage_key'], with_app)} ({ms(first['time'])}), "
        f"had stragglers taking {ms(first['at_stake'])} of task time beyond its median rate"
        if first["at_stake"] > 0
        else f"the longest, {stage_label(first['stage_key'], with_app)}, took {ms(first['time'])}"
    )
    from perfx.results.summary import stage_count

    total = stage_count(log)  # as perfx logs counts them
    measured = f", {len(full):,} with a successful task" if len(full) != total else ""
    summary = (
        f"{total:,} stages{measured} ({int(small.sum()):,} of one or two tasks folded away); {lead}; "
        f"{stragglers:,} stragglers took {ms(stake)} beyond their stages' medians, {explained:,} with a "
        + ("cause perfx explain names" if by_explain else "known cause")
    )
    body = join(
        [
            table(headers, rows, numeric=range(2, 10)),
            tag("p", note, cls="note"),
            tag("h3", f"Task time of the first {len(shown)} stages") if shown else "",
            *plotted,
        ]
    )
    causes = tuple(dict.fromkeys(c for cs in frame["causes"].head(ROWS_SHOWN) for c, _ in cs or []))
    return Section("stages", "Stages", summary, body, causes)
