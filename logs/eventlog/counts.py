"""The history server's task and stage counters for stages and jobs, from the tables
(what each task end counts for: ``logs.history.task_end_counts``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..history import task_end_counts

STAGE_TASK_COUNTERS = {
    "active": "num_active_tasks",
    "completed": "num_complete_tasks",
    "failed": "num_failed_tasks",
    "killed": "num_killed_tasks",
}
"""``task_end_counts`` counter -> its column in the stage table."""
JOB_TASK_COUNTERS = STAGE_TASK_COUNTERS | {"completed": "num_completed_tasks"}
"""The same in the job table (the REST API spells one of them differently there)."""


def _task_counters(tasks: pd.DataFrame, keys: np.ndarray, names: dict[str, str]) -> pd.DataFrame:
    """The four task counters of each distinct key (one key per task), indexed by key, as the
    columns ``names`` gives: ``np.bincount`` over the keys' codes rather than a groupby."""
    codes, uniques = pd.factorize(keys)
    counts = {
        names[name]: np.bincount(codes, weights=flag, minlength=len(uniques)).astype(np.int64)
        for name, flag in task_end_counts(tasks).items()
    }
    return pd.DataFrame(counts, index=uniques)


def _distinct_successes(tasks: pd.DataFrame, keys: np.ndarray, *columns: str) -> pd.Series:
    """Per key, the distinct values (combinations) of ``columns`` among successful tasks."""
    succeeded = tasks["end_reason"].to_numpy() == "Success"
    frame = pd.DataFrame(
        {"key": keys[succeeded], **{c: tasks[c].to_numpy()[succeeded] for c in columns}}
    )
    return frame.drop_duplicates().groupby("key").size()


def add_stage_counts(stages: pd.DataFrame, tasks: pd.DataFrame) -> pd.DataFrame:
    """Task counters, completed partitions and first launch time of each stage attempt."""
    keys = tasks["stage_key"].to_numpy()
    counts = _task_counters(tasks, keys, STAGE_TASK_COUNTERS)
    counts["num_completed_indices"] = _distinct_successes(tasks, keys, "task_index")
    counts["first_task_launched_time"] = tasks["launch_time"].groupby(keys).min().astype(float)
    counts = counts.reindex(stages["id"].to_numpy())
    counts.index = stages.index
    for column in (*STAGE_TASK_COUNTERS.values(), "num_completed_indices"):
        stages[column] = counts[column].fillna(0).astype(np.int64)
    stages["first_task_launched_time"] = counts["first_task_launched_time"]
    return stages


def add_job_counts(
    jobs: pd.DataFrame, stages: pd.DataFrame, tasks: pd.DataFrame, job_keys: np.ndarray
) -> pd.DataFrame:
    """Task and stage counters of each job (``job_keys``: the id of each task's job): tasks
    count for the first job listing their stage; a stage counts for every job that lists it
    (completed and skipped stages by id, failed stage attempts one by one), as in the history
    server."""
    task_counts = _task_counters(tasks, job_keys, JOB_TASK_COUNTERS)
    task_counts["num_completed_indices"] = _distinct_successes(
        tasks, job_keys, "stage_id", "task_index"
    )
    task_counts = task_counts.reindex(jobs["id"].to_numpy()).fillna(0).astype(np.int64)
    task_counts.index = jobs.index
    jobs = pd.concat([jobs, task_counts], axis=1)

    membership = (
        jobs[["id", "app_key", "stage_ids"]]
        .assign(stage_id=jobs["stage_ids"].str.split(","))
        .explode("stage_id")
    )
    membership = membership[membership["stage_id"].fillna("") != ""]
    membership["stage_id"] = membership["stage_id"].astype(np.int64)
    per_stage = stages.merge(
        membership[["id", "app_key", "stage_id"]].rename(columns={"id": "job_key"}),
        on=["app_key", "stage_id"],
    )
    status = per_stage["status"]
    stage_counts = (
        pd.DataFrame(
            {
                "num_completed_stages": per_stage["stage_id"].where(status == "COMPLETE"),
                "num_skipped_stages": per_stage["stage_id"].where(status == "SKIPPED"),
                "num_failed_stages": (status == "FAILED").astype(np.int64),
                "num_active_stages": (status == "ACTIVE").astype(np.int64),
                "num_skipped_tasks": per_stage["num_tasks"].where(status == "SKIPPED", 0),
                "job_key": per_stage["job_key"],
            }
        )
        .groupby("job_key")
        .agg(
            {
                "num_completed_stages": "nunique",
                "num_skipped_stages": "nunique",
                "num_failed_stages": "sum",
                "num_active_stages": "sum",
                "num_skipped_tasks": "sum",
            }
        )
    )
    stage_counts = stage_counts.reindex(jobs["id"].to_numpy()).fillna(0).astype(np.int64)
    stage_counts.index = jobs.index
    return pd.concat([jobs, stage_counts], axis=1)


def add_app_counts(apps: pd.DataFrame, jobs: pd.DataFrame, stages: pd.DataFrame) -> pd.DataFrame:
    apps["num_jobs"] = apps["id"].map(jobs.groupby("app_key").size()).fillna(0).astype(np.int64)
    submitted = stages[~stages["status"].isin(("PENDING", "SKIPPED"))]
    apps["num_stages"] = (
        apps["id"].map(submitted.groupby("app_key").size()).fillna(0).astype(np.int64)
    )
    return apps
