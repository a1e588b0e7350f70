"""One application of Spark's monitoring REST API -> a ``Log``.

The REST answers are replayed into the event-log reader's ``AppState`` (application, job,
stage and task events in the order an event log has them) and the tables are built by the
same ``log_of_states``: an application read over HTTP and its event log give the same
columns, computed by the same code (tests/rest/test_history_server.py holds them equal
against a real History Server).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..eventlog.build import AppState
from ..eventlog.log import log_of_states
from ..model import Log
from .client import RestAccess, RestClient, RestError
from .fields import REST_NOTES, epoch_ms, stage_info, task_row

PAGE = 2000
"""Tasks asked for per request of a stage's task list (Spark's default page is 20)."""


def _latest_attempt(app: dict) -> dict:
    """The attempt Spark lists first: the latest."""
    attempts = app.get("attempts") or [{}]
    return attempts[0]


def select_app(apps: list[dict], wanted: str | None, where: str) -> dict:
    """The application whose id or name is ``wanted`` (the latest started of several with
    that name), or the latest started of all."""
    if not apps:
        raise RestError(f"{where}: no application")
    candidates = apps
    if wanted:
        candidates = [a for a in apps if a.get("id") == wanted] or [
            a for a in apps if a.get("name") == wanted
        ]
        if not candidates:
            shown = ", ".join(str(a.get("id")) for a in apps[:5])
            more = f" and {len(apps) - 5} more" if len(apps) > 5 else ""
            raise RestError(f"{where}: no application with id or name {wanted!r} ({shown}{more})")
    return max(candidates, key=lambda a: epoch_ms(_latest_attempt(a).get("startTime")) or 0)


def list_apps(base: str, access: RestAccess | None = None) -> list[dict]:
    """The applications the server knows: id, name, start and end (epoch ms), completed."""
    client = RestClient(base, access)
    rows = []
    for app in client.get("applications") or []:
        attempt = _latest_attempt(app)
        rows.append(
            {
                "id": app.get("id", ""),
                "name": app.get("name", ""),
                "attempt": attempt.get("attemptId", ""),
                "start_time": epoch_ms(attempt.get("startTime")),
                "end_time": epoch_ms(attempt.get("endTime")) if attempt.get("completed") else None,
                "completed": bool(attempt.get("completed")),
                "spark_version": attempt.get("appSparkVersion", ""),
            }
        )
    return rows


def _tasks(client: RestClient, prefix: str, stage: dict) -> list[dict]:
    """Every task attempt of one stage attempt, a page at a time."""
    path = f"{prefix}/stages/{stage['stageId']}/{stage.get('attemptId', 0)}/taskList"
    tasks: list[dict] = []
    while True:
        page = client.get(path, {"offset": len(tasks), "length": PAGE}) or []
        tasks.extend(page)
        if len(page) < PAGE:
            return tasks


def _task_types(jobs: list[dict], stages: list[dict]) -> dict[int, str]:
    """stage id -> its tasks' type, which the REST API does not say: ShuffleMapTask for a
    stage that wrote shuffle output or that a job lists below its last stage (its parents
    come first), ResultTask for the others, the last stage of their job. A map stage run as a
    job of its own (adaptive query execution) is the last of that job, but writes shuffle
    output and is listed again, below the last, by the job that reads it."""
    maps = {
        s["stageId"]
        for s in stages
        if s.get("shuffleWriteBytes", 0) > 0 or s.get("shuffleWriteRecords", 0) > 0
    }
    for job in jobs:
        ids = job.get("stageIds") or []
        maps.update(i for i in ids if i != max(ids))
    return {
        stage_id: "ShuffleMapTask" if stage_id in maps else "ResultTask"
        for job in jobs
        for stage_id in job.get("stageIds") or []
    }


def _replay(client: RestClient, app: dict, state: AppState) -> None:
    """Feed ``state`` what the REST API says about the app, in event-log order."""
    attempt = _latest_attempt(app)
    attempt_id = attempt.get("attemptId") or ""
    prefix = f"applications/{app['id']}" + (f"/{attempt_id}" if attempt_id else "")
    state.on_log_start({"Spark Version": attempt.get("appSparkVersion", "")})
    state.on_app_start(
        {
            "App ID": app["id"],
            "App Attempt ID": attempt_id,
            "App Name": app.get("name", ""),
            "User": attempt.get("sparkUser", ""),
            "Timestamp": epoch_ms(attempt.get("startTime")),
        }
    )
    environment = client.get(f"{prefix}/environment") or {}
    state.on_environment(
        {
            "Spark Properties": dict(environment.get("sparkProperties") or ()),
            "System Properties": dict(environment.get("systemProperties") or ()),
        }
    )
    for executor in client.get(f"{prefix}/allexecutors") or []:
        _replay_executor(state, executor)
    jobs = sorted(client.get(f"{prefix}/jobs") or [], key=lambda j: j["jobId"])
    stages = sorted(
        client.get(f"{prefix}/stages") or [], key=lambda s: (s["stageId"], s.get("attemptId", 0))
    )
    attempts: dict[int, list[dict]] = {}
    for stage in stages:
        attempts.setdefault(stage["stageId"], []).append(stage)
    for job in jobs:
        submitted = epoch_ms(job.get("submissionTime"))
        infos = [
            stage_info(_attempt_at(attempts.get(s, []), submitted), s, at_job_start=submitted or 0)
            for s in job.get("stageIds") or []
        ]
        state.on_job_start(
            {
                "Job ID": job["jobId"],
                "Submission Time": submitted,
                "Stage IDs": list(job.get("stageIds") or []),
                "Stage Infos": infos,
                "Properties": {
                    "spark.job.description": job.get("description") or "",
                    "spark.jobGroup.id": job.get("jobGroup") or "",
                },
            }
        )
    types = _task_types(jobs, stages)
    for stage in stages:
        if stage.get("status") in ("PENDING", "SKIPPED"):
            continue  # known from its jobs only, as in the log
        event = {"Stage Info": stage_info(stage, stage["stageId"])}
        state.on_stage_submitted(event)
        if stage.get("status") in ("COMPLETE", "FAILED"):
            state.on_stage_completed(event)
        for task in _tasks(client, prefix, stage):
            row = task_row(
                task,
                stage["stageId"],
                stage.get("attemptId", 0),
                types.get(stage["stageId"], ""),
            )
            state.on_fast_task_end(*row)
    for job in jobs:
        if job.get("status") in ("SUCCEEDED", "FAILED"):
            result = "JobSucceeded" if job["status"] == "SUCCEEDED" else "JobFailed"
            state.on_job_end(
                {
                    "Job ID": job["jobId"],
                    "Completion Time": epoch_ms(job.get("completionTime")),
                    "Job Result": {"Result": result},
                }
            )
    if attempt.get("completed"):
        state.on_app_end({"Timestamp": epoch_ms(attempt.get("endTime"))})


def _replay_executor(state: AppState, executor: dict) -> None:
    """One executor of ``/allexecutors`` as the events that made it: its BlockManagerAdded
    where it shows a block manager's ``host:port``, its ExecutorAdded where it has cores
    (Spark shows 0 for a block manager no ExecutorAdded named: a cluster's driver) and its
    ExecutorRemoved where it was removed."""
    executor_id, added = executor["id"], epoch_ms(executor.get("addTime"))
    host, _, port = str(executor.get("hostPort") or "").rpartition(":")
    if port.isdigit():
        manager = {"Executor ID": executor_id, "Host": host, "Port": int(port)}
        state.on_block_manager_added(
            {
                "Block Manager ID": manager,
                "Maximum Memory": executor.get("maxMemory"),
                "Timestamp": added,
            }
        )
    else:
        host = str(executor.get("hostPort") or "")
    if executor.get("totalCores"):
        info = {"Host": host, "Total Cores": executor["totalCores"]}
        state.on_executor_added(
            {"Executor ID": executor_id, "Timestamp": added, "Executor Info": info}
        )
    if executor.get("removeTime"):
        state.on_executor_removed(
            {
                "Executor ID": executor_id,
                "Timestamp": epoch_ms(executor["removeTime"]),
                "Removed Reason": executor.get("removeReason"),
            }
        )


def _attempt_at(attempts: list[dict], when: int | None) -> dict | None:
    """The attempt of a stage a JobStart at ``when`` saw: the last one completed by then, else
    the first (the one the job is about to run)."""
    done = [a for a in attempts if (epoch_ms(a.get("completionTime")) or np.inf) <= (when or 0)]
    return done[-1] if done else (attempts[0] if attempts else None)


def _mark_missing(log: Log) -> Log:
    """The values the REST API does not carry set to None (a task's are already), and each
    feature it touches saying so in its description (``perfx features``)."""
    log.stages["parent_ids"] = None
    log.jobs.loc[log.jobs["status"] == "FAILED", "failure_reason"] = None
    for entity, notes in REST_NOTES.items():
        for spec in log.registry.specs(entity):
            if spec.name in notes:
                described = replace(spec, description=f"{spec.description} {notes[spec.name]}")
                log.registry.register(entity, described, replace=True)
    return log


def read_rest(
    base: str,
    *,
    app: str | None = None,
    access: RestAccess | None = None,
) -> Log:
    """The Log of one application of the REST API at ``base`` (``http://host:18080`` of a
    History Server, ``http://driver:4040`` of a running application): ``app`` by id or name,
    the latest started by default; its latest attempt."""
    client = RestClient(base, access)
    apps = client.get("applications")
    if not isinstance(apps, list):
        raise RestError(f"{client.url('applications')}: not Spark's list of applications")
    chosen = select_app(apps, app, base)
    state = AppState(client.url(f"applications/{chosen['id']}"))
    _replay(client, chosen, state)
    state.close_running(lambda path, line, reason: None)
    return _mark_missing(log_of_states([state], [], [state.source]))
