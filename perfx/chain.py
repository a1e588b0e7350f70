"""One chain of evidence: a slow task of a log, the partition of a traced run it computed,
and the input records inside that partition that cost the time.

``explain(log, query, run=RUN)`` answers as ``perfx.explain.engine.explain`` does and adds
``culprits`` to the answer: the records of the first task's partition with their location,
excerpt, impact and share of the task's traced time. The link from a task of ``log`` to the
stored traced run is made by one of two rules:

1. **The traced run's own log** (the task's app id is the run's): the task ran as Spark
   stage *s*, partition *p* (``partition_id`` when logged, else its index in the stage, which
   is the partition Spark gave it). The traced stage is the one whose lineage rows Spark stage
   *s* wrote (the store records the Spark stage id of every partition file).
2. **Another run of the same program on the same input** (the slow production run whose log
   the user has): Spark numbers stages differently from run to run, so the task's stage is
   matched by its position: the *k*-th stage (by id) of the task's job is the *k*-th stage of
   the job of the traced run's own log that has as many stages, and partition *p* stays *p*.
   The two stages must have the same number of partitions, and where both read input, every
   partition the same bytes (within 1 %): otherwise the runs read different input or split it
   differently, and the link is refused with the first difference found.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from perfx.explain.options import ExplainOptions
from perfx.isolation.errors import IsolationError

INPUT_TOLERANCE = 0.01
"""Relative difference in a partition's input bytes still taken as the same split."""

MIN_IMPACT_MS = 1.0
"""Records whose removal would save less than this are not culprits."""


@dataclass(frozen=True)
class Link:
    """Where a task of a log sits in a traced run: the traced stage and partition, the
    Spark stage that computed it there, and that traced task's duration (ms, NaN unknown)."""

    run: str
    traced_stage: int
    partition: int
    spark_stage: int
    traced_task_ms: float
    rule: str


def open_run(run: str, store=None):
    """The complete stored run ``run`` (``perfx runs`` lists them)."""
    from perfx.isolation.queries import StoredRun
    from perfx.isolation.stores import LineageStore, open_store

    return StoredRun.open(store if isinstance(store, LineageStore) else open_store(store), run)


def traced_tasks(stored) -> pd.DataFrame:
    """The task table of the traced run's own event log (its app and its jobs only)."""
    where = stored.meta.get("event_log")
    if not where or not Path(where).exists():
        raise IsolationError(
            f"run {stored.run} has no event log of its traced execution "
            "(trace it again with perfx isolate, which writes one)"
        )
    tasks = _run_tasks(
        where,
        Path(where).stat().st_mtime_ns,
        str(stored.meta.get("app_id")),
        traced_spark_stages(stored),
    )
    if tasks.empty:
        raise IsolationError(
            f"the event log of run {stored.run} ({where}) has no task of its app {stored.meta.get('app_id')}"
        )
    return tasks[tasks["status"] == "SUCCESS"] if "status" in tasks.columns else tasks


def traced_spark_stages(stored) -> tuple[int, ...]:
    """The Spark stages in which the traced run timed records (its stage ends ran there)."""
    return tuple(
        sorted(
            {
                s
                for info in stored.meta.get("stages", {}).values()
                for s in info.get("spark_stages", [])
            }
        )
    )


@lru_cache(maxsize=8)
def _run_tasks(
    where: str, modified: int, app_id: str, spark_stages: tuple[int, ...]
) -> pd.DataFrame:
    """Read once per batch of questions (keyed by the log's modification time too, as a
    notebook's session keeps writing it): the tasks of ``app_id``'s jobs that ran the traced
    run's Spark stages; a notebook's session logs other work beside the run in the same app."""
    from perfx.logs.loader import load_log

    tasks = load_log([where]).tasks
    tasks = tasks[tasks["app_id"].astype(str) == app_id]
    jobs = set(tasks.loc[tasks["stage_id"].isin(spark_stages), "job_id"].astype(str))
    return tasks[tasks["job_id"].astype(str).isin(jobs)]


