"""Peer oracle: perfx's tables reproduce Spark's own history-server REST answers.

The cases come from the table in spark-events/README.md (expectation file -> event log(s) ->
REST URL); the test reads each expected JSON and compares it field by field, through the
mappings below from REST field names to perfx columns. Nothing here restates a number."""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import cache
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pandas as pd
import pytest

from perfx.logs.history import executor_totals, task_summary
from perfx.logs.loader import load_log
from tests.data_files import fixture_log

EVENTS = fixture_log("spark-events")
EXPECTATIONS = EVENTS / "expectations"
NS = 1e6
"""REST passes Spark's nanosecond fields through; perfx holds ms."""

# REST task field -> (perfx task column, REST units per perfx unit)
TASK_FIELDS = {
    "taskId": ("task_id", 1),
    "index": ("task_index", 1),
    "attempt": ("attempt", 1),
    "partitionId": ("partition_id", 1),
    "launchTime": ("launch_time", 1),
    "duration": ("duration", 1),
    "executorId": ("executor_id", 1),
    "host": ("host", 1),
    "status": ("status", 1),
    "taskLocality": ("locality", 1),
    "speculative": ("speculative", 1),
    "schedulerDelay": ("scheduler_delay", 1),
    "gettingResultTime": ("getting_result_time", 1),
    "taskMetrics.executorDeserializeTime": ("deserialize_time", 1),
    "taskMetrics.executorDeserializeCpuTime": ("deserialize_cpu_time", NS),
    "taskMetrics.executorRunTime": ("executor_run_time", 1),
    "taskMetrics.executorCpuTime": ("executor_cpu_time", NS),
    "taskMetrics.resultSize": ("result_size", 1),
    "taskMetrics.jvmGcTime": ("gc_time", 1),
    "taskMetrics.resultSerializationTime": ("result_serialization_time", 1),
    "taskMetrics.memoryBytesSpilled": ("memory_bytes_spilled", 1),
    "taskMetrics.diskBytesSpilled": ("disk_bytes_spilled", 1),
    "taskMetrics.peakExecutionMemory": ("peak_execution_memory", 1),
    "taskMetrics.inputMetrics.bytesRead": ("input_bytes", 1),
    "taskMetrics.inputMetrics.recordsRead": ("input_records", 1),
    "taskMetrics.outputMetrics.bytesWritten": ("output_bytes", 1),
    "taskMetrics.outputMetrics.recordsWritten": ("output_records", 1),
    "taskMetrics.shuffleReadMetrics.remoteBlocksFetched": ("shuffle_remote_blocks_fetched", 1),
    "taskMetrics.shuffleReadMetrics.localBlocksFetched": ("shuffle_local_blocks_fetched", 1),
    "taskMetrics.shuffleReadMetrics.fetchWaitTime": ("shuffle_fetch_wait_time", 1),
    "taskMetrics.shuffleReadMetrics.remoteBytesRead": ("shuffle_remote_bytes_read", 1),
    "taskMetrics.shuffleReadMetrics.remoteBytesReadToDisk": (
        "shuffle_remote_bytes_read_to_disk",
        1,
    ),
    "taskMetrics.shuffleReadMetrics.localBytesRead": ("shuffle_local_bytes_read", 1),
    "taskMetrics.shuffleReadMetrics.recordsRead": ("shuffle_read_records", 1),
    "taskMetrics.shuffleReadMetrics.remoteReqsDuration": ("shuffle_remote_reqs_duration", 1),
    "taskMetrics.shuffleWriteMetrics.bytesWritten": ("shuffle_write_bytes", 1),
    "taskMetrics.shuffleWriteMetrics.writeTime": ("shuffle_write_time", NS),
    "taskMetrics.shuffleWriteMetrics.recordsWritten": ("shuffle_write_records", 1),
}

