"""AppStates -> the canonical app/job/stage/task tables (before derived features, aggregates
and configuration, which logs.derive, logs.aggregate and logs.config add for every format).

Ids carry the application, and its attempt when more than one attempt of the same
application is loaded (``app/attempt/...``): task ids are unique within an attempt only.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd

from ..aggregate import TASK_METRICS
from .build import INT_COLUMNS, AppState, Skip
from .events import TASK_IDENTITY, TASK_NOMINAL, TASK_NUMERIC

TASK_COLUMNS = (
    "id",
    "duration",
    "app_id",
    "app_attempt_id",
    "app_key",
    "job_id",
    "stage_id",
    "stage_attempt_id",
    "stage_key",
    *TASK_IDENTITY,
    *TASK_NOMINAL,
    "resubmitted",
) + TASK_METRICS


DERIVED_FLOATS = ("duration", "getting_result_time", "scheduler_delay", "shuffle_read_bytes")
"""Float columns ``task_table`` computes from the logged values."""
FLOAT_COLUMNS = tuple(
    name
    for name in TASK_COLUMNS
    if name in DERIVED_FLOATS
    or (name in TASK_NUMERIC and name not in (*INT_COLUMNS, "launch_time"))
)
"""The task table's float columns, in its order: its one float block (``_frame``)."""


def app_keys(states: list[AppState]) -> list[str]:
    """``app_id``, or ``app_id/attempt`` for apps loaded with several attempts."""
    attempts = Counter(s.app_id for s in states)
    return [f"{s.app_id}/{s.attempt_id}" if attempts[s.app_id] > 1 else s.app_id for s in states]


def _stage_jobs(state: AppState) -> dict[int, int]:
    """stage id -> the first job that lists it."""
    first: dict[int, int] = {}
    for job_id in sorted(state.jobs):
        for stage_id in state.jobs[job_id]["stage_ids"]:
            first.setdefault(stage_id, job_id)
    return first


def _identity(frame: pd.DataFrame, state: AppState, key: str) -> None:
    """Insert the app's identity columns (after ``id`` when the table has it)."""
    at = 1 if "id" in frame.columns else 0
    frame.insert(at, "app_key", key)
    frame.insert(at, "app_attempt_id", state.attempt_id)
    frame.insert(at, "app_id", state.app_id)


def _per_value(values: np.ndarray, name) -> np.ndarray:
    """``name(v)`` for every element of ``values`` (no missing ones), computed once per
    distinct value: the result holds one string object per distinct value, not one per task."""
    codes, uniques = pd.factorize(values)
    return np.array([name(v) for v in uniques.tolist()], dtype=object)[codes]


def task_table(state: AppState, key: str, stage_jobs: dict[int, int], skip: Skip) -> pd.DataFrame:
    """The task attempts of one app, with Spark's derived times (duration, getting-result
    time, scheduler delay) computed as the history server computes them. Computed on
    column arrays, each string formatted once per distinct value, and made a frame once.
    ``stage_jobs`` is ``_stage_jobs(state)``; repeated task ends go to ``skip``."""
    return _frame(*_task_columns(state, key, stage_jobs, skip))


