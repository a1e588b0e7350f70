"""Hadoop MapReduce job history files (``.jhist``) -> a ``Log`` with ``job`` and ``task`` tables.

The MapReduce ApplicationMaster writes one file per job: line 1 ``Avro-Json``, line 2 the Avro
schema of its events, then one event per line (``events`` applies them,
``tables`` makes the tables). A file is recognised by its first line, not its
name, and may be compressed with any codec the event-log opener reads (``logs.eventlog.open``
recognises it from the bytes). As in Spark event logs, a line that cannot be used — malformed
JSON, a truncated tail, an unknown event, an event without the fields it needs — is skipped
and counted, never fatal.

Files in Hadoop's done directory are named with the job's summary,
``jobId-submitTime-user-jobName-finishTime-maps-reduces-status-queue[-launchTime].jhist``
(URL-escaped, ``-`` as ``%2D``). The events take precedence; the name stands in for what a
truncated file no longer says (its end event: status, finish time, finished maps and reduces).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote_plus

import orjson

from ..eventlog.open import (
    IGNORED_SUFFIXES,
    EventLogSource,
    broken_stream,
    codec_of,
    iter_lines,
    sniff,
)
from ..model import CutOff, Log, SkippedLine
from .events import HANDLERS, IGNORED, JobHistory, plain, wrong_type
from .tables import build_tables

HEADER = b"Avro-Json"
SUFFIX = ".jhist"
_SCHEMA_PREFIX = b'{"type":"record"'
_BINARY_HEADER = b"Avro-Binary"
_DONE_NAME = re.compile(
    r"^(job_\d+_\d+)-(\d+)-([^-]*)-([^-]*)-(\d+)-(-?\d+)-(-?\d+)-([A-Z]+)-([^-]*?)(?:-(\d+))?\.jhist"
)
"""A done file's name. The queue may hold dots (Fair Scheduler queues are ``root.users.alice``):
only ``-`` separates fields, Hadoop escapes it inside them."""
_JOB_ID = re.compile(r"job_\d+_\d+")
"""A job id at the start of a file name: done files (``job_..._0001-<submit>-...``) and staging
copies (``job_..._0001_1.jhist``, ``_1`` the ApplicationMaster attempt) alike."""

Skip = Callable[[str, int, str], None]


def is_job_history(path: Path) -> bool:
    """Is ``path`` a file whose (decompressed) bytes start with ``Avro-Json``?"""
    try:
        return sniff(path).head.startswith(HEADER)
    except OSError:
        return False


def not_a_history(path: Path) -> str:
    """Why ``path``, named like a job history, cannot be read as one."""
    try:
        sniffed = sniff(path)
    except OSError as err:
        return f"cannot be read: {err}"
    if sniffed.broken:
        return broken_stream(sniffed)
    if sniffed.head.startswith(_BINARY_HEADER):
        return (
            "binary Avro job history (Hadoop 3's default): perfx reads the JSON format "
            "(mapreduce.jobhistory.jhist.format=json)"
        )
    return f"not a Hadoop job history file (its first line is not {HEADER.decode()})"


def find_job_histories(directory: Path, skip: Skip) -> list[Path]:
    """The job history files under ``directory``, recursively (hidden files and ``.crc``
    checksums passed over, as for event logs); a ``.jhist`` file that is not one is reported
    through ``skip(path, 0, reason)``."""
    found = []
    for path in sorted(directory.rglob("*")):
        hidden = any(part.startswith(".") for part in path.relative_to(directory).parts)
        if hidden or path.name.endswith(IGNORED_SUFFIXES) or not path.is_file():
            continue
        if is_job_history(path):
            found.append(path)
        elif path.suffix == SUFFIX:
            skip(str(path), 0, not_a_history(path))
    return found


def name_summary(name: str) -> dict:
    """The job fields a done file's name holds, or {} if ``name`` is not such a name."""
    match = _DONE_NAME.match(name)
    if match is None:
        return {}
    job_id, submit, user, job_name, finish, maps, reduces, status, queue, launch = match.groups()
    summary = {
        "id": job_id,
        "submit_time": float(submit),
        "user": unquote_plus(user),
        "name": unquote_plus(job_name),
        "finish_time": float(finish),
        "status": status,
        "queue": unquote_plus(queue),
    }
    if int(maps) >= 0:  # -1: unknown when the name was made
        summary["finished_maps"] = int(maps)
    if int(reduces) >= 0:
        summary["finished_reduces"] = int(reduces)
    if launch:
        summary["launch_time"] = float(launch)
    return summary