# REST taskSummary field -> (perfx task column, scale)
SUMMARY_FIELDS = {
    "duration": ("duration", 1),
    "executorRunTime": ("executor_run_time", 1),
    "executorCpuTime": ("executor_cpu_time", NS),
    "executorDeserializeTime": ("deserialize_time", 1),
    "executorDeserializeCpuTime": ("deserialize_cpu_time", NS),
    "resultSize": ("result_size", 1),
    "jvmGcTime": ("gc_time", 1),
    "resultSerializationTime": ("result_serialization_time", 1),
    "gettingResultTime": ("getting_result_time", 1),
    "schedulerDelay": ("scheduler_delay", 1),
    "peakExecutionMemory": ("peak_execution_memory", 1),
    "memoryBytesSpilled": ("memory_bytes_spilled", 1),
    "diskBytesSpilled": ("disk_bytes_spilled", 1),
    "inputMetrics.bytesRead": ("input_bytes", 1),
    "inputMetrics.recordsRead": ("input_records", 1),
    "outputMetrics.bytesWritten": ("output_bytes", 1),
    "outputMetrics.recordsWritten": ("output_records", 1),
    "shuffleReadMetrics.readBytes": ("shuffle_read_bytes", 1),
    "shuffleReadMetrics.readRecords": ("shuffle_read_records", 1),
    "shuffleReadMetrics.remoteBlocksFetched": ("shuffle_remote_blocks_fetched", 1),
    "shuffleReadMetrics.localBlocksFetched": ("shuffle_local_blocks_fetched", 1),
    "shuffleReadMetrics.totalBlocksFetched": ("total_blocks_fetched", 1),
    "shuffleReadMetrics.fetchWaitTime": ("shuffle_fetch_wait_time", 1),
    "shuffleReadMetrics.remoteBytesRead": ("shuffle_remote_bytes_read", 1),
    "shuffleReadMetrics.remoteBytesReadToDisk": ("shuffle_remote_bytes_read_to_disk", 1),
    "shuffleReadMetrics.remoteReqsDuration": ("shuffle_remote_reqs_duration", 1),
    "shuffleWriteMetrics.writeBytes": ("shuffle_write_bytes", 1),
    "shuffleWriteMetrics.writeRecords": ("shuffle_write_records", 1),
    "shuffleWriteMetrics.writeTime": ("shuffle_write_time", NS),
}

# REST stage field -> (perfx stage column, scale)
STAGE_FIELDS = {
    "stageId": ("stage_id", 1),
    "attemptId": ("stage_attempt_id", 1),
    "status": ("status", 1),
    "name": ("name", 1),
    "numTasks": ("num_tasks", 1),
    "numActiveTasks": ("num_active_tasks", 1),
    "numCompleteTasks": ("num_complete_tasks", 1),
    "numFailedTasks": ("num_failed_tasks", 1),
    "numKilledTasks": ("num_killed_tasks", 1),
    "numCompletedIndices": ("num_completed_indices", 1),
    "submissionTime": ("submission_time", 1),
    "firstTaskLaunchedTime": ("first_task_launched_time", 1),
    "completionTime": ("completion_time", 1),
    "failureReason": ("failure_reason", 1),
    "details": ("details", 1),
    "executorDeserializeTime": ("deserialize_time_sum", 1),
    "executorDeserializeCpuTime": ("deserialize_cpu_time_sum", NS),
    "executorRunTime": ("executor_run_time_sum", 1),
    "executorCpuTime": ("executor_cpu_time_sum", NS),
    "resultSize": ("result_size_sum", 1),
    "jvmGcTime": ("gc_time_sum", 1),
    "resultSerializationTime": ("result_serialization_time_sum", 1),
    "memoryBytesSpilled": ("memory_bytes_spilled_sum", 1),
    "diskBytesSpilled": ("disk_bytes_spilled_sum", 1),
    "peakExecutionMemory": ("peak_execution_memory_sum", 1),
    "inputBytes": ("input_bytes_sum", 1),
    "inputRecords": ("input_records_sum", 1),
    "outputBytes": ("output_bytes_sum", 1),
    "outputRecords": ("output_records_sum", 1),
    "shuffleRemoteBlocksFetched": ("shuffle_remote_blocks_fetched_sum", 1),
    "shuffleLocalBlocksFetched": ("shuffle_local_blocks_fetched_sum", 1),
    "shuffleFetchWaitTime": ("shuffle_fetch_wait_time_sum", 1),
    "shuffleRemoteBytesRead": ("shuffle_remote_bytes_read_sum", 1),
    "shuffleRemoteBytesReadToDisk": ("shuffle_remote_bytes_read_to_disk_sum", 1),
    "shuffleLocalBytesRead": ("shuffle_local_bytes_read_sum", 1),
    "shuffleReadBytes": ("shuffle_read_bytes_sum", 1),
    "shuffleReadRecords": ("shuffle_read_records_sum", 1),
    "shuffleRemoteReqsDuration": ("shuffle_remote_reqs_duration_sum", 1),
    "shuffleWriteBytes": ("shuffle_write_bytes_sum", 1),
    "shuffleWriteTime": ("shuffle_write_time_sum", NS),
    "shuffleWriteRecords": ("shuffle_write_records_sum", 1),
}

