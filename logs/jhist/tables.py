"""Job histories -> the canonical ``job`` and ``task`` tables MapReduce logs have, with their
feature specs.

Columns follow the tabular/EC2-style MapReduce logs (``task_type`` MAP/REDUCE, ``host``,
``tracker_name``, ``launch_time``/``finish_time`` in epoch ms, ``input_size``, ``shuffle_time``,
``sort_time``, Hadoop counters in snake_case) so that the same queries work on both.

A task's row holds one attempt — the successful one, else the one it failed on, else the last
logged — because the duration to explain is that attempt's run, not the time the task spent
waiting or being retried; the other attempts are counted (``failed_attempts``,
``killed_attempts``). A task's status uses the canonical task vocabulary (Hadoop's SUCCEEDED
is written SUCCESS, as for Spark tasks), so every analysis that looks at successful tasks
sees MapReduce ones too. Jobs keep Hadoop's own summary (``finished_reduces`` from
JOB_FINISHED) beside the aggregates of the tasks actually logged (``task_count``): when a
file disagrees with itself, both are shown, as Hadoop's history server does.
"""

from __future__ import annotations

import math

import pandas as pd

from ..aggregate import add_task_aggregates, aggregate_specs
from ..column_names import infer_unit, is_input_volume, snake_case
from ..derive import add_host_load
from ..feature_tables import COMMON, TASK_HOST_LOAD
from ..registry import C, FeatureRegistry, FeatureSpec, N, Role, Unit, spec
from .events import Attempt, Counters, JobHistory, Task