def link(tasks: pd.DataFrame, task_id: str, stored) -> Link:
    """Link the task ``task_id`` of the task table ``tasks`` to ``stored`` (module docstring)."""
    rows = tasks[tasks["id"].astype(str) == str(task_id)]
    if rows.empty:
        raise IsolationError(f"no task {task_id!r} in the log")
    task = rows.iloc[0]
    traced = traced_tasks(stored)
    partition = int(task_partitions(rows).iloc[0])
    if str(task["app_id"]) == str(stored.meta.get("app_id")):
        spark_stage, rule = int(task["stage_id"]), "the traced run's own log"
    else:
        spark_stage, rule = (
            _matching_stage(tasks, task, traced, stored.run),
            "stage position in its job",
        )
    in_stage = traced[traced["stage_id"] == spark_stage]
    stage, traced_partition = _traced_partition(
        stored, spark_stage, partition, len(set(task_partitions(in_stage)))
    )
    same = in_stage[task_partitions(in_stage) == partition]
    duration = float(same["duration"].max()) if len(same) else float("nan")
    return Link(stored.run, stage, traced_partition, spark_stage, duration, rule)


def task_partitions(tasks: pd.DataFrame) -> pd.Series:
    """Each task's partition: ``partition_id`` where Spark logged it, else its index in the
    stage (the partition Spark gave it)."""
    logged = (
        tasks["partition_id"]
        if "partition_id" in tasks.columns
        else pd.Series(-1, index=tasks.index)
    )
    return logged.where(logged.notna() & (logged >= 0), tasks["task_index"]).astype(int)


def tasks_of_partition(tasks: pd.DataFrame, spark_stage: int, partition: int) -> pd.DataFrame:
    """The rows of ``tasks`` that ran ``partition`` of Spark stage ``spark_stage`` (its
    attempts, in the table's order)."""
    in_stage = tasks[tasks["stage_id"].astype(int) == int(spark_stage)]
    return in_stage[task_partitions(in_stage) == int(partition)]


def _job_stages(tasks: pd.DataFrame, app: str, job) -> list[int]:
    ours = tasks[(tasks["app_id"].astype(str) == app) & (tasks["job_id"].astype(str) == str(job))]
    return sorted(int(s) for s in ours["stage_id"].unique())


def _matching_stage(tasks: pd.DataFrame, task: pd.Series, traced: pd.DataFrame, run: str) -> int:
    """Rule 2: the traced run's Spark stage at the task's stage's position in its job, after
    checking partition counts and input splits agree."""
    app = str(task["app_id"])
    stages = _job_stages(tasks, app, task["job_id"])
    position = stages.index(int(task["stage_id"]))
    mine = tasks[(tasks["app_id"].astype(str) == app) & (tasks["stage_id"] == task["stage_id"])]
    traced_app = str(traced["app_id"].iloc[0])
    candidates = []
    for job in traced["job_id"].unique():
        theirs = _job_stages(traced, traced_app, job)
        if len(theirs) == len(stages):
            candidates.append(theirs[position])
    if not candidates:
        raise IsolationError(
            f"run {run} ran no job of {len(stages)} stages like task {task['id']}'s job: "
            "is it a run of the same program?"
        )
    reasons = []
    for spark_stage in reversed(candidates):  # the last job is the program's final action
        reason = _differs(mine, traced[traced["stage_id"] == spark_stage])
        if reason is None:
            return spark_stage
        reasons.append(reason)
    raise IsolationError(
        f"run {run} did not read the input of task {task['id']}'s stage: {reasons[0]}"
    )


