"""The timeline of each application: its tasks per executor over time (a Gantt chart, one
lane per task slot the executor used at once), stages coloured, stragglers outlined — the
blocked-time paper's waterfall view of where a job waited."""

from __future__ import annotations

import heapq

import numpy as np
import pandas as pd

from perfx.results.whatif import left_out_words

from . import plots
from .page import Html, Section, join, tag
from .stages import stage_label

LEGEND_STAGES = 20
"""Stages named in a timeline's legend (colours repeat after as many)."""


def lanes(executor: np.ndarray, launch: np.ndarray, finish: np.ndarray) -> np.ndarray:
    """A lane per task: within its executor, the first lane free at its launch (tasks in
    launch order), so that tasks running at once on one executor get lanes of their own."""
    lane = np.zeros(len(launch), dtype=int)
    free: dict[object, list[tuple[float, int]]] = {}
    used: dict[object, int] = {}
    for i in np.lexsort((launch, executor)):
        heap = free.setdefault(executor[i], [])
        if heap and heap[0][0] <= launch[i]:
            _, slot = heapq.heappop(heap)
        else:
            slot = used.get(executor[i], 0)
            used[executor[i]] = slot + 1
        lane[i] = slot
        heapq.heappush(heap, (finish[i], slot))
    return lane


def merged(frame: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    """Bars of one stage following each other on one lane closer than ``tolerance`` merged
    into one (``lane, start, end, stage``): below a pixel they look the same and cost less."""
    frame = frame.sort_values(["lane", "start"], kind="stable")
    lane, stage = frame["lane"].to_numpy(), frame["stage"].to_numpy()
    start, end = frame["start"].to_numpy(), frame["end"].to_numpy()
    new = np.ones(len(frame), dtype=bool)  # a lane's tasks never overlap (``lanes``)
    new[1:] = (
        (lane[1:] != lane[:-1]) | (stage[1:] != stage[:-1]) | (start[1:] - end[:-1] > tolerance)
    )
    return _joined(frame, new)


def _joined(frame: pd.DataFrame, new: np.ndarray) -> pd.DataFrame:
    """``frame``'s bars (sorted) joined from each row where ``new`` is true to the next such
    row: one bar of the first's lane and stage from the earliest start to the furthest end."""
    return (
        frame.assign(group=np.cumsum(new))
        .groupby("group")
        .agg(
            lane=("lane", "first"),
            start=("start", "min"),
            end=("end", "max"),
            stage=("stage", "first"),
        )
        .reset_index(drop=True)
    )


def binned(frame: pd.DataFrame, lanes: int, tolerance: float) -> pd.DataFrame:
    """``frame``'s bars where its ``lanes`` outnumber the chart's rows (``plots.LANE_ROWS``):
    the lanes dealt to the rows in order, and each row's bars of one stage merged where they
    overlap or lie closer than ``tolerance`` (``lane, start, end, stage, height``: a row's
    first lane, fractional, and the lanes it covers). Below a row's height, lanes look the
    same: a log of thousands of task slots draws as many bars as rows allow, not one per task.
    """
    per_row = lanes / plots.LANE_ROWS
    row = np.floor(frame["lane"].to_numpy(float) / per_row)
    frame = frame.assign(lane=row).sort_values(["lane", "stage", "start"], kind="stable")
    lane, stage = frame["lane"].to_numpy(), frame["stage"].to_numpy()
    start, end = frame["start"].to_numpy(), frame["end"].to_numpy()
    run = np.ones(len(frame), dtype=bool)  # a row's bars of one stage, by start
    run[1:] = (lane[1:] != lane[:-1]) | (stage[1:] != stage[:-1])
    # the furthest end of the run's bars before each: a bar starting past it (and the
    # tolerance) begins a new merged bar
    reach = pd.Series(end).groupby(np.cumsum(run)).cummax().to_numpy()
    new = run.copy()
    new[1:] |= start[1:] - reach[:-1] > tolerance
    bars = _joined(frame, new)
    return bars.assign(lane=bars["lane"] * per_row, height=per_row)


def _executor_labels(tasks: pd.DataFrame) -> pd.Series:
    executor = tasks["executor_id"].astype(str) if "executor_id" in tasks.columns else None
    host = tasks["host"].astype(str) if "host" in tasks.columns else None
    if executor is None:
        return host if host is not None else pd.Series("-", index=tasks.index)
    if host is None:
        return executor
    return executor + " (" + host + ")"


def app_timeline(
    tasks: pd.DataFrame, stragglers: set[str], key: str, damaged: frozenset[str] = frozenset()
) -> tuple[Html, str] | None:
    """The Gantt chart of one app's task attempts and its caption, or None without times.
    The ``damaged`` attempts (ids: launched outside their application's logged span, as the
    what-if leaves them out) are not drawn: one from years before would stretch the chart over
    them, and the caption says how many."""
    if not {"launch_time", "finish_time", "stage_key"} <= set(tasks.columns):
        return None
    launch = pd.to_numeric(tasks["launch_time"], errors="coerce")
    finish = pd.to_numeric(tasks["finish_time"], errors="coerce")
    ok = launch.notna() & finish.notna() & (finish >= launch)
    left_out = 0
    if damaged and "id" in tasks.columns:
        outside = tasks["id"].astype(str).isin(damaged) & ok
        left_out, ok = int(outside.sum()), ok & ~outside
    tasks, launch, finish = tasks[ok], launch[ok].to_numpy(float), finish[ok].to_numpy(float)
    if tasks.empty:
        return None
    origin = launch.min()
    label = _executor_labels(tasks).to_numpy()
    lane = lanes(label, launch, finish)
    # executors in order of their first task, ties by name: a set's order changes from run to
    # run (string hashing), and the page must not
    executors = sorted(set(label), key=lambda e: (launch[label == e].min(), e))
    width = pd.Series(lane).groupby(label).max().add(1)
    firsts = np.cumsum([0] + [int(width[e]) for e in executors])
    offset = dict(zip(executors, firsts[:-1]))
    order = tasks.assign(_launch=launch).groupby("stage_key")["_launch"].min().sort_values()
    stage_index = {s: i for i, s in enumerate(order.index)}
    frame = pd.DataFrame(
        {
            "lane": lane + np.array([offset[e] for e in label]),
            "start": (launch - origin) / 1000,
            "end": (finish - origin) / 1000,
            "stage": tasks["stage_key"].map(stage_index).to_numpy(),
        }
    )
    span = float(frame["end"].max()) or 1.0
    count = int(firsts[-1])
    slow = (
        frame[tasks["id"].astype(str).isin(stragglers).to_numpy()]
        if "id" in tasks.columns
        else frame.iloc[0:0]
    )
    slow = slow.assign(length=slow["end"] - slow["start"]).nlargest(plots.MAX_OUTLINES, "length")
    if count > plots.LANE_ROWS:  # rows of lanes, stragglers outlined on their lane's row
        bars = binned(frame, count, span / plots.PIXELS)
        per_row = count / plots.LANE_ROWS
        slow = slow.assign(lane=np.floor(slow["lane"] / per_row) * per_row, height=per_row)
    else:
        bars = merged(frame, span / plots.PIXELS)
    names = [stage_label(s) for s in order.index]
    legend = [f"stage {n}" if i < LEGEND_STAGES else None for i, n in enumerate(names)]
    chart = plots.timeline(
        bars,
        slow,
        [(e, int(offset[e]), int(width[e])) for e in executors],
        legend,
        f"timeline-{key}",
    )
    caption = (
        f"{len(tasks):,} task attempts on {len(executors)} executors over {span:,.1f} s; "
        f"{len(stage_index)} stages; {len(slow):,} stragglers outlined"
        + (f" (the {plots.MAX_OUTLINES} longest)" if len(slow) == plots.MAX_OUTLINES else "")
        + (f"; colours repeat after {LEGEND_STAGES} stages" if len(names) > LEGEND_STAGES else "")
        + (f"; {left_out_words(left_out, 'the timeline')}" if left_out else "")
    )
    return chart, caption


def timeline_section(apps, stragglers: set[str], damaged: frozenset[str] = frozenset()) -> Section:
    """One timeline per application (``overview.App``), ``damaged`` attempts left out."""
    parts, drawn = [], 0
    for app in apps:
        found = app_timeline(app.tasks, stragglers, app.key, damaged)
        heading = tag("h3", f"{app.facts['name']} ({app.facts['id']})")
        if found is None:
            ids = app.tasks["id"].astype(str) if "id" in app.tasks.columns else pd.Series()
            left_out = int(ids.isin(damaged).sum())
            said = (
                f"No timeline: {left_out_words(left_out, 'the timeline')}."
                if left_out
                else "No task launch and finish times in the log."
            )
            parts.append(join([heading, tag("p", said)]))
            continue
        chart, caption = found
        drawn += 1
        parts.append(
            join([heading, tag("figure", chart, tag("figcaption", caption), cls="timeline")])
        )
    summary = (
        f"tasks per executor over time for {drawn} of {len(apps)} applications; stragglers outlined"
        if drawn
        else "the log has no task times to draw"
    )
    return Section("timeline", "Timeline", summary, join(parts))
