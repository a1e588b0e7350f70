"""The replay perfx used before it scheduled an application's jobs together: each stage on the
slots it really used, a freed slot taken at once, jobs chained one after another. Kept here
only as the baseline ``bench_whatif_public`` measures the app-wide replay against.

Its own description follows.

Replays the scheduling of a log's tasks with new durations (paper section 2.3.2, Figure 2).

Subtracting blocked time from each task and its original finish is not enough: later waves
start earlier and tasks move to slots freed sooner. So each stage is replayed as a list
scheduler over the slots it really used; locality is ignored, as in the paper.

* **Slots.** Each executor contributes as many slots as it ran attempts of the stage at once.
  Concurrency is counted over each attempt minus its scheduler delay (at most half of it): the
  driver launches the next task on a freed core before it records the previous task's finish,
  and counting whole durations would see phantom extra slots.
* **First wave.** An executor's slots open when it really began its first attempts of the
  stage and start with those attempts: before any slot frees up the scheduler has no choice
  to replay, and executors that joined late (dynamic allocation) still join late.
* **Later waves.** The remaining attempts, in their real launch order, each take the slot that
  frees first among those whose executor was still in the stage (had not yet finished its
  last attempt of the stage, i.e. was not excluded or lost); when none is, the first free one.
  Failed and killed attempts held a slot too, so every attempt with a launch and finish time
  is replayed.

Stages and jobs are placed as they really were, relative to what ran before them: a stage
starts after every stage of its job that had finished before it really started, plus the
real gap between those finishes and its own first launch (time the driver spent submitting
it); a stage with nothing before it starts at its real offset from the job's submission. A
job ends at its last stage's end plus its real tail (the driver's time to wrap it up). Jobs
are placed within their app in the same way. This generalises the paper's replay, which ran
a job's stages one after another and merged stages that overlapped: stages that really ran
concurrently still do, each on its own slots. It is conservative: a stage waits for every
stage that finished before it, not only its parents, so no what-if gets credit for running
a stage earlier than the real order allows.

Under the real durations the replay reproduces each stage's span up to the gaps between a
finish and the next launch on a slot: that difference is the model error ``whatif`` reports.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
import pandas as pd

# What the old replay shares with today's is imported, not copied: only the scheduling differs.
from perfx.explain.blocked.replay import (
    APP_END,
    APP_START,
    JOB_END,
    JOB_START,
    app_column,
)
from perfx.explain.blocked.slots import executor_slots, slot_release


@dataclass(frozen=True)
class Replay:
    """Real and replayed bounds: ``stages``, ``jobs`` and ``apps`` tables, durations in ms.
    Their ``app_id`` column holds the app run's ``app_key`` where the log has one (attempts of
    one app are replayed apart)."""

    stages: pd.DataFrame
    jobs: pd.DataFrame
    apps: pd.DataFrame


def simulate(opens: np.ndarray, closes: np.ndarray, seeds: np.ndarray, rest: np.ndarray) -> float:
    """Span of a stage: slot i opens at ``opens[i]`` running its first attempt for ``seeds[i]``
    ms; each of ``rest`` (in order) then takes the slot that frees first among those freeing
    before their ``closes``, else the slot that frees first. A slot's free time only grows, so
    once past its close it stays closed: two heaps, open and closed slots."""
    free = opens + seeds
    end = float(free.max()) if len(free) else 0.0
    open_slots = [(float(f), i) for i, f in enumerate(free)]
    heapq.heapify(open_slots)
    closed: list[tuple[float, int]] = []
    for d in rest:
        while open_slots and open_slots[0][0] >= closes[open_slots[0][1]]:
            heapq.heappush(closed, heapq.heappop(open_slots))
        slots = open_slots if open_slots else closed
        at, i = heapq.heappop(slots)
        heapq.heappush(slots, (at + float(d), i))
        end = max(end, at + float(d))
    return end


def chain(start: np.ndarray, end: np.ndarray, span: np.ndarray, origin: float) -> np.ndarray:
    """Replayed ends of units that really ran over [start, end) and now take ``span`` each,
    relative to a replayed origin at 0 (the real ``origin``): each unit starts after the
    replayed ends of the units that really ended before it started, plus the real gap."""
    n = len(start)
    new_end = np.zeros(n)
    for i in np.lexsort((end, start)):
        before = end <= start[i]
        before[i] = False
        if before.any():
            new_start = new_end[before].max() + (start[i] - end[before].max())
        else:
            new_start = start[i] - origin
        new_end[i] = new_start + span[i]
    return new_end


def _bounds(
    table: pd.DataFrame, keys: list[str], starts: tuple[str, ...], ends: tuple[str, ...]
) -> pd.DataFrame:
    """``keys`` + ``start``/``end`` from the first of the candidate columns the table has."""
    if (
        table is None
        or table.empty
        or "app_id" not in table.columns
        or not set(keys[1:]) <= set(table.columns)
    ):
        return pd.DataFrame(columns=[*keys, "start", "end"])
    table = table[table[app_column(table)].notna()]  # MapReduce jobs beside Spark apps have none
    out = table[keys[1:]].astype(str).assign(app_id=table[app_column(table)].astype(str))[keys]

    def pick(candidates: tuple[str, ...]) -> pd.Series:
        column = next((c for c in candidates if c in table.columns), None)
        return (
            pd.to_numeric(table[column], errors="coerce")
            if column
            else pd.Series(np.nan, index=table.index)
        )

    return out.assign(start=pick(starts), end=pick(ends))


def _stages(tasks: pd.DataFrame, durations: pd.Series) -> pd.DataFrame:
    machine = next((c for c in ("executor_id", "host") if c in tasks.columns), None)
    t = tasks.assign(
        app_id=tasks[app_column(tasks)].astype(str),
        job_id=tasks["job_id"].astype(str),
        machine=tasks["stage_key"].astype(str)
        + "\0"
        + (tasks[machine].astype(str) if machine else ""),
        launch_time=pd.to_numeric(tasks["launch_time"]).astype(float),
        finish_time=pd.to_numeric(tasks["finish_time"]).astype(float),
        new_duration=durations.reindex(tasks.index).astype(float).clip(lower=0),
    ).sort_values(["stage_key", "launch_time"], kind="stable")
    stage_start = t.groupby("stage_key")["launch_time"].transform("min")
    slots = executor_slots(t["machine"], t["launch_time"].to_numpy(float), slot_release(t))
    t["offset"] = t["launch_time"] - stage_start
    t["close"] = t.groupby("machine")["finish_time"].transform("max") - stage_start
    t["opening"] = t.groupby("machine").cumcount() < t["machine"].map(slots)

    spans = {}
    for key, g in t.groupby("stage_key", sort=False):
        first = g[g["opening"]]
        spans[key] = simulate(
            first["offset"].to_numpy(),
            first["close"].to_numpy(),
            first["new_duration"].to_numpy(),
            g.loc[~g["opening"], "new_duration"].to_numpy(),
        )
    stages = t.groupby("stage_key", sort=False).agg(
        app_id=("app_id", "first"),
        job_id=("job_id", "first"),
        start=("launch_time", "min"),
        end=("finish_time", "max"),
        tasks=("launch_time", "size"),
        slots=("opening", "sum"),
    )
    stages["replay_span"] = pd.Series(spans)
    return stages.reset_index()


def _place(units: pd.DataFrame, parents: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Replayed duration of each parent (job or app) from its units (stages or jobs): units
    chained from the parent's real start, plus the parent's real tail after its last unit.
    Parents with no units (a job whose stages were all skipped) keep their real duration."""
    rows = []
    for key, group in units.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        label = key if len(keys) > 1 else key[0]
        real = parents.loc[label] if label in parents.index else None
        first, last = group["start"].min(), group["end"].max()
        start = first if real is None or pd.isna(real["start"]) else min(real["start"], first)
        end = last if real is None or pd.isna(real["end"]) else real["end"]
        new_end = chain(
            group["start"].to_numpy(float),
            group["end"].to_numpy(float),
            group["replay_span"].to_numpy(float),
            start,
        )
        rows.append((*key, start, end, end - start, new_end.max() + (end - last), len(group)))
    placed = pd.DataFrame(rows, columns=[*keys, "start", "end", "real_ms", "replay_ms", "units"])
    empty = parents[~parents.index.isin(placed.set_index(keys).index)].dropna(
        subset=["start", "end"]
    )
    empty = empty.reset_index().assign(real_ms=lambda d: d["end"] - d["start"], units=0)
    empty["replay_ms"] = empty["real_ms"]
    return pd.concat([placed, empty[placed.columns]], ignore_index=True) if len(empty) else placed


def replay(
    tasks: pd.DataFrame,
    durations: pd.Series,
    jobs: pd.DataFrame | None = None,
    apps: pd.DataFrame | None = None,
) -> Replay:
    """Replays ``tasks`` (replayable attempts) with new ``durations`` (ms, aligned to tasks).

    Job and app bounds come from the ``jobs``/``apps`` tables where they have them (Spark's
    submission and completion times), else from their tasks."""
    stages = _stages(tasks, durations)
    job_bounds = _bounds(jobs, ["app_id", "job_id"], JOB_START, JOB_END).set_index(
        ["app_id", "job_id"]
    )
    job_table = _place(stages, job_bounds, ["app_id", "job_id"]).rename(columns={"units": "stages"})
    task_counts = stages.groupby(["app_id", "job_id"])["tasks"].sum().rename("tasks")
    job_table = job_table.join(task_counts, on=["app_id", "job_id"]).fillna({"tasks": 0})

    app_bounds = _bounds(apps, ["app_id"], APP_START, APP_END).set_index("app_id")
    units = job_table.rename(columns={"replay_ms": "replay_span"})
    app_table = _place(units, app_bounds, ["app_id"]).rename(columns={"units": "jobs"})
    return Replay(stages, job_table, app_table)