# REST job field -> (perfx job column, scale)
JOB_FIELDS = {
    "jobId": ("job_id", 1),
    "name": ("name", 1),
    "status": ("status", 1),
    "stageIds": ("stage_ids", 1),
    "submissionTime": ("submission_time", 1),
    "completionTime": ("completion_time", 1),
    "numTasks": ("num_tasks", 1),
    "numActiveTasks": ("num_active_tasks", 1),
    "numCompletedTasks": ("num_completed_tasks", 1),
    "numSkippedTasks": ("num_skipped_tasks", 1),
    "numFailedTasks": ("num_failed_tasks", 1),
    "numKilledTasks": ("num_killed_tasks", 1),
    "numCompletedIndices": ("num_completed_indices", 1),
    "numActiveStages": ("num_active_stages", 1),
    "numCompletedStages": ("num_completed_stages", 1),
    "numSkippedStages": ("num_skipped_stages", 1),
    "numFailedStages": ("num_failed_stages", 1),
}

# REST executor field -> (logs.history.executor_totals column, scale)
EXECUTOR_FIELDS = {
    "activeTasks": ("active_tasks", 1),
    "completedTasks": ("completed_tasks", 1),
    "failedTasks": ("failed_tasks", 1),
    "totalTasks": ("total_tasks", 1),
    "totalDuration": ("total_duration", 1),
    "totalGCTime": ("total_gc_time", 1),
    "totalInputBytes": ("total_input_bytes", 1),
    "totalShuffleRead": ("total_shuffle_read", 1),
    "totalShuffleWrite": ("total_shuffle_write", 1),
}

# REST application attempt field -> (perfx app column, scale)
APP_FIELDS = {
    "startTime": ("start_time", 1),
    "endTime": ("end_time", 1),
    "duration": ("duration", 1),
    "sparkUser": ("user", 1),
    "completed": ("completed", 1),
    "appSparkVersion": ("spark_version", 1),
}


def readme_cases() -> list[tuple[str, list[str], str]]:
    """(expectation file, event log files, REST URL) from the README's table."""
    cases = []
    for line in (EVENTS / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].endswith("_expectation.json`"):
            continue
        logs = re.findall(r"`([^`]+)`", cells[1])
        if "every top-level log" in cells[1]:
            logs = sorted(
                p.name
                for p in EVENTS.iterdir()
                if p.is_file() and p.name.startswith(("app", "local"))
            )
        cases.append((cells[0].strip("`"), logs, re.findall(r"`([^`]+)`", cells[2])[0]))
    return cases


CASES = readme_cases()


@cache
def load(logs: tuple[str, ...]):
    return load_log([EVENTS / name for name in logs])


def rest_time(value: str) -> float:
    """'2015-02-03T16:43:07.191GMT' -> epoch ms."""
    return datetime.fromisoformat(value.removesuffix("GMT") + "+00:00").timestamp() * 1000


