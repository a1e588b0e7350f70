"""Hadoop MapReduce job history events -> what one job did: its own fields, its tasks and
each task's attempts, every event applied much as Hadoop's ``JobHistoryParser`` applies it.

A ``.jhist`` event is Avro's JSON encoding of ``Events.avpr``:
``{"type": "TASK_FINISHED", "event": {"org.apache.hadoop.mapreduce.jobhistory.TaskFinished": {...}}}``.
Field names below are the schema's. Writers differ, so:

* a union field comes wrapped (``{"string": "x"}``, as Avro encodes unions) or bare (``"x"``:
  Hadoop 2.4.0's schema did not declare those fields unions yet): ``plain`` takes both;
* fields newer than Hadoop 0.23 (``successfulAttemptId``, ``locality``, ``avataar``, the
  counters of failed attempts and failed tasks) may be absent or null.

An event is applied whole or not at all: each handler reads and converts every field it needs
before it changes the history, so a line skipped for a missing or malformed field has left
no trace (no task created, no status set).

This module reads no files: ``logs.jhist`` feeds it parsed lines.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

AVRO_NAMESPACE = "org.apache.hadoop.mapreduce.jobhistory."
_AVRO_PRIMITIVES = {"string", "long", "int", "boolean", "double", "float", "bytes"}
NAN = math.nan

Counters = dict[tuple[str, str], float]
"""(counter group, counter name) -> value."""

ReadCounters = tuple[Counters, dict[tuple[str, str], str]]
"""Counters as read from an event, and their display names: kept only once the whole event
could be read."""


def plain(value: Any) -> Any:
    """An Avro-JSON union value without its branch: ``{"string": "x"}`` -> ``"x"``,
    ``{"org...JhCounters": {...}}`` -> ``{...}``; bare values and null as they are."""
    if isinstance(value, dict) and len(value) == 1:
        ((branch, inner),) = value.items()
        if branch in _AVRO_PRIMITIVES or branch.startswith(AVRO_NAMESPACE):
            return inner
    return value


@dataclass
class Attempt:
    """One task attempt: its start event and its end event (finished, failed or killed)."""

    attempt_id: str
    start_time: float = NAN
    finish_time: float = NAN
    status: str = ""
    """SUCCEEDED, FAILED or KILLED as Hadoop wrote it; '' while no end event was read."""
    tracker_name: str = ""
    host: str = ""
    rack: str = ""
    locality: str = ""
    avataar: str = ""
    map_finish_time: float = NAN
    shuffle_finish_time: float = NAN
    sort_finish_time: float = NAN
    error: str = ""
    counters: Counters = field(default_factory=dict)


@dataclass
class Task:
    """One task: its start and end events and its attempts, in the order they were logged."""

    task_id: str
    task_type: str
    scheduled_time: float = NAN
    finish_time: float = NAN
    status: str = ""
    """SUCCEEDED, FAILED or KILLED from TASK_FINISHED / TASK_FAILED; '' without one."""
    error: str = ""
    successful_attempt: str | None = None
    failed_due_to: str | None = None
    counters: Counters = field(default_factory=dict)
    attempts: dict[str, Attempt] = field(default_factory=dict)


@dataclass
class JobHistory:
    """Everything one job history file said about its job."""

    source: str
    job: dict[str, Any] = field(default_factory=dict)
    """Job fields as read, under their canonical column names (see ``tables``)."""
    counters: Counters = field(default_factory=dict)
    tasks: dict[str, Task] = field(default_factory=dict)
    counter_names: dict[tuple[str, str], str] = field(default_factory=dict)
    """(group, name) -> the counter's display name, for feature descriptions."""
    am_attempts: set[str] = field(default_factory=set)
    """The ApplicationMaster attempts AM_STARTED named."""
    ended: bool = False
    """Was the job's end event (JOB_FINISHED, JOB_FAILED, JOB_KILLED, JOB_ERROR) read?"""
    events: int = 0
    """Events applied (``logs.jhist`` counts them): with ``ended`` and the tasks, how complete
    one copy of a job's history is beside another."""
    last_line: int = 0
    """The file's last line read, and the type of its last event read: where a history that
    did not reach its end event stops (``logs.model.CutOff``)."""
    last_event: str = ""

    def keep_counters(self, read: ReadCounters) -> Counters:
        """The counters ``read_counters`` read, their display names remembered."""
        counters, names = read
        for key, name in names.items():
            self.counter_names.setdefault(key, name)
        return counters

    def task(self, task_id: str, task_type: str) -> Task:
        """The task, created if this is its first event (an attempt whose TASK_STARTED was not
        logged still counts)."""
        if task_id not in self.tasks:
            self.tasks[task_id] = Task(task_id, task_type)
        return self.tasks[task_id]

    def attempt(self, task_id: str, task_type: str, attempt_id: str) -> Attempt:
        attempts = self.task(task_id, task_type).attempts
        if attempt_id not in attempts:
            attempts[attempt_id] = Attempt(attempt_id)
        return attempts[attempt_id]


