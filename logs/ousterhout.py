"""Ousterhout's text "job logs" (Spark 0.8/0.9 ``JobLogger`` under Shark) as canonical tables.

These are the kind of traces the blocked-time paper (NSDI 2015) was built on, and the only
ones here with an instrumented input read time (``READ_BLOCKED_TIME``, in nanoseconds), so
``input_read_time`` is a task column only in logs read by this module.

Format (see ``ousterhout-traces/README.md``): header lines without a timestamp (the query's
SQL, ``STAGE_ID=n RDD_DEP=(..) STAGE_DEP=(..)``, ``STAGE_ID=n RESULT_STAGE|MAP_STAGE``, an
indented RDD tree) and event lines ``YYYY/MM/DD HH:MM:SS: KEY=VALUE ...``: job started /
``SUCCES`` (sic), stage submitted / completed, one line per task. Keys vary from file to file;
a task line needs at least TID, STAGE_ID, START_TIME and FINISH_TIME. An event line that
cannot be used is skipped and recorded in ``Log.skipped``.

Each file is one application (the job logger wrote one per SparkContext). Event timestamps
have whole seconds only, so stage and job bounds come from their tasks' epoch-ms times.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from .aggregate import add_task_aggregates, aggregate_specs
from .derive import add_task_features
from .eventlog.specs import SPARK_APP, SPARK_JOB, SPARK_STAGE, SPARK_TASK_EXTRA
from .feature_tables import SPARK_TASK
from .model import Log, SkippedLine
from .registry import FeatureRegistry, FeatureSpec, spec

_EVENT = re.compile(r"^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d): (.*)$")
_SIGNATURE = re.compile(rb"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d: (?:TASK_TYPE|JOB_ID|STAGE_ID)=", re.M)
_STAGE_HEADER = re.compile(r"^STAGE_ID=(\d+) RDD_DEP=\(?[\d,]*\)? STAGE_DEP=\(?([\d,]*)\)?\s*$")
_SNIFF_BYTES = 8192
_SPARK_CODECS = {".zstd", ".zst", ".lz4", ".snappy", ".lzf"}
_NS_PER_MS = 1e6

OUSTERHOUT_TASK = [
    spec(
        "input_read_time",
        "numeric",
        "ms",
        "feature",
        "Time blocked reading input (HDFS or cache); instrumented traces only (ns in the log).",
        "READ_BLOCKED_TIME",
    ),
    spec(
        "input_read_setup_time",
        "numeric",
        "ms",
        "feature",
        "Time opening the input before reading.",
        "READ_SETUP_TIME",
    ),
    spec(
        "input_read_method",
        "nominal",
        "none",
        "feature",
        "Where the input came from (HDFS, Memory).",
        "READ_METHOD",
    ),
    spec(
        "input_bytes_raw",
        "numeric",
        "bytes",
        "feature",
        "Input bytes as stored (compressed) on disk.",
        "INPUT_BYTES_RAW",
    ),
    spec(
        "shuffle_remote_fetch_time",
        "numeric",
        "ms",
        "feature",
        "Time the fetcher threads spent fetching remote shuffle blocks (overlaps computation).",
        "REMOTE_FETCH_TIME",
    ),
]
"""Task columns only these traces have (the rest are SPARK_TASK's)."""

# log key -> (column, scale): values are multiplied by scale (ns -> ms where the log has ns).
_TASK_NUMBERS = {
    "TID": ("task_id", 1.0),
    "STAGE_ID": ("stage_id", 1.0),
    "START_TIME": ("launch_time", 1.0),
    "FINISH_TIME": ("finish_time", 1.0),
    "EXECUTOR_RUN_TIME": ("executor_run_time", 1.0),
    "GC_TIME": ("gc_time", 1.0),
    "EXECUTOR_DESERIALIZE_TIME": ("deserialize_time", 1.0),
    "READ_SETUP_TIME": ("input_read_setup_time", 1.0),
    "READ_BLOCKED_TIME": ("input_read_time", 1 / _NS_PER_MS),
    "INPUT_BYTES": ("input_bytes", 1.0),
    "INPUT_BYTES_RAW": ("input_bytes_raw", 1.0),
    "SHUFFLE_BYTES_WRITTEN": ("shuffle_write_bytes", 1.0),
    "SHUFFLE_WRITE_TIME": ("shuffle_write_time", 1 / _NS_PER_MS),
    "REMOTE_FETCH_WAIT_TIME": ("shuffle_fetch_wait_time", 1.0),
    "REMOTE_FETCH_TIME": ("shuffle_remote_fetch_time", 1.0),
    "REMOTE_BYTES_READ": ("shuffle_remote_bytes_read", 1.0),
    "LOCAL_READ_BYTES": ("shuffle_local_bytes_read", 1.0),
    "BLOCK_FETCHED_REMOTE": ("shuffle_remote_blocks_fetched", 1.0),
    "BLOCK_FETCHED_LOCAL": ("shuffle_local_blocks_fetched", 1.0),
}
_TASK_TEXT = {
    "EXECUTOR_ID": "executor_id",
    "HOST": "host",
    "LOCALITY": "locality",
    "READ_METHOD": "input_read_method",
    "JOB_ID": "job_id",
}
_REQUIRED = ("TID", "STAGE_ID", "START_TIME", "FINISH_TIME")
_TASK_TYPES = {"RESULT_TASK": "ResultTask", "SHUFFLE_MAP_TASK": "ShuffleMapTask"}
_COUNTERS = (
    "input_bytes",
    "shuffle_write_bytes",
    "shuffle_remote_bytes_read",
    "shuffle_local_bytes_read",
    "shuffle_remote_blocks_fetched",
    "shuffle_local_blocks_fetched",
)
"""Sizes a task that does not log them did not have (0), unlike times, which stay unknown."""


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(_SNIFF_BYTES)
    except OSError:
        return b""


def _sniff(path: Path) -> bool:
    return _SIGNATURE.search(_head(path)) is not None


def _spark_event_log(path: Path) -> bool:
    """JSON lines, a compressed event log, or a part of a rolling one."""
    return (
        path.suffix in _SPARK_CODECS
        or path.parent.name.startswith("eventlog_v2_")
        or _head(path).lstrip().startswith(b"{")
    )


def job_log_files(path: Path) -> list[Path]:
    """The job logs at ``path``: the file itself, or those under a folder (recursively)."""
    if path.is_file():
        return [path] if _sniff(path) else []
    return sorted(p for p in path.rglob("*") if p.is_file() and _sniff(p))


def is_ousterhout_log(path: str | Path) -> bool:
    """Is ``path`` a job log, or a directory of them (recursively)? A directory that also
    holds Spark event logs is not: it is left to the event-log reader."""
    path = Path(path)
    if path.is_file():
        return _sniff(path)
    if not path.is_dir():
        return False
    files = [p for p in path.rglob("*") if p.is_file()]
    return any(_sniff(p) for p in files) and not any(_spark_event_log(p) for p in files)


@dataclass
class _App:
    """What one job-log file says, line by line."""

    app_id: str
    source: str
    tasks: list[dict] = field(default_factory=list)
    stages: dict[int, dict] = field(default_factory=dict)
    jobs: dict[str, dict] = field(default_factory=dict)
    running_jobs: list[str] = field(default_factory=list)
    query: str = ""


def _pairs(text: str) -> dict[str, str] | None:
    pairs = {}
    for token in text.split():
        key, sep, value = token.partition("=")
        if not sep or not key.isupper():
            return None
        pairs[key] = value
    return pairs


def _epoch_ms(stamp: str) -> float:
    return (
        datetime.strptime(stamp, "%Y/%m/%d %H:%M:%S").replace(tzinfo=timezone.utc).timestamp()
        * 1000
    )


def _stage(app: _App, stage_id: int) -> dict:
    return app.stages.setdefault(
        stage_id,
        {
            "stage_id": stage_id,
            "parent_ids": "",
            "job_id": None,
            "num_tasks": np.nan,
            "status": "PENDING",
        },
    )


def _header(app: _App, line: str) -> None:
    """Header lines: stage dependencies; other text before a stage header is the query."""
    match = _STAGE_HEADER.match(line)
    if match:
        _stage(app, int(match.group(1)))["parent_ids"] = match.group(2)
    elif not line.lstrip().startswith(("RDD_ID=", "SHUFFLE_ID=", "STAGE_ID=")):
        app.query = line.strip()


def _event(app: _App, stamp: str, pairs: dict[str, str]) -> str | None:
    """Apply one event line; returns why it cannot be used, or None."""
    if "TASK_TYPE" in pairs:
        return _task(app, pairs)
    status = pairs.get("STATUS")
    if "JOB_ID" in pairs and status:
        job = app.jobs.setdefault(
            pairs["JOB_ID"], {"job_id": pairs["JOB_ID"], "description": app.query}
        )
        if status == "STARTED":
            job["event_start"] = _epoch_ms(stamp)
            app.running_jobs.append(pairs["JOB_ID"])
        else:
            job["event_end"] = _epoch_ms(stamp)
            job["status"] = "SUCCEEDED" if status.startswith("SUCCE") else status
            if pairs["JOB_ID"] in app.running_jobs:
                app.running_jobs.remove(pairs["JOB_ID"])
        return None
    if "STAGE_ID" in pairs and status and pairs["STAGE_ID"].isdigit():
        stage = _stage(app, int(pairs["STAGE_ID"]))
        if status == "SUBMITTED":
            stage["job_id"] = app.running_jobs[-1] if app.running_jobs else stage["job_id"]
            stage["num_tasks"] = (
                float(pairs["TASK_SIZE"]) if pairs.get("TASK_SIZE", "").isdigit() else np.nan
            )
        stage["status"] = {"SUBMITTED": "ACTIVE", "COMPLETED": "COMPLETE"}.get(status, status)
        return None
    return "not a job, stage or task event"


def _task(app: _App, pairs: dict[str, str]) -> str | None:
    missing = [k for k in _REQUIRED if not pairs.get(k)]
    if missing:
        return f"task line without {', '.join(missing)}"
    row: dict = {}
    for key, (column, scale) in _TASK_NUMBERS.items():
        value = pairs.get(key, "")
        if value:
            try:
                row[column] = float(value) * scale
            except ValueError:
                return f"{key}={value!r} is not a number"
    for key, column in _TASK_TEXT.items():
        if pairs.get(key):
            row[column] = pairs[key]
    status = pairs.get("STATUS", "UNKNOWN")
    row["status"] = status
    row["end_reason"] = "Success" if status == "SUCCESS" else status
    row["task_type"] = _TASK_TYPES.get(pairs.get("TASK_TYPE", ""), pairs.get("TASK_TYPE", ""))
    app.tasks.append(row)
    return None


def _read_file(path: Path, app_id: str, skipped: list[SkippedLine]) -> _App:
    app = _App(app_id, str(path))
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            match = _EVENT.match(line)
            if match is None:
                _header(app, line)
                continue
            pairs = _pairs(match.group(2))
            reason = "not KEY=VALUE pairs" if pairs is None else _event(app, match.group(1), pairs)
            if reason:
                skipped.append(SkippedLine(str(path), number, reason))
    return app


def _task_table(apps: list[_App]) -> pd.DataFrame:
    frames = []
    for app in apps:
        frame = pd.DataFrame(app.tasks)
        if frame.empty:
            continue
        stage_jobs = {s: st["job_id"] for s, st in app.stages.items()}
        from_stage = frame["stage_id"].map(stage_jobs)
        frame["job_id"] = frame["job_id"].fillna(from_stage) if "job_id" in frame else from_stage
        frames.append(frame.assign(app_id=app.app_id))
    tasks = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["app_id", "stage_id", "task_id"])
    )
    # in the tables' order, not a set's: the columns' order is the same in every process
    for column in dict.fromkeys([*(c for c, _ in _TASK_NUMBERS.values()), *_TASK_TEXT.values()]):
        if column not in tasks:
            tasks[column] = np.nan
    for column in _COUNTERS:
        tasks[column] = tasks[column].fillna(0.0)
    tasks["job_id"] = tasks["job_id"].fillna("").astype(str)
    tasks["executor_id"] = tasks["executor_id"].fillna("").astype(str)
    tasks["host"] = tasks["host"].fillna("").astype(str)
    for column in ("stage_id", "task_id"):
        tasks[column] = tasks[column].astype(np.int64)
    tasks["app_key"] = tasks["app_id"]
    tasks["app_attempt_id"] = ""
    tasks["stage_attempt_id"] = 0
    tasks["stage_key"] = tasks["app_key"] + "/" + tasks["stage_id"].astype(str) + "/0"
    tasks["id"] = tasks["app_key"] + "/" + tasks["task_id"].astype(str)
    tasks["attempt"] = 0
    tasks["partition_id"] = -1
    tasks["speculative"] = "F"
    tasks["failure"] = np.where(tasks["status"].eq("SUCCESS"), "", tasks["status"])
    tasks["duration"] = tasks["finish_time"] - tasks["launch_time"]
    # As the paper's scripts compute it: whatever of the duration the executor did not spend
    # deserializing or running the task (result serialization is not logged separately).
    tasks["scheduler_delay"] = (
        tasks["duration"] - tasks["executor_run_time"] - tasks["deserialize_time"].fillna(0)
    ).clip(lower=0)
    tasks["shuffle_read_bytes"] = (
        tasks["shuffle_remote_bytes_read"] + tasks["shuffle_local_bytes_read"]
    )
    tasks["input_records"] = np.nan
    tasks["shuffle_read_records"] = np.nan
    tasks = add_task_features(tasks)
    return tasks