def _differs(mine: pd.DataFrame, theirs: pd.DataFrame) -> str | None:
    """Why two stages are not the same split of the same input, or None."""
    if len(set(task_partitions(mine))) != len(set(task_partitions(theirs))):
        return f"{len(set(task_partitions(mine)))} partitions here, {len(set(task_partitions(theirs)))} in the traced run"
    if "input_bytes" not in mine.columns:
        return None
    a = mine.groupby(task_partitions(mine))["input_bytes"].max()
    b = theirs.groupby(task_partitions(theirs))["input_bytes"].max().reindex(a.index)
    both = (a > 0) & (b > 0)
    off = both & ((a - b).abs() > INPUT_TOLERANCE * np.maximum(a, b))
    if off.any():
        p = int(off.idxmax())
        return f"partition {p} read {a[p]:,.0f} bytes here and {b[p]:,.0f} in the traced run"
    if (a > 0).any() and not (b > 0).any():
        return "the traced run's stage read no input"
    return None


def _traced_partition(stored, spark_stage: int, partition: int, tasks: int) -> tuple[int, int]:
    """The traced stage and partition that Spark stage ``spark_stage``'s task of ``partition``
    (of ``tasks`` partitions) wrote. Traced stages that end in one Spark stage with as many
    partitions between them as it has tasks are the sides of a union (a join's or cogroup's
    two sides, shuffled together): its partitions are theirs laid end to end, in stage order.
    Otherwise the stages are pipelined and the last one's rows end the Spark stage."""
    found = _traced_stages(stored, spark_stage)
    stages = stored.meta["stages"]
    if len(found) > 1 and sum(int(stages[str(s)]["partitions"]) for s in found) == tasks:
        for stage in found:
            size = int(stages[str(stage)]["partitions"])
            if partition < size:
                return stage, partition
            partition -= size
    return found[-1], partition


def _traced_stages(stored, spark_stage: int) -> list[int]:
    found = sorted(
        int(t)
        for t, info in stored.meta.get("stages", {}).items()
        if spark_stage in info.get("spark_stages", []) and info.get("kind") != "costs"
    )
    if not found:
        known = traced_spark_stages(stored)
        raise IsolationError(
            f"run {stored.run} traced no records in Spark stage {spark_stage} "
            f"(its traced Spark stages: {', '.join(map(str, known)) or 'none'})"
        )
    return found


def culprits(tasks: pd.DataFrame, task_id: str, stored, top: int = 5, keys: bool = False) -> dict:
    """The input records inside the task's partition that cost the time, as plain data; with
    ``keys`` (data skew), also the keys the partition combined the most records of."""
    from perfx.isolation.queries import heavy_keys, top_culprits

    where = link(tasks, task_id, stored)
    ranked = top_culprits(stored, top=top, stage=where.traced_stage, partition=where.partition)
    heavy = heavy_keys(stored, where.traced_stage, where.partition, top) if keys else None
    total = where.traced_task_ms
    records = [
        {
            "source": int(r.source),
            "location": r.location,
            "excerpt": r.excerpt,
            "impact_ms": float(r.impact_ms),
            "latency_ms": float(r.max_total_ms),
            "remediated_ms": float(r.max_remediated_ms),
            "outputs": int(r.outputs),
            "share": (float(r.impact_ms) / total) if total and total == total else None,
        }
        for r in ranked.itertuples()
        if r.impact_ms >= MIN_IMPACT_MS
    ]
    return {
        "run": where.run,
        "task": str(task_id),
        "traced_stage": where.traced_stage,
        "partition": where.partition,
        "spark_stage": where.spark_stage,
        "traced_task_ms": None if total != total else total,
        "rule": where.rule,
        "records": records,
        "keys": None
        if heavy is None
        else [
            {
                "key": r.key,
                "records": int(r.records),
                "share": float(r.share),
                "latency_ms": float(r.latency_ms),
            }
            for r in heavy.itertuples()
        ],
    }