TEXT_FIELDS = frozenset(
    {
        "jobid", "jobName", "userName", "jobQueueName", "jobStatus", "diagnostics",
        "taskid", "taskType", "attemptId", "status", "taskStatus", "error", "trackerName",
        "hostname", "rackname", "locality", "avataar", "successfulAttemptId",
        "failedDueToAttempt",
    }
)  # fmt: skip
NUMBER_FIELDS = frozenset(
    {
        "submitTime", "launchTime", "finishTime", "startTime", "mapFinishTime",
        "shuffleFinishTime", "sortFinishTime", "totalMaps", "totalReduces", "finishedMaps",
        "finishedReduces", "failedMaps", "failedReduces",
    }
)  # fmt: skip
"""The fields the handlers read, by the type the schema gives them (a union's branch
unwrapped): the job-history reader's one check of a record's types (``wrong_type``)."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def wrong_type(body: Any) -> str | None:
    """The first field of an event record whose value has another type than the schema's
    (null stands for an absent optional field), or None: checked before a handler reads
    the record, so that a damaged field costs its line and nothing further down."""
    if not isinstance(body, dict):
        return "event"
    for name, value in body.items():
        value = plain(value)
        if value is None:
            continue
        if name in TEXT_FIELDS and not isinstance(value, str):
            return name
        if name in NUMBER_FIELDS and not _is_number(value):
            return name
    return None


def read_counters(value: Any) -> ReadCounters:
    """A ``JhCounters`` record (possibly null, wrapped or with no groups) as a flat dict and
    the counters' display names; changes nothing, so that an event failing later leaves no trace."""
    value = plain(value)
    out: Counters = {}
    names: dict[tuple[str, str], str] = {}
    if value is None:
        return out, names
    for group in value["groups"]:
        for count in group["counts"]:
            key = (group["name"], count["name"])
            if not (isinstance(key[0], str) and isinstance(key[1], str)):
                raise TypeError("counter name")
            if not _is_number(count["value"]):
                raise TypeError("counter value")
            out[key] = float(count["value"])
            names.setdefault(key, count.get("displayName") or count["name"])
    return out, names


def _identity(body: dict, name: str) -> str:
    """An id the event cannot go without: ``wrong_type`` lets a null pass as an absent
    optional field, but a task keyed by None is no task (and cannot be sorted among others)."""
    value = body[name]
    if value is None:
        raise KeyError(name)
    return value


def _task_ref(body: dict) -> tuple[str, str]:
    """(task id, task type) of a task or attempt event."""
    return _identity(body, "taskid"), _identity(body, "taskType")


def _attempt_ref(body: dict) -> tuple[str, str, str]:
    return (*_task_ref(body), _identity(body, "attemptId"))


def _update(target: Any, values: dict[str, Any]) -> None:
    for name, value in values.items():
        setattr(target, name, value)


def _update_job(history: JobHistory, body: dict, fields: dict[str, Any]) -> None:
    """Set the job's fields, after taking its id from the event when it is not known yet;
    ``fields`` were read before, and so is the id here."""
    job_id = _identity(body, "jobid")
    history.job.setdefault("id", job_id)
    history.job.update(fields)


def _job_submitted(history: JobHistory, body: dict) -> None:
    _update_job(
        history,
        body,
        dict(
            name=body["jobName"],
            user=body["userName"],
            submit_time=float(body["submitTime"]),
            queue=plain(body.get("jobQueueName")) or "",
        ),
    )


def _job_inited(history: JobHistory, body: dict) -> None:
    fields = dict(
        launch_time=float(body["launchTime"]),
        num_map_tasks=body["totalMaps"],
        num_reduce_tasks=body["totalReduces"],
    )
    if body.get("uberized") is not None:
        fields["uberized"] = "T" if body["uberized"] else "F"
    _update_job(history, body, fields)


def _job_info_changed(history: JobHistory, body: dict) -> None:
    _update_job(
        history,
        body,
        dict(submit_time=float(body["submitTime"]), launch_time=float(body["launchTime"])),
    )


def _job_queue_changed(history: JobHistory, body: dict) -> None:
    _update_job(history, body, dict(queue=plain(body["jobQueueName"])))


def _job_ended(body: dict, status: str) -> dict[str, Any]:
    """The fields every end of a job sets: its status, when, and the tasks that finished."""
    return dict(
        status=status,
        finish_time=float(body["finishTime"]),
        finished_maps=body["finishedMaps"],
        finished_reduces=body["finishedReduces"],
    )


def _job_finished(history: JobHistory, body: dict) -> None:
    fields = _job_ended(body, "SUCCEEDED") | dict(
        failed_maps=body["failedMaps"], failed_reduces=body["failedReduces"]
    )
    counters = read_counters(body.get("totalCounters"))
    _update_job(history, body, fields)
    history.counters, history.ended = history.keep_counters(counters), True


def _job_unsuccessful(history: JobHistory, body: dict) -> None:
    """JOB_FAILED, JOB_KILLED and JOB_ERROR: one record, the status says which."""
    _update_job(
        history,
        body,
        _job_ended(body, body["jobStatus"])
        | dict(failure_reason=plain(body.get("diagnostics")) or ""),
    )
    history.ended = True


