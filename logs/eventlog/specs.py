"""Feature specs of the Spark stage, job and app tables' own fields, and of the task columns
the event-log reader adds to ``SPARK_TASK`` (aggregates of task metrics are registered by
logs.aggregate, configuration by logs.config)."""

from __future__ import annotations

from ..feature_tables import COMMON, SPARK_TASK
from ..registry import C, FeatureSpec, N, spec

_TASK = {s.name: s for s in SPARK_TASK}
"""The task specs the other tables share (app and stage identity), defined once in logs.registry."""

APP_KEY = spec(
    "app_key",
    C,
    "none",
    "identity",
    "app_id, or app_id/attempt when several attempts of the app are loaded.",
    "",
)

APP_IDENTITY = [_TASK["app_id"], _TASK["app_attempt_id"], APP_KEY]

SPARK_TASK_EXTRA = [
    APP_KEY,
    spec(
        "failure",
        C,
        "none",
        "outcome",
        "Why the attempt did not succeed (exception, lost executor, ...), '' if it did.",
        "Task End Reason",
    ),
    spec(
        "resubmitted",
        N,
        "count",
        "outcome",
        "How often Spark resubmitted this finished map task because its output was lost.",
        "Task End Reason/Resubmitted",
    ),
]


def _task_outcomes(completed: str, failed: str) -> list[FeatureSpec]:
    """A stage's or job's tasks counted by how they ended, named as Spark's REST API names
    them (a stage's successes are ``num_complete_tasks``, a job's ``num_completed_tasks``);
    ``failed`` says what counts as failed."""
    return [
        spec(
            "num_active_tasks", N, "count", "outcome", "Tasks started and not ended in the log.", ""
        ),
        spec(completed, N, "count", "outcome", "Task ends with reason Success.", ""),
        spec("num_failed_tasks", N, "count", "outcome", failed, ""),
        spec(
            "num_killed_tasks",
            N,
            "count",
            "outcome",
            "Task ends with reason TaskKilled or TaskCommitDenied.",
            "",
        ),
    ]


SPARK_STAGE = (
    COMMON
    + APP_IDENTITY
    + [
        _TASK["stage_id"],
        _TASK["stage_attempt_id"],
        spec("job_id", C, "none", "identity", "First job that lists the stage.", "Job ID", "jobID"),
        spec("name", C, "none", "feature", "Stage name (call site).", "Stage Name"),
        spec("status", C, "none", "outcome", "COMPLETE, FAILED, ACTIVE, PENDING or SKIPPED.", ""),
        spec(
            "num_tasks",
            N,
            "count",
            "feature",
            "Tasks (partitions) the stage attempt was to run.",
            "Number of Tasks",
        ),
        spec(
            "submission_time",
            N,
            "ms",
            "identity",
            "Epoch ms the stage attempt was submitted.",
            "Submission Time",
        ),
        spec(
            "completion_time",
            N,
            "ms",
            "outcome",
            "Epoch ms the stage attempt completed.",
            "Completion Time",
        ),
        spec(
            "first_task_launched_time", N, "ms", "identity", "Epoch ms its first task launched.", ""
        ),
        spec(
            "failure_reason",
            C,
            "none",
            "outcome",
            "Why the stage attempt failed, '' if it did not.",
            "Failure Reason",
        ),
        spec(
            "parent_ids",
            C,
            "none",
            "identity",
            "Comma-separated ids of the parent stages.",
            "Parent IDs",
        ),
        spec("details", C, "none", "identity", "Call stack of the stage's creation.", "Details"),
        *_task_outcomes(
            "num_complete_tasks",
            "Task ends that are neither Success nor killed (Resubmitted counts, as in Spark).",
        ),
        spec(
            "num_completed_indices",
            N,
            "count",
            "outcome",
            "Distinct partitions with a successful task.",
            "",
        ),
    ]
)

