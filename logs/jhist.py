"""Hadoop MapReduce job history files (``.jhist``) -> a ``Log`` with ``job`` and ``task`` tables.

The MapReduce ApplicationMaster writes one file per job: line 1 ``Avro-Json``, line 2 the Avro
schema of its events, then one event per line (``logs.jhist_events`` applies them,
``logs.jhist_tables`` makes the tables). A file is recognised by its first line, not its
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
from pathlib import Path
from typing import Callable
from urllib.parse import unquote_plus

import orjson

from .eventlog.open import IGNORED_SUFFIXES, EventLogSource, codec_of, iter_lines, sniff
from .jhist_events import HANDLERS, IGNORED, JobHistory, plain
from .jhist_tables import build_tables
from .model import Log, SkippedLine

HEADER = b"Avro-Json"
SUFFIX = ".jhist"
_SCHEMA_PREFIX = b'{"type":"record"'
_BINARY_HEADER = b"Avro-Binary"
_DONE_NAME = re.compile(
    r"^(job_\d+_\d+)-(\d+)-([^-]*)-([^-]*)-(\d+)-(-?\d+)-(-?\d+)-([A-Z]+)-([^-.]*)(?:-(\d+))?\.jhist"
)

Skip = Callable[[str, int, str], None]


def is_job_history(path: Path) -> bool:
    """Is ``path`` a file whose (decompressed) bytes start with ``Avro-Json``?"""
    try:
        return sniff(path)[1].startswith(HEADER)
    except OSError:
        return False


def not_a_history(path: Path) -> str:
    """Why ``path``, named like a job history, cannot be read as one."""
    try:
        codec, head = sniff(path)
    except OSError as err:
        return f"cannot be read: {err}"
    if codec is not None and not head:
        return f"its {codec} stream breaks before the first event"
    if head.startswith(_BINARY_HEADER):
        return ("binary Avro job history (Hadoop 3's default): perfx reads the JSON format "
                "(mapreduce.jobhistory.jhist.format=json)")
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
        "id": job_id, "submit_time": float(submit), "user": unquote_plus(user), "name": unquote_plus(job_name),
        "finish_time": float(finish), "status": status, "queue": unquote_plus(queue),
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
        return "truncated last line" if truncated else f"malformed JSON: {err}"
    kind = record.get("type") if isinstance(record, dict) else None
    if not isinstance(kind, str) or "event" not in record:
        return "not an event"
    if kind in IGNORED:
        return None
    handler = HANDLERS.get(kind)
    if handler is None:
        return f"unknown event {kind!r}"
    try:
        handler(history, plain(record["event"]))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        return f"{kind} without usable {err}"
    return None


def read_job_history(path: Path, skip: Skip) -> JobHistory:
    """One file's job; bad lines go to ``skip``. The job always has an id: from its events,
    else from the file name."""
    history = JobHistory(str(path))
    for name, number, line in iter_lines(EventLogSource(path, (path,), codec_of(path)), skip):
        text = line.strip()
        if not text or (number == 1 and text == HEADER) or text.startswith(_SCHEMA_PREFIX):
            continue
        reason = _apply(history, text, truncated=not line.endswith(b"\n"))
        if reason is not None:
            skip(name, number, reason)
    for key, value in name_summary(path.name).items():
        history.job.setdefault(key, value)
    history.job.setdefault("id", re.split(r"-|\.jhist", path.name)[0])
    return history


def read_job_histories(paths: list[Path]) -> Log:
    """The jobs of ``paths`` (job history files) as one Log; a job met twice (copied files) is
    read from its first file and the other reported."""
    skipped: list[SkippedLine] = []

    def skip(path: str, line: int, reason: str) -> None:
        skipped.append(SkippedLine(path, line, reason))

    histories: list[JobHistory] = []
    first_seen: dict[str, str] = {}
    for path in paths:
        history = read_job_history(path, skip)
        job_id = history.job["id"]
        if job_id in first_seen:
            skip(str(path), 0, f"duplicate of job {job_id} already read from {first_seen[job_id]}")
            continue
        first_seen[job_id] = str(path)
        histories.append(history)
    tasks, jobs, registry = build_tables(histories)
    return Log(tasks=tasks, jobs=jobs, registry=registry, skipped=skipped, sources=[str(p) for p in paths])