JHIST_TASK = COMMON + [
    spec("job_id", C, "none", "identity", "Hadoop job id.", "TaskStarted/taskid", "jobID", "jobid"),
    spec(
        "task_type",
        C,
        "none",
        "feature",
        "MAP or REDUCE (JOB_SETUP / JOB_CLEANUP where logged).",
        "TaskStarted/taskType",
        context=True,
    ),
    spec(
        "stage_key",
        C,
        "none",
        "identity",
        "The job's map or reduce tasks: the MapReduce counterpart of a Spark "
        "stage (job_id/task_type, e.g. job_1329348432655_0001/MAP), where a task's reference and stragglers are "
        "looked for.",
        "derived",
        inputs=("job_id", "task_type"),
        context=True,
    ),
    spec(
        "status",
        C,
        "none",
        "outcome",
        "SUCCESS, FAILED or KILLED as the task ended (Hadoop's SUCCEEDED is "
        "written SUCCESS, as for Spark tasks); UNKNOWN without an end event.",
        "TaskFinished, TaskFailed/status",
    ),
    spec(
        "attempt_id",
        C,
        "none",
        "identity",
        "The attempt the row describes: the successful one, else the one "
        "the task failed on, else the last logged ('' if none ran).",
        "TaskAttemptStarted/attemptId",
    ),
    spec(
        "host",
        C,
        "none",
        "feature",
        "Host (NodeManager) the attempt ran on.",
        "*AttemptFinished/hostname",
        "hostname",
        context=True,
    ),
    spec(
        "tracker_name",
        C,
        "none",
        "feature",
        "Tracker (NodeManager) that started the attempt.",
        "TaskAttemptStarted/trackerName",
        "tracker",
    ),
    spec(
        "rack",
        C,
        "none",
        "feature",
        "Rack of the attempt's host.",
        "*AttemptFinished/rackname",
        "rackname",
    ),
    spec(
        "locality",
        C,
        "none",
        "feature",
        "NODE_LOCAL, RACK_LOCAL or OFF_SWITCH ('' before Hadoop 2.4).",
        "TaskAttemptStarted/locality",
    ),
    spec(
        "speculative",
        C,
        "none",
        "feature",
        "T if the attempt was a speculative copy ('' before Hadoop 2.4).",
        "TaskAttemptStarted/avataar",
    ),
    spec(
        "scheduled_time",
        N,
        "ms",
        "identity",
        "Epoch ms the task was scheduled.",
        "TaskStarted/startTime",
    ),
    spec(
        "launch_time",
        N,
        "ms",
        "identity",
        "Epoch ms the attempt started.",
        "TaskAttemptStarted/startTime",
    ),
    spec(
        "finish_time",
        N,
        "ms",
        "outcome",
        "Epoch ms the attempt ended.",
        "*AttemptFinished/finishTime",
    ),
    spec(
        "wait_time",
        N,
        "ms",
        "feature",
        "launch_time - scheduled_time: waiting for a container, plus the "
        "earlier attempts when the task was retried.",
        "derived",
        inputs=("launch_time", "scheduled_time"),
        accounts=("scheduler_delay",),
    ),
    spec(
        "failed_attempts",
        N,
        "count",
        "feature",
        "Attempts of the task that failed.",
        "*_ATTEMPT_FAILED",
    ),
    spec(
        "killed_attempts",
        N,
        "count",
        "feature",
        "Attempts of the task that were killed (lost speculation, preemption, a failing job).",
        "*_ATTEMPT_KILLED",
    ),
    spec(
        "input_size",
        N,
        "bytes",
        "feature",
        "Bytes the task consumed: a map's input-format bytes read, else "
        "its file-system bytes read (HDFS, then S3A, then local files); a reduce's shuffle bytes.",
        "BYTES_READ, HDFS_BYTES_READ, S3A_BYTES_READ, FILE_BYTES_READ, REDUCE_SHUFFLE_BYTES",
        "inputsize",
        accounts=("volume",),
        context=True,
    ),
    spec(
        "map_finished",
        N,
        "ms",
        "outcome",
        "Epoch ms a map attempt's map phase ended (its sort and spill followed).",
        "MapAttemptFinished/mapFinishTime",
    ),
    spec(
        "shuffle_finished",
        N,
        "ms",
        "outcome",
        "Epoch ms a reduce attempt's shuffle ended.",
        "ReduceAttemptFinished/shuffleFinishTime",
    ),
    spec(
        "sort_finished",
        N,
        "ms",
        "outcome",
        "Epoch ms a reduce attempt's merge (sort) ended.",
        "ReduceAttemptFinished/sortFinishTime",
    ),
    spec(
        "shuffle_time",
        N,
        "ms",
        "feature",
        "shuffle_finished - launch_time: a reduce fetching map outputs.",
        "derived",
        inputs=("shuffle_finished", "launch_time"),
        time_part=True,
        accounts=("shuffle_read",),
    ),
    spec(
        "sort_time",
        N,
        "ms",
        "feature",
        "sort_finished - shuffle_finished: a reduce merging its inputs (Hadoop's merge time).",
        "derived",
        inputs=("sort_finished", "shuffle_finished"),
        time_part=True,
        accounts=("cost",),
    ),
    spec(
        "failure",
        C,
        "none",
        "outcome",
        "First line of the task's error, '' if it succeeded.",
        "TaskFailed/error",
    ),
]
"""The task table's fixed columns; the counters of the row's attempt follow them."""