SPARK_JOB = (
    COMMON
    + APP_IDENTITY
    + [
        spec("job_id", C, "none", "identity", "Job id within the app.", "Job ID", "jobID"),
        spec("name", C, "none", "feature", "Job name: the name of its last stage.", ""),
        spec(
            "description",
            C,
            "none",
            "feature",
            "spark.job.description, '' if unset.",
            "Properties/spark.job.description",
        ),
        spec(
            "job_group",
            C,
            "none",
            "feature",
            "spark.jobGroup.id, '' if unset.",
            "Properties/spark.jobGroup.id",
        ),
        spec(
            "status",
            C,
            "none",
            "outcome",
            "SUCCEEDED, FAILED, RUNNING (no end event) or UNKNOWN.",
            "Job Result",
        ),
        spec(
            "submission_time",
            N,
            "ms",
            "identity",
            "Epoch ms the job was submitted.",
            "Submission Time",
        ),
        spec("completion_time", N, "ms", "outcome", "Epoch ms the job ended.", "Completion Time"),
        spec(
            "failure_reason",
            C,
            "none",
            "outcome",
            "The exception that failed the job, '' if it did not.",
            "Job Result/Exception",
        ),
        spec(
            "stage_ids",
            C,
            "none",
            "identity",
            "Comma-separated ids of the job's stages.",
            "Stage IDs",
        ),
        spec("num_stages", N, "count", "feature", "Stages the job lists.", ""),
        spec(
            "plan_engine",
            C,
            "none",
            "feature",
            "What ran its SQL plan's records: python (a Python UDF or pandas function in it), "
            "gpu (RAPIDS operators) or jvm; '' for a job of no SQL plan (an RDD job).",
            "SparkListenerSQLExecutionStart/physicalPlanDescription",
        ),
        spec(
            "plan_input",
            C,
            "none",
            "identity",
            "The first location its SQL plan scans, '' if none.",
            "SparkListenerSQLExecutionStart/physicalPlanDescription",
        ),
        spec(
            "num_tasks",
            N,
            "count",
            "feature",
            "Tasks of the job's stages not already computed when it started.",
            "",
        ),
        *_task_outcomes("num_completed_tasks", "Task ends that are neither Success nor killed."),
        spec(
            "num_skipped_tasks",
            N,
            "count",
            "feature",
            "Tasks of stages the job did not have to run.",
            "",
        ),
        spec(
            "num_completed_indices",
            N,
            "count",
            "outcome",
            "Distinct (stage, partition) pairs with a successful task.",
            "",
        ),
        spec("num_completed_stages", N, "count", "outcome", "Distinct stages that completed.", ""),
        spec(
            "num_skipped_stages", N, "count", "feature", "Stages the job did not have to run.", ""
        ),
        spec("num_failed_stages", N, "count", "outcome", "Stage attempts that failed.", ""),
        spec(
            "num_active_stages",
            N,
            "count",
            "outcome",
            "Stage attempts submitted and not completed.",
            "",
        ),
    ]
)

SPARK_APP = (
    COMMON
    + APP_IDENTITY
    + [
        spec("name", C, "none", "feature", "Application name.", "App Name"),
        spec("user", C, "none", "feature", "User who ran the application.", "User"),
        spec(
            "command",
            C,
            "none",
            "identity",
            "The driver's command line: for spark-submit, the program and its arguments.",
            "Environment Update/System Properties/sun.java.command",
        ),
        spec(
            "spark_version",
            C,
            "none",
            "feature",
            "Spark version that wrote the log ('' for Spark < 1.3); "
            "'Databricks 11.3 (Spark 3.3.0)' for a Databricks runtime's, which has no LogStart.",
            "LogStart, DBCEventLoggingListenerMetadata/Spark Version, clusterUsageTags.sparkVersion",
        ),
        spec("start_time", N, "ms", "identity", "Epoch ms the application started.", "Timestamp"),
        spec(
            "end_time",
            N,
            "ms",
            "outcome",
            "Epoch ms the application ended (missing if it never did).",
            "Timestamp",
        ),
        spec("completed", C, "none", "outcome", "T if the log has an ApplicationEnd event.", ""),
        spec("source", C, "none", "identity", "The file or directory the log was read from.", ""),
        spec("num_jobs", N, "count", "feature", "Jobs the application ran.", ""),
        spec("num_stages", N, "count", "feature", "Stage attempts the application ran.", ""),
    ]
)
