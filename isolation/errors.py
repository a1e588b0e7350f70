"""Errors of record-level isolation: one readable line each, exit code 1.

The CLI registers ``IsolationError`` as a user error, so it prints as ``perfx: <msg>``. A
failure inside a Spark task reaches the driver wrapped in Java and Python tracebacks;
``from_job_failure`` digs the one line meant for the user back out of that text."""

from __future__ import annotations

import re


class IsolationError(Exception):
    """A traced run or a query on a stored run could not be done as asked."""

    exit_code = 1


class UdfError(IsolationError):
    """A user function raised on one record; the message names the record and its input."""


class StoreError(IsolationError):
    """A lineage store could not be reached, written or read."""


class PlainSideError(IsolationError, AttributeError):
    """PySpark's own RDD code was given a traced dataset (a plain RDD joined with one): an
    AttributeError too, so that PySpark's ``hasattr`` probes of an RDD's attributes still
    read it as absent."""


_MARKERS = ("UdfError", "StoreError", "IsolationError")
_LINE = re.compile(rf"(?:perfx\.isolation\.errors\.)?({'|'.join(_MARKERS)}): (.+)")


def from_job_failure(err: BaseException) -> IsolationError | None:
    """The IsolationError a task raised, recovered from a failed Spark job, or None when the
    job failed for another reason (then the caller reports the Spark error itself)."""
    found = _LINE.findall(str(err))
    if not found:
        return None
    kind, message = found[-1]
    return {"UdfError": UdfError, "StoreError": StoreError}.get(kind, IsolationError)(
        message.strip()
    )


def attach_reading(err: BaseException, reading: IsolationError) -> None:
    """``err`` (Spark's own error for a failed job) carrying perfx's reading of it: a traced
    script must meet the error plain PySpark raises (its ``except PythonException`` caught
    perfx's UdfError in no traced run, and a script printing the type it caught printed
    another), and perfx reports the reading if the script does not catch it."""
    err.perfx_reading = reading  # type: ignore[attr-defined]


def perfx_reading(err: BaseException) -> IsolationError | None:
    """perfx's reading of a failed job's error (``attach_reading``), if it has one."""
    found = getattr(err, "perfx_reading", None)
    return found if isinstance(found, IsolationError) else None