def flatten(obj: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in obj.items():
        if isinstance(value, dict) and key not in ("executorLogs", "killedTasksSummary"):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def ours(value, scale: float, expected):
    """perfx's value in the REST field's type and units."""
    if isinstance(expected, bool):
        return value == "T" if isinstance(value, str) else bool(value)
    if isinstance(expected, list):
        return [int(v) for v in str(value).split(",") if v != ""]
    if isinstance(expected, str) and re.match(r"\d{4}-\d\d-\d\dT", expected):
        return value
    if isinstance(expected, (int, float)):
        number = (
            0.0 if value is None or (isinstance(value, float) and np.isnan(value)) else float(value)
        )
        return number * scale
    return "" if value is None else str(value)


COMPARED: list[str] = []
"""Fields compared by the current test (so that a case cannot pass by comparing nothing)."""


def compare(what: str, expected: dict, row: pd.Series, fields: dict) -> list[str]:
    """Mismatches between one expected REST object and one perfx row."""
    problems = []
    for field, value in flatten(expected).items():
        if field not in fields:
            continue
        COMPARED.append(field)
        column, scale = fields[field]
        mine = ours(row[column], scale, value)
        if isinstance(value, str) and re.match(r"\d{4}-\d\d-\d\dT", value):
            value = rest_time(value)
            mine = float(mine) if mine is not None and not pd.isna(mine) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            ok = mine is not None and abs(mine - value) <= 1e-6 * max(1.0, abs(value))
        else:
            ok = mine == value
        if not ok:
            problems.append(f"{what} {field}: REST {value!r}, perfx {mine!r} (column {column})")
    return problems


def parse_url(url: str) -> tuple[list[str], dict[str, list[str]]]:
    split = urlsplit(url)
    return [p for p in split.path.split("/") if p], parse_qs(split.query)


def app_scope(log, parts: list[str]) -> tuple[str, list[str]]:
    """(app key, remaining path parts) of ``applications/<app>[/<attempt>]/...``."""
    app = parts[1]
    rest = parts[2:]
    attempts = log.apps[log.apps["app_id"] == app]
    if rest and rest[0] in set(attempts["app_attempt_id"]):
        return attempts.loc[attempts["app_attempt_id"] == rest[0], "app_key"].iloc[0], rest[1:]
    return app, rest


def check_tasks(log, app_key: str, expected: list[dict]) -> list[str]:
    tasks = log.tasks[log.tasks["app_key"] == app_key].set_index("task_id", drop=False)
    problems = []
    for task in expected:
        if task["taskId"] not in tasks.index:
            problems.append(f"task {task['taskId']} missing")
            continue
        problems += compare(f"task {task['taskId']}", task, tasks.loc[task["taskId"]], TASK_FIELDS)
    return problems


def select_tasks(tasks: pd.DataFrame, query: dict[str, list[str]]) -> list[int]:
    """The task ids a taskList query returns (status filter, sortBy, offset, length)."""
    if "status" in query:
        tasks = tasks[tasks["status"].str.lower().isin([s.lower() for s in query["status"]])]
    sort = query.get("sortBy", ["ID"])[0]
    if sort in ("runtime", "-runtime", "DECREASING_RUNTIME"):
        # the history server walks its (run time, task id) index backwards for descending
        tasks = tasks.sort_values(["executor_run_time", "task_id"], ascending=sort == "runtime")
    else:
        tasks = tasks.sort_values("task_id")
    offset = int(query.get("offset", [0])[0])
    length = int(query.get("length", [20])[0])
    return tasks["task_id"].iloc[offset : offset + length].tolist()


def check_stage_tasks(log, app_key, stage, attempt, query, expected) -> list[str]:
    tasks = log.tasks[
        (log.tasks["app_key"] == app_key)
        & (log.tasks["stage_id"] == stage)
        & (log.tasks["stage_attempt_id"] == attempt)
    ]
    problems = check_tasks(log, app_key, expected)
    chosen = select_tasks(tasks, query)
    if chosen != [t["taskId"] for t in expected]:
        problems.append(f"taskList selects {chosen}, REST {[t['taskId'] for t in expected]}")
    return problems


def check_summary(log, app_key, stage, attempt, expected) -> list[str]:
    tasks = log.tasks[log.tasks["stage_key"] == f"{app_key}/{stage}/{attempt}"]
    tasks = tasks.assign(
        total_blocks_fetched=tasks["shuffle_remote_blocks_fetched"]
        + tasks["shuffle_local_blocks_fetched"]
    )
    flat = flatten(expected)
    quantiles = flat["quantiles"]
    columns = {field: fields for field, fields in SUMMARY_FIELDS.items() if field in flat}
    summary = task_summary(tasks, [c for c, _ in columns.values()], quantiles)
    problems = [
        f"summary field {f} not compared"
        for f in flat
        if f not in SUMMARY_FIELDS and f != "quantiles" and "PushReadMetrics" not in f
    ]
    for field, (column, scale) in columns.items():
        mine = [v * scale for v in summary[column]]
        if not np.allclose(mine, flat[field], rtol=1e-9, atol=1e-6):
            problems.append(f"summary {field}: REST {flat[field]}, perfx {mine}")
    return problems


def check_stages(log, app_key, rest, query, expected) -> list[str]:
    stages = log.stages[log.stages["app_key"] == app_key]
    listing = isinstance(expected, list)
    items = expected if listing else [expected]
    problems = []
    if not rest:  # the stage list: every attempt, filtered by status
        selected = stages
        if "status" in query:
            selected = stages[stages["status"].str.lower().isin(query["status"])]
        if sorted(zip(selected["stage_id"], selected["stage_attempt_id"])) != sorted(
            (s["stageId"], s["attemptId"]) for s in items
        ):
            problems.append("stage list selects other stage attempts")
    for item in items:
        row = stages[
            (stages["stage_id"] == item["stageId"])
            & (stages["stage_attempt_id"] == item["attemptId"])
        ]
        if len(row) != 1:
            problems.append(f"stage {item['stageId']}.{item['attemptId']} missing")
            continue
        problems += compare(
            f"stage {item['stageId']}.{item['attemptId']}", item, row.iloc[0], STAGE_FIELDS
        )
        if "tasks" in item:
            problems += check_tasks(log, app_key, list(item["tasks"].values()))
    return problems


def check_jobs(log, app_key, query, expected) -> list[str]:
    jobs = log.jobs[log.jobs["app_key"] == app_key]
    items = expected if isinstance(expected, list) else [expected]
    problems = []
    if isinstance(expected, list):
        selected = jobs
        if "status" in query:
            selected = jobs[jobs["status"].str.lower().isin(query["status"])]
        if sorted(selected["job_id"].astype(int)) != sorted(j["jobId"] for j in items):
            problems.append("job list selects other jobs")
    for item in items:
        row = jobs[jobs["job_id"] == str(item["jobId"])]
        if len(row) != 1:
            problems.append(f"job {item['jobId']} missing")
            continue
        problems += compare(f"job {item['jobId']}", item, row.iloc[0], JOB_FIELDS)
    return problems


def check_executors(log, app_key, expected) -> list[str]:
    """Executor totals. The driver's totalGCTime is the one field not compared: the history
    server reports the driver JVM's own GC time (peak executor metrics), which the task
    events do not carry."""
    totals = executor_totals(log.tasks, log.apps)
    totals = totals[totals["app_key"] == app_key].set_index("executor_id")
    problems = [
        f"executor {e} ran tasks but is not in REST"
        for e in set(totals.index) - {e["id"] for e in expected}
    ]
    for executor in expected:
        row = (
            totals.loc[executor["id"]]
            if executor["id"] in totals.index
            else pd.Series(0, index=totals.columns)
        )
        if executor["id"] == "driver":
            executor = {k: v for k, v in executor.items() if k != "totalGCTime"}
        problems += compare(f"executor {executor['id']}", executor, row, EXECUTOR_FIELDS)
    return problems


def check_apps(log, expected) -> list[str]:
    items = expected if isinstance(expected, list) else [expected]
    problems = []
    for app in items:
        for attempt in app["attempts"]:
            attempt_id = attempt.get("attemptId", "")
            row = log.apps[
                (log.apps["app_id"] == app["id"]) & (log.apps["app_attempt_id"] == attempt_id)
            ]
            if len(row) != 1:
                problems.append(f"app {app['id']} attempt {attempt_id!r} missing")
                continue
            row = row.iloc[0]
            if row["name"] != app["name"]:
                problems.append(
                    f"app {app['id']} name: REST {app['name']!r}, perfx {row['name']!r}"
                )
            problems += compare(f"app {app['id']}/{attempt_id}", attempt, row, APP_FIELDS)
    return problems


@pytest.mark.parametrize(
    "expectation, logs, url", CASES, ids=[c[0].removesuffix("_expectation.json") for c in CASES]
)
def test_matches_history_server(expectation: str, logs: list[str], url: str) -> None:
    expected = json.loads((EXPECTATIONS / expectation).read_text())
    log = load(tuple(logs))
    COMPARED.clear()
    parts, query = parse_url(url)
    if parts == ["applications"]:
        problems = check_apps(log, expected)
    else:
        app_key, rest = app_scope(log, parts)
        if not rest:
            problems = check_apps(log, expected)
        elif rest[0] == "jobs":
            problems = check_jobs(log, app_key, query, expected)
        elif rest[0] == "executors":
            problems = check_executors(log, app_key, expected)
        elif rest[0] == "stages" and rest[-1] == "taskList":
            problems = check_stage_tasks(log, app_key, int(rest[1]), int(rest[2]), query, expected)
        elif rest[0] == "stages" and rest[-1] == "taskSummary":
            problems = check_summary(log, app_key, int(rest[1]), int(rest[2]), expected)
        elif rest[0] == "stages":
            problems = check_stages(log, app_key, rest[1:], query, expected)
        else:
            pytest.fail(f"no check for {url}")
    assert not problems, "\n".join(problems[:40])
    assert COMPARED or "taskSummary" in url, "no field compared"


def test_every_expectation_file_is_a_case() -> None:
    assert sorted(c[0] for c in CASES) == sorted(p.name for p in EXPECTATIONS.glob("*.json"))