def explain(
    log,
    query,
    options: ExplainOptions | None = None,
    *,
    bind: Sequence[object] = (),
    run: str | None = None,
    store=None,
    top: int = 5,
    strict: bool = True,
):
    """``perfx.explain``: the engine's answer, with the culprit records of the first task
    when a traced ``run`` is given, and otherwise, for a skew diagnosis, the ``perfx isolate``
    command to get them with the program and input filled in where the log names them.
    Without ``strict`` (a batch of questions), a task the run cannot be linked to gets a note
    saying why instead of losing its answer."""
    from perfx.explain.engine import explain as answer_of

    answer = answer_of(log, query, options, bind=bind)
    if run is not None:
        try:
            if answer.entity != "task":
                raise IsolationError(
                    f"culprits are records inside a task's partition: ask about tasks, not {answer.entity}s"
                )
            skewed = (
                answer.gap is not None
                and answer.gap.diagnosis is not None
                and answer.gap.diagnosis.name == "data skew"
            )
            answer.culprits = culprits(
                log.tasks, answer.pair[0], open_run(run, store), top, keys=skewed
            )
        except IsolationError as err:
            if strict:
                raise
            answer.notes.append(f"no culprits from run {run}: {err}")
    elif (
        answer.gap is not None
        and answer.gap.diagnosis is not None
        and answer.gap.diagnosis.next_step
    ):
        answer.gap.diagnosis = _with_command(answer.gap.diagnosis, log, answer.pair[0])
    return answer


def _with_command(diagnosis, log, task_id: str):
    """The diagnosis with its ``perfx isolate`` command filled in for the task's app."""
    from dataclasses import replace

    tasks = log.tasks[log.tasks["id"].astype(str) == str(task_id)]
    if tasks.empty:
        return diagnosis
    return replace(diagnosis, next_step=isolate_command(log, str(tasks["app_id"].iloc[0])))


def isolate_command(log, app_id: str) -> str:
    """``perfx isolate PROGRAM.py --input INPUT`` with the program and input filled in where
    the log names them: the driver's command line (``spark-submit job.py DATA ...`` puts the
    program first and its arguments after it; the first argument is taken as the input, else
    what its Python plan scanned), else the application's name when it names a Python file.
    Placeholders stay otherwise."""
    from perfx.explain.gap import ISOLATE

    apps = log.apps[log.apps["app_id"].astype(str) == app_id] if not log.apps.empty else log.apps
    if apps.empty:
        return ISOLATE
    app = apps.iloc[0]
    words = str(app.get("command", "") or "").split()
    at = next(
        (
            k
            for k, word in enumerate(words)
            if word.endswith(".py")
            and "=" not in word
            and not (k and words[k - 1].startswith("--"))
        ),
        None,
    )  # not an option's value
    program = (
        words[at]
        if at is not None
        else next((w for w in str(app.get("name", "")).split() if w.endswith(".py")), None)
    )
    data = (
        words[at + 1]
        if at is not None and at + 1 < len(words) and not words[at + 1].startswith("-")
        else _scanned(log, app_id)
    )
    return ISOLATE.replace("PROGRAM.py", program or "PROGRAM.py").replace("INPUT", data or "INPUT")


def _scanned(log, app_id: str) -> str | None:
    """The first input a SQL plan of ``app_id`` with Python UDFs scanned (logs.eventlog.sqlplan),
    where the program's command line names none."""
    from perfx.logs.eventlog import sqlplan

    jobs = log.jobs
    if jobs.empty or "plan_input" not in jobs.columns:
        return None
    mine = jobs[(jobs["app_id"].astype(str) == app_id) & (jobs["plan_engine"] == sqlplan.PYTHON)]
    scanned = [str(i) for i in mine["plan_input"] if i]
    return scanned[0].removeprefix("file:") if scanned else None


class NoStageToCompare(IsolationError):
    """No task of the traced run can be explained against its peers: its stages are too
    small (a small program's one or two partitions), or none of the task's stage was
    clearly faster than it (``why._explained``). ``perfx why`` gives the run's records
    instead."""