def _am_started(history: JobHistory, body: dict) -> None:
    """One more ApplicationMaster attempt, counted once however often its event is logged."""
    history.am_attempts.add(str(plain(body.get("applicationAttemptId")) or sorted(body.items())))
    history.job["am_attempts"] = len(history.am_attempts)


def _task_started(history: JobHistory, body: dict) -> None:
    start, ref = float(body["startTime"]), _task_ref(body)
    history.task(*ref).scheduled_time = start


def _task_finished(history: JobHistory, body: dict) -> None:
    _task_ended(
        history,
        body,
        status="SUCCEEDED",
        successful_attempt=plain(body.get("successfulAttemptId")) or None,
    )


def _task_failed(history: JobHistory, body: dict) -> None:
    _task_ended(
        history,
        body,
        status=body.get("status") or "FAILED",
        error=body.get("error") or "",
        failed_due_to=plain(body.get("failedDueToAttempt")) or None,
    )


def _task_ended(history: JobHistory, body: dict, **values: Any) -> None:
    """Record a task's end; ``values`` holds the fields of its kind of end, already read."""
    ref = _task_ref(body)
    values["finish_time"] = float(body["finishTime"])
    _update(history.task(*ref), values | _counters(history, body))


def _attempt_started(history: JobHistory, body: dict) -> None:
    ref = _attempt_ref(body)
    values = dict(
        start_time=float(body["startTime"]),
        tracker_name=body.get("trackerName") or "",
        locality=plain(body.get("locality")) or "",
        avataar=plain(body.get("avataar")) or "",
    )
    _update(history.attempt(*ref), values)


def _attempt_ended(history: JobHistory, body: dict, status: str, **more: Any) -> None:
    """Record an attempt's end; ``more`` holds the fields of its kind of end, already read."""
    ref = _attempt_ref(body)
    values = dict(
        status=status,
        finish_time=float(body["finishTime"]),
        host=body.get("hostname") or "",
        rack=plain(body.get("rackname")) or "",
    )
    _update(history.attempt(*ref), values | more | _counters(history, body))


def _counters(history: JobHistory, body: dict) -> dict[str, Counters]:
    """An end event's counters, as the ``counters`` field of the task or attempt it ends."""
    return {"counters": history.keep_counters(read_counters(body.get("counters")))}


def _attempt_finished(history: JobHistory, body: dict) -> None:
    """SETUP_/CLEANUP_ATTEMPT_FINISHED (``TaskAttemptFinished``)."""
    _attempt_ended(history, body, body["taskStatus"])


def _map_attempt_finished(history: JobHistory, body: dict) -> None:
    _attempt_ended(history, body, body["taskStatus"], map_finish_time=float(body["mapFinishTime"]))


def _reduce_attempt_finished(history: JobHistory, body: dict) -> None:
    _attempt_ended(
        history,
        body,
        body["taskStatus"],
        shuffle_finish_time=float(body["shuffleFinishTime"]),
        sort_finish_time=float(body["sortFinishTime"]),
    )


def _attempt_unsuccessful(history: JobHistory, body: dict) -> None:
    """*_ATTEMPT_FAILED and *_ATTEMPT_KILLED (``TaskAttemptUnsuccessfulCompletion``); its
    counters are absent before Hadoop 2.4 and null or empty after."""
    _attempt_ended(history, body, body["status"], error=body.get("error") or "")


Handler = Callable[[JobHistory, dict], None]

HANDLERS: dict[str, Handler] = {
    "JOB_SUBMITTED": _job_submitted,
    "JOB_INITED": _job_inited,
    "JOB_INFO_CHANGED": _job_info_changed,
    "JOB_QUEUE_CHANGED": _job_queue_changed,
    "JOB_FINISHED": _job_finished,
    "JOB_FAILED": _job_unsuccessful,
    "JOB_KILLED": _job_unsuccessful,
    "JOB_ERROR": _job_unsuccessful,
    "AM_STARTED": _am_started,
    "TASK_STARTED": _task_started,
    "TASK_FINISHED": _task_finished,
    "TASK_FAILED": _task_failed,
    "MAP_ATTEMPT_FINISHED": _map_attempt_finished,
    "REDUCE_ATTEMPT_FINISHED": _reduce_attempt_finished,
    "SETUP_ATTEMPT_FINISHED": _attempt_finished,
    "CLEANUP_ATTEMPT_FINISHED": _attempt_finished,
    **{
        f"{kind}_ATTEMPT_STARTED": _attempt_started
        for kind in ("MAP", "REDUCE", "SETUP", "CLEANUP")
    },
    **{
        f"{kind}_ATTEMPT_{end}": _attempt_unsuccessful
        for kind in ("MAP", "REDUCE", "SETUP", "CLEANUP")
        for end in ("FAILED", "KILLED")
    },
}
"""Event type -> how it changes the job's history."""

IGNORED = frozenset(
    {"JOB_PRIORITY_CHANGED", "JOB_STATUS_CHANGED", "TASK_UPDATED", "NORMALIZED_RESOURCE"}
)
"""Hadoop events that say nothing the tables hold: not reported as skipped."""