def _task_columns(
    state: AppState, key: str, stage_jobs: dict[int, int], skip: Skip
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """``task_table``'s columns and float block, for ``_frame``: returned rather than framed
    here, so that no name of this function still holds a column while the frame takes it."""
    columns, floats = state.task_columns(skip, FLOAT_COLUMNS)
    n = len(columns["task_id"])

    def computed(name: str, values: np.ndarray) -> np.ndarray:
        """``values`` as column ``name``, in its place in the float block."""
        column = columns[name] = floats[:, FLOAT_COLUMNS.index(name)]
        column[:] = values
        return column

    stage_id, attempt, task_id = (
        columns["stage_id"],
        columns["stage_attempt_id"],
        columns["task_id"],
    )
    columns["job_id"] = _per_value(
        stage_id, lambda s: str(stage_jobs[s]) if s in stage_jobs else ""
    )
    codes = pd.factorize(stage_id * (int(attempt.max(initial=0)) + 1) + attempt)[0]
    first_rows = np.unique(codes, return_index=True)[1]
    stage_keys = np.array([f"{key}/{stage_id[r]}/{attempt[r]}" for r in first_rows], dtype=object)
    columns["stage_key"] = stage_keys[codes]
    columns["id"] = np.array([f"{key}/{t}" for t in task_id.tolist()], dtype=object)
    for name, value in (
        ("app_id", state.app_id),
        ("app_attempt_id", state.attempt_id),
        ("app_key", key),
    ):
        columns[name] = np.empty(n, dtype=object)
        columns[name].fill(value)  # one str object: np.full would make one per task
    finish, launch = columns["finish_time"], columns["launch_time"]
    duration = computed("duration", finish - launch)
    fetch = columns.pop("result_fetch_start")
    # "Getting Result Time" in the log is when the driver began fetching the result (epoch
    # ms, 0 if the result came with the status update), not a duration.
    with np.errstate(invalid="ignore"):
        getting = computed(
            "getting_result_time", np.where((fetch > 0) & ~np.isnan(finish), finish - fetch, 0.0)
        )
        delay = (
            duration
            - columns["executor_run_time"]
            - columns["deserialize_time"]
            - columns["result_serialization_time"]
            - getting
        )
        computed(
            "scheduler_delay",
            np.where(columns.pop("has_metrics") > 0, np.maximum(delay, 0), np.nan),
        )
    computed(
        "shuffle_read_bytes",
        columns["shuffle_remote_bytes_read"] + columns["shuffle_local_bytes_read"],
    )
    return columns, floats


def _frame(columns: dict[str, np.ndarray], floats: np.ndarray) -> pd.DataFrame:
    """The TASK_COLUMNS of ``columns`` as a DataFrame whose float block is ``floats`` (the
    FLOAT_COLUMNS, each contiguous in Fortran order: pandas takes it as it is, where
    stacking ~40 separate float arrays would copy them all, several times slower).

    It takes each other column out of ``columns`` as pandas copies it in, so that the column
    is let go once copied and the table's columns are not all held twice at the end (for
    150,000 tasks, the process holds 22 MB less once the table is built, 198 MB against
    220, and the build's peak is 5 MB lower)."""
    assert [name for name in TASK_COLUMNS if columns[name].dtype == np.float64] == list(
        FLOAT_COLUMNS
    ), "a float column outside the block"
    frame = pd.DataFrame(floats, columns=list(FLOAT_COLUMNS), copy=False)
    for i, name in enumerate(TASK_COLUMNS):
        if name not in frame.columns:
            frame.insert(i, name, columns.pop(name))
    return frame


def _timed_table(rows: list[dict], columns: list[str], state: AppState, key: str) -> pd.DataFrame:
    """The stage or job rows of one app as a table: with the app's identity columns, the
    submission and completion times as float epoch ms, and ``duration`` between them."""
    table = pd.DataFrame(rows, columns=columns)
    _identity(table, state, key)
    for column in ("submission_time", "completion_time"):
        table[column] = pd.to_numeric(table[column]).astype(float)
    table["duration"] = table["completion_time"] - table["submission_time"]
    return table


def stage_table(
    state: AppState, key: str, jobs_ended: set[int], stage_jobs: dict[int, int]
) -> pd.DataFrame:
    """One row per stage attempt, submitted or only announced by a job (then PENDING, or
    SKIPPED once every job that listed it has ended, as in the history server).
    ``stage_jobs`` is ``_stage_jobs(state)``."""
    listing_jobs: dict[int, list[int]] = {}
    for job_id, job in state.jobs.items():
        for stage_id in job["stage_ids"]:
            listing_jobs.setdefault(stage_id, []).append(job_id)
    rows = []
    for (stage_id, attempt), stage in sorted(state.stages.items()):
        if stage["completed"]:
            status = "FAILED" if stage.get("failure_reason") else "COMPLETE"
        elif stage["submitted"]:
            status = "ACTIVE"
        elif all(j in jobs_ended for j in listing_jobs.get(stage_id, [])):
            status = "SKIPPED"
        else:
            status = "PENDING"
        rows.append(
            {
                "id": f"{key}/{stage_id}/{attempt}",
                "stage_id": stage_id,
                "stage_attempt_id": attempt,
                "job_id": str(stage_jobs.get(stage_id, "")),
                "name": stage["name"],
                "status": status,
                "num_tasks": stage["num_tasks"],
                "submission_time": stage["submission_time"] if stage["submitted"] else None,
                "completion_time": stage["completion_time"] if stage["completed"] else None,
                "failure_reason": stage.get("failure_reason") or "",
                "parent_ids": ",".join(map(str, stage["parent_ids"])),
                "details": stage.get("details") or "",
            }
        )
    return _timed_table(
        rows,
        [
            "id",
            "stage_id",
            "stage_attempt_id",
            "job_id",
            "name",
            "status",
            "num_tasks",
            "submission_time",
            "completion_time",
            "failure_reason",
            "parent_ids",
            "details",
        ],
        state,
        key,
    )


JOB_STATUS = {"JobSucceeded": "SUCCEEDED", "JobFailed": "FAILED"}


def job_table(state: AppState, key: str) -> pd.DataFrame:
    """One row per job. ``num_tasks`` counts, as Spark does, the tasks of the stages that had
    not already completed when the job started (stages reused from earlier jobs are skipped)."""
    rows = []
    for job_id, job in sorted(state.jobs.items()):
        result = job.get("result")
        rows.append(
            {
                "id": f"{key}/{job_id}",
                "job_id": str(job_id),
                "name": job["name"],
                "description": job["description"],
                "job_group": job["job_group"],
                "status": JOB_STATUS.get(result, "UNKNOWN") if result is not None else "RUNNING",
                "submission_time": job["submission_time"],
                "completion_time": job.get("completion_time"),
                "failure_reason": job["failure_reason"],
                "stage_ids": ",".join(map(str, job["stage_ids"])),
                "num_stages": len(job["stage_ids"]),
                "num_tasks": sum(
                    i["num_tasks"] for i in job["stage_infos"] if i["completion_time"] is None
                ),
                **_plan_columns(state, job.get("sql_execution", "")),
            }
        )
    return _timed_table(
        rows,
        [
            "id",
            "job_id",
            "name",
            "description",
            "job_group",
            "status",
            "submission_time",
            "completion_time",
            "failure_reason",
            "stage_ids",
            "num_stages",
            "num_tasks",
            "plan_engine",
            "plan_input",
        ],
        state,
        key,
    )


def _plan_columns(state: AppState, execution: str) -> dict[str, str]:
    """``plan_engine`` and ``plan_input`` of a job of SQL execution ``execution`` (its plan's
    engine and first input, eventlog.sqlplan); "" for a job of no logged plan (an RDD job)."""
    try:
        engine, scanned = state.plans.get(int(execution), ("", ""))
    except ValueError:
        engine, scanned = "", ""
    return {"plan_engine": engine, "plan_input": scanned}


DATABRICKS_RUNTIME_PROPERTIES = (
    "spark.databricks.clusterUsageTags.effectiveSparkVersion",
    "spark.databricks.clusterUsageTags.sparkVersion",
)
"""Where a Databricks cluster names its runtime (``11.3.x-scala2.12``, ``13.3.x-aarch64-photon-scala2.12``):
the one it ran, then the one it was set up with."""
DATABRICKS_RUNTIME = re.compile(r"(\d+\.\d+)\.x-")
DATABRICKS_SPARK = {
    "10.4": "3.2",
    "11.3": "3.3",
    "12.2": "3.3",
    "13.3": "3.4",
    "14.3": "3.5",
    "15.4": "3.5",
}
"""The Spark of each long-term-support Databricks runtime, for a log that does not say."""


def spark_version(state: AppState) -> str:
    """The Spark that wrote the log, as SparkListenerLogStart says; Databricks writes none,
    so there ``Databricks 11.3 (Spark 3.3.0)``: the runtime from the cluster's properties, the
    Spark version from Databricks' own log-start event, else the runtime's known Spark.
    '' when nothing says (Spark < 1.3)."""
    if state.spark_version:
        return state.spark_version
    names = (state.properties.get(key, "") for key in DATABRICKS_RUNTIME_PROPERTIES)
    runtime = next((m.group(1) for name in names if (m := DATABRICKS_RUNTIME.match(name))), "")
    spark = state.databricks_spark_version or DATABRICKS_SPARK.get(runtime, "")
    if not runtime:
        return spark
    return f"Databricks {runtime} (Spark {spark})" if spark else f"Databricks {runtime}"


def app_row(state: AppState, key: str) -> dict:
    duration = state.end_time - state.start_time if state.end_time and state.start_time else None
    return {
        "id": key,
        "app_id": state.app_id,
        "app_attempt_id": state.attempt_id,
        "app_key": key,
        "name": state.name,
        "user": state.user,
        "command": state.command,
        "spark_version": spark_version(state),
        "start_time": state.start_time,
        "end_time": state.end_time,
        "duration": duration,
        "completed": "T" if state.end_time else "F",
        "source": state.source,
    }


EXECUTOR_COLUMNS = (
    "id",
    "app_id",
    "app_attempt_id",
    "app_key",
    "executor_id",
    "host",
    "port",
    "total_cores",
    "max_memory",
    "add_time",
    "remove_time",
    "remove_reason",
)
"""An executor's row: where it ran (its block manager's host and port), its cores and
storage memory, when it was added and removed, and why. The driver has a row for its block
manager, without cores where no ExecutorAdded names it (a cluster's driver)."""


def executor_table(states: list[AppState]) -> pd.DataFrame:
    """One row per executor of each application attempt, in the order the log names them."""
    rows = [
        {
            "id": f"{key}/{executor_id}",
            "app_id": state.app_id,
            "app_attempt_id": state.attempt_id,
            "app_key": key,
            "executor_id": executor_id,
            **executor,
        }
        for state, key in zip(states, app_keys(states))
        for executor_id, executor in state.executors.items()
    ]
    table = pd.DataFrame(rows, columns=list(EXECUTOR_COLUMNS))
    for column in ("port", "total_cores", "max_memory", "add_time", "remove_time"):
        table[column] = pd.to_numeric(table[column]).astype(float)
    unique_ids(table)
    return table


def build_tables(
    states: list[AppState], skip: Skip
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(tasks, stages, jobs, apps) of all the loaded application attempts; duplicate and
    conflicting task ends go to ``skip``. Every table's ids are unique (``unique_ids``)."""
    keys = app_keys(states)
    tasks, stages, jobs, apps = [], [], [], []
    for state, key in zip(states, keys):
        ended = {j for j, job in state.jobs.items() if job.get("result") is not None}
        stage_jobs = _stage_jobs(state)
        tasks.append(task_table(state, key, stage_jobs, skip))
        stages.append(stage_table(state, key, ended, stage_jobs))
        jobs.append(job_table(state, key))
        apps.append(app_row(state, key))
    app_frame = pd.DataFrame(apps, columns=list(app_row(AppState(""), "")))
    for column in ("start_time", "end_time", "duration"):
        app_frame[column] = pd.to_numeric(app_frame[column]).astype(float)
    tables = _concat(tasks, TASK_COLUMNS), _concat(stages), _concat(jobs), app_frame
    for table in tables:
        unique_ids(table)
    return tables


def unique_ids(table: pd.DataFrame) -> None:
    """The invariant every layer above relies on (pandas fails far away on a repeated index):
    one row per id. The reader makes it so by construction (one row per task attempt, stage
    attempt, job and application attempt); a repeat is a bug in perfx, not in the log."""
    if "id" in table.columns and not table["id"].is_unique:
        repeated = table["id"][table["id"].duplicated()].iloc[0]
        raise AssertionError(f"id {repeated!r} names several rows of one table")


def _concat(frames: list[pd.DataFrame], columns: tuple[str, ...] = ()) -> pd.DataFrame:
    frames = [f for f in frames if len(f)] or frames[:1]
    if not frames:
        return pd.DataFrame(columns=list(columns))
    # every frame here has a fresh RangeIndex: a single one is returned as is, not copied
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