CANDIDATES = 10
"""How many of the tasks that lost the most time against their stage ``skewed_task`` weighs
against the traced records (each costs one query of its partition's culprits)."""


LOST_SHARE = 0.5
"""A task that read many more records than its peers (``VOLUME_FOLD``) stays the one
explained unless another task's own records explain at least this share of what it lost."""

VOLUME_FOLD = 1.5
"""Records in, against its stage's median, that make a task's lost time data skew's."""


def skewed_task(tasks: pd.DataFrame, stored=None) -> str:
    """Where skew cost the most: the task that lost the most time against its stage's median
    (stages of at least three successful tasks). With the traced run ``stored``, the time a
    task lost is weighed against what its own records cost it: on a busy machine a task can
    lose 150 ms to scheduling while another loses 30 ms to one record, and the records are
    what the user asked for. Of the ``CANDIDATES`` tasks that lost the most and the
    ``CANDIDATES`` whose traced records took the longest beyond their stage's median
    (``_traced_excess``), the one whose costliest record explains the most of its loss
    (``_spent_in``, at most what it lost, and at least ``MIN_IMPACT_MS``) is taken.

    Data skew (many cheap records, none a culprit alone) is the exception: where the task
    that lost the most read ``VOLUME_FOLD`` times its stage's median records, another task
    must explain ``LOST_SHARE`` of that loss to be taken instead; but only if its records
    are what it lost the time to. Where the traced run timed its stage, its traced records
    must have taken ``LOST_SHARE`` of its loss beyond the stage's median: a task given twice
    its peers' records by the input's split that lost its time to scheduling is no data skew
    (the records were cheap, the traced run measured them). With no record explaining
    anything, the task that lost the most is (its answer then says that no record has a
    measurable impact)."""
    done = tasks[tasks["status"] == "SUCCESS"] if "status" in tasks.columns else tasks
    sized = done[done.groupby("stage_key")["duration"].transform("size") >= 3]
    if sized.empty:
        raise NoStageToCompare(
            "no stage of the traced run has three tasks to compare, so no task is explained "
            "against its stage (more input partitions would give it some)"
        )
    excess = sized["duration"] - sized.groupby("stage_key")["duration"].transform("median")
    ranked = excess.sort_values(ascending=False, kind="stable")
    best = str(sized.loc[ranked.index[0], "id"])
    if stored is None:
        return best
    traced = _traced_excess(sized, stored)
    explained = float(MIN_IMPACT_MS)
    top, top_lost = ranked.index[0], float(ranked.iloc[0])
    if "records_in" in sized.columns:
        # against the peers that read something: a join of few keys in many partitions
        # leaves some empty, and a task reading what its working peers read is no data skew
        working = sized["records_in"].where(sized["records_in"] > 0)
        median = working.groupby(sized["stage_key"]).transform("median").fillna(0.0)
        many = sized.loc[top, "records_in"] >= VOLUME_FOLD * max(float(median[top]), 1.0)
        cheap = top in traced.index and traced[top] < LOST_SHARE * top_lost
        if many and not cheap:
            explained = max(explained, LOST_SHARE * top_lost)
    candidates = list(ranked.head(CANDIDATES).index)
    candidates += [i for i in traced.nlargest(CANDIDATES).index if i not in candidates]
    for index in candidates:
        task_id = str(sized.loc[index, "id"])
        worth = min(float(excess[index]), _spent_in(tasks, task_id, stored))
        if worth >= explained:
            best, explained = task_id, worth
    return best