def _stage_table(apps: list[_App], tasks: pd.DataFrame) -> pd.DataFrame:
    rows = [
        {**st, "app_id": app.app_id, "job_id": st["job_id"] or ""}
        for app in apps
        for st in app.stages.values()
    ]
    stages = pd.DataFrame(
        rows, columns=["stage_id", "parent_ids", "job_id", "num_tasks", "status", "app_id"]
    )
    stages["app_key"] = stages["app_id"]
    stages["app_attempt_id"] = ""
    stages["stage_attempt_id"] = 0
    stages["id"] = stages["app_key"] + "/" + stages["stage_id"].astype(str) + "/0"
    bounds = tasks.groupby("stage_key").agg(
        submission_time=("launch_time", "min"), completion_time=("finish_time", "max")
    )
    stages = stages.join(bounds, on="id")
    stages["first_task_launched_time"] = stages["submission_time"]
    stages["duration"] = stages["completion_time"] - stages["submission_time"]
    return add_task_aggregates(stages, tasks, "stage_key")


def _job_table(apps: list[_App], tasks: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for app in apps:
        seen_in_tasks = tasks.loc[tasks["app_key"].eq(app.app_id), "job_id"].unique()
        for job_id in seen_in_tasks:
            app.jobs.setdefault(job_id, {"job_id": job_id, "description": app.query})
        for job in app.jobs.values():
            stage_ids = sorted(s for s, st in app.stages.items() if st["job_id"] == job["job_id"])
            rows.append(
                {
                    "app_id": app.app_id,
                    "job_id": job["job_id"],
                    "description": job.get("description", ""),
                    "status": job.get("status", "RUNNING" if "event_start" in job else "UNKNOWN"),
                    "stage_ids": ",".join(map(str, stage_ids)),
                    "num_stages": len(stage_ids),
                    "event_start": job.get("event_start", np.nan),
                    "event_end": job.get("event_end", np.nan),
                }
            )
    jobs = pd.DataFrame(
        rows,
        columns=[
            "app_id",
            "job_id",
            "description",
            "status",
            "stage_ids",
            "num_stages",
            "event_start",
            "event_end",
        ],
    )
    jobs["app_key"] = jobs["app_id"]
    jobs["app_attempt_id"] = ""
    jobs["id"] = jobs["app_key"] + "/" + jobs["job_id"]
    job_key = tasks["app_key"] + "/" + tasks["job_id"]
    bounds = tasks.groupby(job_key).agg(first=("launch_time", "min"), last=("finish_time", "max"))
    jobs = jobs.join(bounds, on="id")
    jobs["submission_time"] = jobs["first"].fillna(jobs["event_start"])
    jobs["completion_time"] = jobs["last"].fillna(jobs["event_end"])
    jobs["duration"] = jobs["completion_time"] - jobs["submission_time"]
    jobs = jobs.drop(columns=["first", "last", "event_start", "event_end"])
    return add_task_aggregates(jobs, tasks.assign(job_key=job_key), "job_key")


def _app_table(apps: list[_App], jobs: pd.DataFrame, tasks: pd.DataFrame) -> pd.DataFrame:
    table = pd.DataFrame(
        {
            "app_id": [a.app_id for a in apps],
            "source": [a.source for a in apps],
            "name": [Path(a.source).name for a in apps],
        }
    )
    table["id"] = table["app_key"] = table["app_id"]
    table["app_attempt_id"] = ""
    bounds = jobs.groupby("app_key").agg(
        start_time=("submission_time", "min"),
        end_time=("completion_time", "max"),
        num_jobs=("job_id", "size"),
    )
    table = table.join(bounds, on="id")
    table["duration"] = table["end_time"] - table["start_time"]
    table["completed"] = "T"
    return add_task_aggregates(table, tasks, "app_key")


def _registry(tables: dict[str, pd.DataFrame]) -> FeatureRegistry:
    registry = FeatureRegistry()
    own: dict[str, list[FeatureSpec]] = {
        "task": SPARK_TASK + SPARK_TASK_EXTRA + OUSTERHOUT_TASK,
        "stage": SPARK_STAGE,
        "job": SPARK_JOB,
        "app": SPARK_APP,
    }
    for entity, table in tables.items():
        present = set(table.columns)
        registry.register_all(
            entity, list({s.name: s for s in own[entity] if s.name in present}.values())
        )
        if entity != "task":
            registry.register_all(
                entity,
                aggregate_specs(registry.specs("task"), present - set(registry.names(entity))),
            )
    return registry


def read_ousterhout_log(path: str | Path) -> Log:
    """One job log, or every job log under a directory, as a Log (one app per file, named by
    its path relative to the directory)."""
    path = Path(path)
    files = job_log_files(path)
    skipped: list[SkippedLine] = []
    root = path if path.is_dir() else path.parent
    apps = [_read_file(f, f.relative_to(root).as_posix(), skipped) for f in files]
    tasks = _task_table(apps)
    stages = _stage_table(apps, tasks)
    jobs = _job_table(apps, tasks)
    tables = {"task": tasks, "stage": stages, "job": jobs, "app": _app_table(apps, jobs, tasks)}
    return Log(
        tasks=tasks,
        stages=stages,
        jobs=jobs,
        apps=tables["app"],
        registry=_registry(tables),
        skipped=skipped,
        sources=[str(f) for f in files],
    )