JHIST_JOB = COMMON + [
    spec(
        "name",
        C,
        "none",
        "feature",
        "Job name (mapreduce.job.name).",
        "JobSubmitted/jobName",
        "jobname",
    ),
    spec("user", C, "none", "feature", "User who submitted the job.", "JobSubmitted/userName"),
    spec(
        "queue",
        C,
        "none",
        "feature",
        "Scheduler queue the job ran in.",
        "JobSubmitted, JobQueueChange/jobQueueName",
    ),
    spec(
        "status",
        C,
        "none",
        "outcome",
        "SUCCEEDED, FAILED, KILLED or ERROR; RUNNING without an end event.",
        "JobFinished, JobUnsuccessfulCompletion/jobStatus",
    ),
    spec(
        "submit_time",
        N,
        "ms",
        "identity",
        "Epoch ms the job was submitted.",
        "JobSubmitted/submitTime",
    ),
    spec(
        "launch_time",
        N,
        "ms",
        "identity",
        "Epoch ms the job was initialised (its tasks could start).",
        "JobInited/launchTime",
    ),
    spec("finish_time", N, "ms", "outcome", "Epoch ms the job ended.", "JobFinished/finishTime"),
    spec(
        "num_map_tasks",
        N,
        "count",
        "feature",
        "Map tasks the job was split into.",
        "JobInited/totalMaps",
    ),
    spec(
        "num_reduce_tasks",
        N,
        "count",
        "feature",
        "Reduce tasks the job asked for.",
        "JobInited/totalReduces",
    ),
    spec(
        "finished_maps",
        N,
        "count",
        "outcome",
        "Maps that succeeded, as the job's end event says.",
        "JobFinished/finishedMaps",
    ),
    spec(
        "finished_reduces",
        N,
        "count",
        "outcome",
        "Reduces that succeeded, as the job's end event says.",
        "JobFinished/finishedReduces",
    ),
    spec(
        "failed_maps",
        N,
        "count",
        "outcome",
        "Maps that failed, as JOB_FINISHED says.",
        "JobFinished/failedMaps",
    ),
    spec(
        "failed_reduces",
        N,
        "count",
        "outcome",
        "Reduces that failed, as JOB_FINISHED says.",
        "JobFinished/failedReduces",
    ),
    spec(
        "uberized",
        C,
        "none",
        "feature",
        "T if the job ran inside its ApplicationMaster's JVM.",
        "JobInited/uberized",
    ),
    spec(
        "am_attempts",
        N,
        "count",
        "feature",
        "ApplicationMaster attempts: more than 1 means it was restarted.",
        "AMStarted",
    ),
    spec(
        "failure_reason",
        C,
        "none",
        "outcome",
        "Diagnostics of a job that did not succeed, '' otherwise.",
        "JobUnsuccessfulCompletion/diagnostics",
    ),
    spec("source", C, "none", "identity", "The job history file the job was read from.", ""),
]
"""The job table's fixed columns; the job's total counters and its task aggregates follow."""

FRAMEWORK_GROUPS = frozenset(
    {
        "org.apache.hadoop.mapreduce.FileSystemCounter",
        "org.apache.hadoop.mapreduce.TaskCounter",
        "org.apache.hadoop.mapreduce.JobCounter",
        "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter",
        "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter",
    }
)
"""Hadoop's own counter groups, whose counter names are unique: their counters keep their
bare names (``HDFS_BYTES_READ`` -> ``hdfs_bytes_read``, as in tabular MapReduce logs); other
groups' (user counters, ``Shuffle Errors``) are prefixed with the group."""

CANONICAL_COUNTERS = {"GC_TIME_MILLIS": "gc_time"}
"""Counters that measure what perfx names in every format: the JVM's GC time is ``gc_time``
(where the blocked-time analysis looks for it); the Hadoop name stays an alias."""

COUNTED_GROUPS = FRAMEWORK_GROUPS | {"Shuffle Errors"}
"""Hadoop's groups whose counters count things unless their name says bytes or time."""

_FIXED = {s.name for s in JHIST_TASK + JHIST_JOB}

_FS = "org.apache.hadoop.mapreduce.FileSystemCounter"
MAP_INPUT = (
    ("org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter", "BYTES_READ"),
    (_FS, "HDFS_BYTES_READ"),
    (_FS, "S3A_BYTES_READ"),
    (_FS, "FILE_BYTES_READ"),
)
"""Where a map's ``input_size`` comes from, the first counter present: the bytes its input
format read (its splits, whatever the file system: HDFS, S3, local); else the bytes read from
HDFS (which also holds the split metadata: TeraGen's maps read 79 bytes of it and no input),
then S3A, then local files (which also count re-reading the map's own spills)."""
REDUCE_INPUT = (("org.apache.hadoop.mapreduce.TaskCounter", "REDUCE_SHUFFLE_BYTES"),)
"""Where a reduce's ``input_size`` comes from: the map output it fetched."""


