"""The history server's task and stage counters for stages and jobs, from the tables.

Spark counts task *ends*: Success is completed; TaskKilled and TaskCommitDenied are killed;
anything else is failed, including the extra ``Resubmitted`` end of a map task whose output
was lost (which perfx keeps as a count on the task's row rather than as a second row).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

KILLED_REASONS = ("TaskKilled", "TaskCommitDenied")


def _task_flags(tasks: pd.DataFrame) -> pd.DataFrame:
    reason = tasks["end_reason"]
    ended = tasks["status"] != "UNKNOWN"
    completed = reason == "Success"
    killed = reason.isin(KILLED_REASONS)
    return pd.DataFrame({
        "num_active_tasks": (~ended).astype(np.int64),
        "num_complete_tasks": completed.astype(np.int64),
        "num_failed_tasks": (ended & ~completed & ~killed).astype(np.int64) + tasks["resubmitted"].astype(np.int64),
        "num_killed_tasks": killed.astype(np.int64),
    })


def add_stage_counts(stages: pd.DataFrame, tasks: pd.DataFrame) -> pd.DataFrame:
    """Task counters, completed partitions and first launch time of each stage attempt."""
    flags = _task_flags(tasks)
    flags["stage_key"] = tasks["stage_key"].to_numpy()
    counts = flags.groupby("stage_key").sum()
    succeeded = tasks[tasks["end_reason"] == "Success"]
    counts["num_completed_indices"] = succeeded.groupby("stage_key")["task_index"].nunique()
    counts["first_task_launched_time"] = tasks.groupby("stage_key")["launch_time"].min().astype(float)
    counts = counts.reindex(stages["id"].to_numpy())
    counts.index = stages.index
    for column in ("num_active_tasks", "num_complete_tasks", "num_failed_tasks", "num_killed_tasks", "num_completed_indices"):
        stages[column] = counts[column].fillna(0).astype(np.int64)
    stages["first_task_launched_time"] = counts["first_task_launched_time"]
    return stages


def add_job_counts(jobs: pd.DataFrame, stages: pd.DataFrame, tasks: pd.DataFrame) -> pd.DataFrame:
    """Task and stage counters of each job: tasks count for the first job listing their stage;
    a stage counts for every job that lists it (completed and skipped stages by id, failed
    stage attempts one by one), as in the history server."""
    flags = _task_flags(tasks)
    flags["job_key"] = (tasks["app_key"] + "/" + tasks["job_id"]).to_numpy()
    task_counts = flags.groupby("job_key").sum()
    task_counts.columns = ["num_active_tasks", "num_completed_tasks", "num_failed_tasks", "num_killed_tasks"]
    succeeded = tasks[tasks["end_reason"] == "Success"]
    task_counts["num_completed_indices"] = (
        succeeded.assign(job_key=succeeded["app_key"] + "/" + succeeded["job_id"])
        .drop_duplicates(["job_key", "stage_id", "task_index"])
        .groupby("job_key").size()
    )
    task_counts = task_counts.reindex(jobs["id"].to_numpy()).fillna(0).astype(np.int64)
    task_counts.index = jobs.index
    jobs = pd.concat([jobs, task_counts], axis=1)

    membership = jobs[["id", "app_key", "stage_ids"]].assign(stage_id=jobs["stage_ids"].str.split(",")).explode("stage_id")
    membership = membership[membership["stage_id"].fillna("") != ""]
    membership["stage_id"] = membership["stage_id"].astype(np.int64)
    per_stage = stages.merge(membership[["id", "app_key", "stage_id"]].rename(columns={"id": "job_key"}), on=["app_key", "stage_id"])
    status = per_stage["status"]
    stage_counts = pd.DataFrame({
        "num_completed_stages": per_stage["stage_id"].where(status == "COMPLETE"),
        "num_skipped_stages": per_stage["stage_id"].where(status == "SKIPPED"),
        "num_failed_stages": (status == "FAILED").astype(np.int64),
        "num_active_stages": (status == "ACTIVE").astype(np.int64),
        "num_skipped_tasks": per_stage["num_tasks"].where(status == "SKIPPED", 0),
        "job_key": per_stage["job_key"],
    }).groupby("job_key").agg({
        "num_completed_stages": "nunique", "num_skipped_stages": "nunique", "num_failed_stages": "sum",
        "num_active_stages": "sum", "num_skipped_tasks": "sum",
    })
    stage_counts = stage_counts.reindex(jobs["id"].to_numpy()).fillna(0).astype(np.int64)
    stage_counts.index = jobs.index
    return pd.concat([jobs, stage_counts], axis=1)


def add_app_counts(apps: pd.DataFrame, jobs: pd.DataFrame, stages: pd.DataFrame) -> pd.DataFrame:
    apps["num_jobs"] = apps["id"].map(jobs.groupby("app_key").size()).fillna(0).astype(np.int64)
    submitted = stages[~stages["status"].isin(("PENDING", "SKIPPED"))]
    apps["num_stages"] = apps["id"].map(submitted.groupby("app_key").size()).fillna(0).astype(np.int64)
    return apps