def _apply(history: JobHistory, text: bytes, truncated: bool) -> str | None:
    """Apply one event line; returns why it cannot be used, or None."""
    try:
        record = orjson.loads(text)
    except orjson.JSONDecodeError as err:
        # the event-log validator (which builds msgspec's decoders) only for a bad line: the
        # registry imports this module to find histories, on every command
        from ..eventlog.validate import unparsable

        return unparsable(err, text + (b"" if truncated else b"\n"))
    kind = record.get("type") if isinstance(record, dict) else None
    if not isinstance(kind, str) or "event" not in record:
        return "not an event"
    history.last_event = kind
    if kind in IGNORED:
        return None
    handler = HANDLERS.get(kind)
    if handler is None:
        return f"unknown event {kind!r}"
    body = plain(record["event"])
    if (field := wrong_type(body)) is not None:
        return f"wrong type for {field}"
    try:
        handler(history, body)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        return f"{kind} without usable {err}"
    history.events += 1
    return None


def _kept_in(lines: list[SkippedLine]) -> Skip:
    """A skip callback that appends the lines it is told about to ``lines``."""

    def skip(name: str, line: int, reason: str) -> None:
        lines.append(SkippedLine(name, line, reason))

    return skip


def read_job_history(path: Path, skip: Skip) -> JobHistory:
    """One file's job; bad lines go to ``skip``. The job always has an id: from its events,
    else from the file name (its leading job id, else the name up to its first ``-``)."""
    history = JobHistory(str(path))
    for name, number, line in iter_lines(EventLogSource(path, (path,), (codec_of(path),)), skip):
        text = line.strip()
        if not text or (number == 1 and text == HEADER) or text.startswith(_SCHEMA_PREFIX):
            continue
        history.last_line = number
        reason = _apply(history, text, truncated=not line.endswith(b"\n"))
        if reason is not None:
            skip(name, number, reason)
    for key, value in name_summary(path.name).items():
        history.job.setdefault(key, value)
    named = _JOB_ID.match(path.name)
    history.job.setdefault("id", named.group(0) if named else re.split(r"-|\.jhist", path.name)[0])
    return history


def completeness(history: JobHistory) -> tuple[bool, int, int]:
    """How complete one copy of a job's history is, to choose among copies: one that reached
    the job's end event first, then the one with more tasks, then more events."""
    return history.ended, len(history.tasks), history.events


def read_job_histories(paths: list[Path]) -> Log:
    """The jobs of ``paths`` (job history files) as one Log.

    A job met in several files (a staging copy cut off when its ApplicationMaster died beside
    the done-directory file, copied folders) is read from its most complete file (see
    ``completeness``; among equals the first in ``paths``); each other file is reported as
    its duplicate, and the lines skipped in it are not listed."""
    read: list[tuple[Path, JobHistory, list[SkippedLine]]] = []
    for path in paths:
        lines: list[SkippedLine] = []
        history = read_job_history(path, _kept_in(lines))
        read.append((path, history, lines))
    best: dict[str, tuple[Path, JobHistory, list[SkippedLine]]] = {}
    for copy in read:
        job_id = copy[1].job["id"]
        if job_id not in best or completeness(copy[1]) > completeness(best[job_id][1]):
            best[job_id] = copy
    histories: list[JobHistory] = []
    skipped: list[SkippedLine] = []
    duplicates: list[SkippedLine] = []
    for path, history, lines in read:
        job_id = history.job["id"]
        if best[job_id][1] is history:
            histories.append(history)
            skipped.extend(lines)
        else:
            duplicates.append(
                SkippedLine(str(path), 0, f"duplicate of job {job_id}, read from {best[job_id][0]}")
            )
    tasks, jobs, registry = build_tables(histories)
    return Log(
        tasks=tasks,
        jobs=jobs,
        registry=registry,
        skipped=skipped + duplicates,
        sources=[str(p) for p in paths],
        cut_off=[CutOff(h.source, h.last_line, h.last_event) for h in histories if not h.ended],
    )