def counter_column(group: str, name: str) -> str:
    """The column a counter becomes (see FRAMEWORK_GROUPS and CANONICAL_COUNTERS); a
    framework counter whose name is taken by a fixed column is prefixed like the others."""
    if group in FRAMEWORK_GROUPS:
        column = CANONICAL_COUNTERS.get(name) or snake_case(name)
        if column not in _FIXED:
            return column
    return f"{snake_case(group.rsplit('.', 1)[-1])}_{snake_case(name)}"


def _counter_unit(group: str, name: str, column: str) -> Unit:
    """ms for times (``*_MILLIS``, ``MILLIS_MAPS``); none for resource-times (``MB_MILLIS_MAPS``,
    ``VCORES_MILLIS_*``, ``SLOTS_MILLIS_*``); bytes by name; Hadoop's other counters count."""
    if name.startswith("MILLIS_") or name.endswith(("_MILLIS", "_MILLISECONDS")):
        return "ms"
    if "MILLIS" in name:
        return "none"
    unit = infer_unit(column)
    return "count" if unit == "none" and group in COUNTED_GROUPS else unit


def counter_spec(column: str, group: str, name: str, display: str, whose: str) -> FeatureSpec:
    """Counters are measurements, hence candidates, except the job's task-time totals
    (``MILLIS_MAPS``, ``SLOTS_MILLIS_REDUCES``, ...), which restate its tasks' durations."""
    role: Role = "outcome" if group.endswith(".JobCounter") and "MILLIS" in name else "feature"
    aliases = (
        (snake_case(name),) if column != snake_case(name) and group in FRAMEWORK_GROUPS else ()
    )
    volume = is_input_volume(snake_case(name))
    return spec(
        column,
        N,
        _counter_unit(group, name, column),
        role,
        f"Hadoop counter '{display}' {whose}.",
        f"{group}/{name}",
        *aliases,
        accounts=("gc",) if column == "gc_time" else ("volume",) if volume else (),
        time_part=column == "gc_time",
        context=volume,
    )


def _first_line(text: str) -> str:
    """The first line of a Hadoop error (TASK_FAILED joins its attempts' errors with ', ')."""
    return text.lstrip(", ").split("\n", 1)[0].strip()


def _row_attempt(task: Task) -> Attempt | None:
    """The attempt a task's row describes (see the module docstring), None if none ran."""
    attempts = task.attempts
    for wanted in (task.successful_attempt, task.failed_due_to):
        if wanted in attempts:
            return attempts[wanted]
    ordered = sorted(attempts.values(), key=_attempt_order)
    succeeded = [a for a in ordered if a.status == "SUCCEEDED"]
    if succeeded:
        return succeeded[-1]
    return ordered[-1] if ordered else None


def _attempt_order(attempt: Attempt) -> tuple[int, str]:
    """Attempts in the order they ran, by their id (``attempt_..._m_000003_1``: its last
    number), not by the order of the lines: a reordered history gives the same rows."""
    return len(attempt.attempt_id), attempt.attempt_id


def _counter_values(
    counters: Counters, history: JobHistory, columns: dict[str, FeatureSpec], whose: str
) -> dict:
    values = {}
    for (group, name), value in counters.items():
        column = counter_column(group, name)
        if column not in columns:
            columns[column] = counter_spec(
                column, group, name, history.counter_names[(group, name)], whose
            )
        values[column] = value
    return values


def _input_size(task_type: str, counters: Counters) -> float:
    """The task's input bytes: the first of its MAP_INPUT (REDUCE_INPUT) counters present."""
    wanted = REDUCE_INPUT if task_type == "REDUCE" else MAP_INPUT
    return next((counters[key] for key in wanted if key in counters), math.nan)