def _traced_excess(sized: pd.DataFrame, stored) -> pd.Series:
    """Per task of ``sized`` (by its index) whose partition the traced run timed record by
    record (the stage end of a stage that read source records keeps its partitions' traced
    times, costs.py): how much longer its partition's traced records took than those of its
    stage's median task. Time a task lost to scheduling, a busy machine or a cold start is
    not in it."""
    from perfx.isolation.queries import partition_times

    times = partition_times(stored)
    if times.empty:
        return pd.Series(dtype=float)
    traced_ms = times.groupby(["stage", "partition"])["traced_ms"].sum().to_dict()
    stages = stored.meta.get("stages", {})
    partitions = task_partitions(sized)
    found: dict = {}
    for spark_stage, rows in sized.groupby("stage_id"):
        count = len(set(partitions[rows.index]))
        for index in rows.index:
            try:
                stage, partition = _traced_partition(
                    stored, int(spark_stage), int(partitions[index]), count
                )
            except IsolationError:  # a stage without traced records (JVM work alone)
                break
            costs = stages.get(str(stage), {}).get("costs")
            if costs is not None and (int(costs), partition) in traced_ms:
                found[index] = traced_ms[(int(costs), partition)]
    measured = pd.Series(found, dtype=float)
    if measured.empty:
        return measured
    stage_of = sized.loc[measured.index, "stage_key"]
    return measured - measured.groupby(stage_of).transform("median")


def _spent_in(tasks: pd.DataFrame, task_id: str, stored, top: int = 3) -> float:
    """The most time (ms) one of the ``top`` culprits of the task's partition cost inside that
    task. A culprit's impact there is its whole path's time, which may have been spent in an
    earlier task (a record parsed slowly before a shuffle leads the outputs after it); the
    cost kept where that time was spent (costs.py) is taken off unless it was this task."""
    from perfx.isolation.queries import removed_costs

    try:
        found = culprits(tasks, task_id, stored, top=top)
    except IsolationError:  # a stage that ran no traced records (a JVM-only stage)
        return 0.0
    if not found["records"]:
        return 0.0
    kept = removed_costs(stored, [r["source"] for r in found["records"]])
    spent = 0.0
    for record in found["records"]:
        where = kept[kept["source"] == record["source"]]
        elsewhere = not where.empty and (
            int(where["spark_stage"].iloc[0]) != found["spark_stage"]
            or int(where["partition"].iloc[0]) != found["partition"]
        )
        upstream = float(where["cost_ms"].iloc[0]) if elsewhere else 0.0
        spent = max(spent, record["impact_ms"] - upstream)
    return spent


def costliest_elsewhere(tasks: pd.DataFrame, stored, found: dict) -> str | None:
    """Said where the explained task's partition (``found``, as ``culprits`` gives it) has no
    culprit but the traced run kept a record that cost at least ``MIN_IMPACT_MS`` in another
    task: which record, what it cost and which task read it, so that an answer without
    culprits never hides the records the run did measure. None otherwise."""
    from perfx.isolation.queries import removed_costs, top_culprits

    if found["records"]:
        return None
    ranked = top_culprits(stored, top=10)  # those with the largest costs are among them
    if ranked.empty or "cost_ms" not in ranked.columns:
        return None
    costs = pd.to_numeric(ranked["cost_ms"], errors="coerce")
    if costs.isna().all() or float(costs.max()) < MIN_IMPACT_MS:
        return None
    record = ranked.loc[costs.idxmax()]
    spent = removed_costs(stored, [int(record["source"])])
    if spent.empty:
        return None
    where = spent.iloc[0]
    ran = tasks_of_partition(tasks, where["spark_stage"], where["partition"])
    if ran.empty or str(ran["id"].iloc[-1]) == found["task"]:
        return None
    ends = [  # the stage end whose companion costs table kept the record
        s for s, info in stored.meta["stages"].items() if info.get("costs") == int(where["stage"])
    ]
    stage = int(ends[0]) if ends else int(where["stage"])
    return (
        f"no record of task {found['task']}'s partition has a measurable impact; the run's "
        f"costliest record, {record['location']} ({float(record['cost_ms']):,.0f} ms: "
        f"{record['excerpt']}), was read by task {ran['id'].iloc[-1]} "
        f"(perfx culprits {stored.run} --stage {stage} "
        f"--partition {int(where['partition'])})"
    )
