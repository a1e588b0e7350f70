"""Stragglers per stage and their causes, by the rules of the NSDI 2015 paper (section 5.3).

A straggler is a successful task whose inverse progress rate exceeds 1.5x its stage's median,
and which took longer than its stage's median task: a near-empty task's fixed cost makes its
time per byte high however fast it ran, and nothing is at stake in it (a probe of held-out
causes: 17 ms tasks of 375 rows among 30 ms tasks of 12,000 were listed, the fastest of them
with no faster task to be compared with).
Its causes:

* **blocked-time causes** (GC, shuffle read wait, shuffle write, input read, scheduler delay,
  task deserialization, result serialization): caused by X if it would not be a straggler had
  X taken zero time *in every task of the stage* — X is removed from all durations, the median
  is recomputed, and the task is tested again. A cause whose column the log lacks is not
  evaluated (``input_read`` exists only in instrumented traces).
* **output skew**: a straggler by its input progress rate that is not one by its *output*
  progress rate (time per byte of shuffle + output data written).
* **first task**: it began before any other task of its stage finished on the same executor
  (a cold JVM: JIT, class loading, caches), and it is not a straggler when compared only with
  the other such first tasks of the stage. The paper says "machine"; its deployment ran one
  executor per machine, and JIT state lives in the executor's JVM, so the executor is used
  (the host when the executor is unknown). A stage needs two first tasks for the comparison.

A straggler may have several causes; its *primary* cause (for explanations) is the attributed
blocked-time cause with the most time, else output skew, else first task.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfx.logs.progress import (
    WORK_COLUMNS,
    inverse_rate,
    numeric_column,
    stage_groups,
    stage_median,
    straggles,
)
from perfx.logs.time_parts import CAUSES

from . import components
from .slots import slot_release

SPECIAL_CAUSES = ("output_skew", "first_task")
IDENTITY = (
    "id",
    "app_id",
    "app_key",
    "job_id",
    "stage_id",
    "stage_key",
    "task_id",
    "executor_id",
    "host",
)
"""The task table's columns a report's row starts with, as the task table has them: the rest
of the row is computed."""
_READ = (
    *IDENTITY,
    "duration",
    "status",
    "task_type",
    "launch_time",
    "finish_time",
    "scheduler_delay",
    "shuffle_write_bytes",
    "output_bytes",
    *WORK_COLUMNS,
    *(column for columns in CAUSES.values() for column in columns),
)
"""Every task column the analysis reads: it copies these of the successful tasks, not the
whole (wide) task table."""


@dataclass(frozen=True)
class StragglerReport:
    """``tasks``: one row per analysed (successful) task with its rate, straggler flag and
    causes; ``stages``: one row per stage with counts per cause; ``causes``: the causes the log
    allowed to evaluate."""

    tasks: pd.DataFrame
    stages: pd.DataFrame
    causes: tuple[str, ...]

    @property
    def stragglers(self) -> int:
        return int(self.tasks["straggler"].sum())

    @property
    def explained(self) -> int:
        return int(self.tasks["explained"].sum())

    @property
    def explained_share(self) -> float:
        """Share of all stragglers with at least one cause (NaN when there are none)."""
        return self.explained / self.stragglers if self.stragglers else float("nan")


def with_stages(tasks: pd.DataFrame) -> pd.DataFrame:
    """``tasks`` with a ``stage_key`` on every row: MapReduce tasks have none, and there the
    map (or the reduce) tasks of one job play the part of a stage."""
    parts = [c for c in ("job_id", "task_type") if c in tasks.columns]
    if not parts or ("stage_key" in tasks.columns and tasks["stage_key"].notna().all()):
        return tasks
    mapreduce = tasks[parts].astype(str).agg("/".join, axis=1)
    return tasks.assign(
        stage_key=tasks["stage_key"].fillna(mapreduce)
        if "stage_key" in tasks.columns
        else mapreduce
    )


def analysed_tasks(tasks: pd.DataFrame) -> pd.DataFrame:
    """The tasks stragglers are judged among: successful attempts with a positive duration."""
    tasks = with_stages(tasks)
    if tasks.empty or not {"duration", "stage_key"} <= set(tasks.columns):
        return pd.DataFrame({c: pd.Series(dtype=float) for c in ("duration", "stage_key")})
    ok = pd.to_numeric(tasks["duration"], errors="coerce") > 0
    if "status" in tasks.columns:
        ok &= tasks["status"].astype(str).eq("SUCCESS")
    return tasks.loc[ok, [c for c in tasks.columns if c in _READ]]


def _output_bytes(tasks: pd.DataFrame) -> pd.Series | None:
    columns = [c for c in ("shuffle_write_bytes", "output_bytes") if c in tasks.columns]
    if not columns:
        return None
    return tasks[columns].apply(pd.to_numeric, errors="coerce").fillna(0).sum(axis=1)


def first_tasks(tasks: pd.DataFrame) -> pd.Series | None:
    """Tasks that began before any task of their stage finished on the same executor (host).
    A task finishes, for this purpose, when it gives its slot back: the driver may launch the
    next task on that slot a little before it records the finish."""
    machine = next((c for c in ("executor_id", "host") if c in tasks.columns), None)
    if machine is None or not {"launch_time", "finish_time"} <= set(tasks.columns):
        return None
    released = pd.Series(slot_release(tasks), index=tasks.index)
    first_release = released.groupby(stage_groups(tasks["stage_key"], tasks[machine])).transform(
        "min"
    )
    return numeric_column(tasks, "launch_time") < first_release


def find_stragglers(tasks: pd.DataFrame) -> StragglerReport:
    """Stragglers of every stage of ``tasks`` (a canonical task table) and their causes."""
    t = analysed_tasks(tasks)
    stage = stage_groups(t["stage_key"])
    duration = numeric_column(t, "duration").astype(float)
    w = inverse_rate(t, stage)
    rate = w["rate"]
    median = stage_median(rate, stage)
    straggler = straggles(rate, stage) & (duration > stage_median(duration, stage))

    flags: dict[str, pd.Series] = {}
    blocked: dict[str, pd.Series] = {}
    for cause in components.available(t, components.CAUSES):
        blocked[cause] = components.blocked_ms(t, [cause])
        without = (duration - blocked[cause]).clip(lower=0) / w["size"]
        flags[cause] = straggler & ~straggles(without, stage)

    output = _output_bytes(t)
    if output is not None:
        has_output = output > 0
        output_rate = (duration / output).where(has_output)
        flags["output_skew"] = (
            straggler & has_output & ~straggles(output_rate, stage, among=has_output)
        )

    first = first_tasks(t)
    if first is not None:
        enough = first.groupby(stage).transform("sum") >= 2
        flags["first_task"] = straggler & first & enough & ~straggles(rate, stage, among=first)

    out = t[[c for c in IDENTITY if c in t.columns]].copy()
    out["duration"] = duration
    out["basis"] = w["basis"]
    out["rate"] = rate
    out["stage_median_rate"] = median
    out["progress_ratio"] = rate / median
    out["straggler"] = straggler
    out["first_task"] = first if first is not None else False
    for cause, flag in flags.items():
        out[f"cause_{cause}"] = flag
    causes = tuple(flags)
    out["explained"] = np.logical_or.reduce(list(flags.values())) if flags else False
    out["causes"] = _cause_lists(out, causes)
    out["primary_cause"] = _primary(out, blocked, causes)
    return StragglerReport(out, _per_stage(out, causes), causes)


def _cause_lists(out: pd.DataFrame, causes: tuple[str, ...]) -> pd.Series:
    if not causes:
        return pd.Series("", index=out.index)
    names = np.array(causes, dtype=object)
    matrix = out[[f"cause_{c}" for c in causes]].to_numpy(dtype=bool)
    # one list per distinct combination of causes, not one join per task
    combination = matrix @ (1 << np.arange(len(causes), dtype=np.int64))
    distinct, which = np.unique(combination, return_inverse=True)
    bits = (distinct[:, None] >> np.arange(len(causes))) & 1
    lists = np.array([",".join(names[row.astype(bool)]) for row in bits], dtype=object)
    return pd.Series(lists[which.reshape(-1)], index=out.index)


def _primary(
    out: pd.DataFrame, blocked: dict[str, pd.Series], causes: tuple[str, ...]
) -> pd.Series:
    """The primary cause of each straggler; ``none`` for non-stragglers, ``unexplained`` else."""
    primary = pd.Series(  # one str object for each, not one per task
        np.array(["unexplained", "none"], dtype=object)[np.where(out["straggler"], 0, 1)],
        index=out.index,
    )
    for special in reversed(SPECIAL_CAUSES):  # output skew outranks first task
        if special in causes:
            primary = primary.mask(out[f"cause_{special}"], special)
    timed = [c for c in causes if c in blocked]
    if timed:
        attributed = np.column_stack([out[f"cause_{c}"].to_numpy(bool) for c in timed])
        time = np.where(attributed, np.column_stack([blocked[c] for c in timed]), -1.0)
        most = np.array(timed, dtype=object)[time.argmax(axis=1)]  # the first of equals
        primary = primary.mask(attributed.any(axis=1), pd.Series(most, index=out.index))
    return primary


def _per_stage(out: pd.DataFrame, causes: tuple[str, ...]) -> pd.DataFrame:
    keys = [c for c in ("app_id", "app_key", "job_id", "stage_id") if c in out.columns]
    agg = {
        **{k: (k, "first") for k in keys},
        "tasks": ("straggler", "size"),
        "basis": ("basis", "first"),
        "median_rate": ("stage_median_rate", "first"),
        "stragglers": ("straggler", "sum"),
        "explained": ("explained", "sum"),
        **{c: (f"cause_{c}", "sum") for c in causes},
    }
    stages = out.groupby("stage_key", sort=False).agg(**agg).reset_index()
    stages["explained_share"] = stages["explained"] / stages["stragglers"].where(
        stages["stragglers"] > 0
    )
    order = [k for k in ("app_key", "app_id", "stage_id") if k in stages.columns] or ["stage_key"]
    return stages.sort_values(order, kind="stable").reset_index(drop=True)