def _task_row(
    task: Task, job_id: str, history: JobHistory, columns: dict[str, FeatureSpec]
) -> dict:
    attempt = _row_attempt(task) or Attempt("")
    raw = attempt.counters or task.counters
    counters = _counter_values(
        raw,
        history,
        columns,
        "of the task's attempt (its total over the task when the attempt logged none)",
    )
    launch, finish = attempt.start_time, attempt.finish_time
    ends = [a.status for a in task.attempts.values()]
    row = {
        "id": task.task_id,
        "duration": finish - launch,
        "job_id": job_id,
        "task_type": task.task_type,
        "stage_key": f"{job_id}/{task.task_type}",
        "status": {"SUCCEEDED": "SUCCESS", "": "UNKNOWN"}.get(task.status, task.status),
        "attempt_id": attempt.attempt_id,
        "host": attempt.host or attempt.tracker_name,
        "tracker_name": attempt.tracker_name,
        "rack": attempt.rack,
        "locality": attempt.locality,
        "speculative": {"SPECULATIVE": "T", "VIRGIN": "F"}.get(attempt.avataar, ""),
        "scheduled_time": task.scheduled_time,
        "launch_time": launch,
        "finish_time": finish,
        "wait_time": launch - task.scheduled_time,
        "failed_attempts": ends.count("FAILED"),
        "killed_attempts": ends.count("KILLED"),
        "input_size": _input_size(task.task_type, raw),
        "map_finished": attempt.map_finish_time,
        "shuffle_finished": attempt.shuffle_finish_time,
        "sort_finished": attempt.sort_finish_time,
        "shuffle_time": attempt.shuffle_finish_time - launch,
        "sort_time": attempt.sort_finish_time - attempt.shuffle_finish_time,
        "failure": "" if task.status == "SUCCEEDED" else _first_line(task.error or attempt.error),
    }
    return row | counters


def _job_row(history: JobHistory, columns: dict[str, FeatureSpec]) -> dict:
    job = history.job
    row = {
        "status": "RUNNING",
        "name": "",
        "user": "",
        "queue": "",
        "uberized": "",
        "failure_reason": "",
        "am_attempts": 0,
        **job,
        "source": history.source,
    }
    row["duration"] = row.get("finish_time", math.nan) - row.get("submit_time", math.nan)
    return row | _counter_values(
        history.counters, history, columns, "of the job (its total over all tasks)"
    )


def _frame(
    rows: list[dict], fixed: list[FeatureSpec], counters: dict[str, FeatureSpec]
) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=[s.name for s in fixed] + list(counters))
    for name in counters:
        frame[name] = frame[name].astype(float)
    return frame


def build_tables(histories: list[JobHistory]) -> tuple[pd.DataFrame, pd.DataFrame, FeatureRegistry]:
    """(tasks, jobs, registry) of the jobs; every column registered with its spec."""
    task_counters: dict[str, FeatureSpec] = {}
    job_counters: dict[str, FeatureSpec] = {}
    # tasks by id, not by the order of the lines: the rows and the counter columns (in the
    # order met) are the same however a damaged history ordered its events
    task_rows = [
        _task_row(t, h.job["id"], h, task_counters)
        for h in histories
        for t in sorted(h.tasks.values(), key=lambda task: task.task_id)
    ]
    job_rows = [_job_row(h, job_counters) for h in histories]
    tasks = add_host_load(_frame(task_rows, JHIST_TASK, task_counters))
    jobs = add_task_aggregates(_frame(job_rows, JHIST_JOB, job_counters), tasks, "job_id")
    registry = FeatureRegistry()
    registry.register_all("task", JHIST_TASK + TASK_HOST_LOAD + list(task_counters.values()))
    registry.register_all("job", JHIST_JOB + list(job_counters.values()))
    registry.register_all(
        "job",
        aggregate_specs(registry.specs("task"), set(jobs.columns) - set(registry.names("job"))),
    )
    return tasks, jobs, registry
