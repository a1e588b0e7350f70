"""The straggler analysis of a log, kept in the log's table-cache entry (logs.cache).

Every command that lists, explains or reports stragglers needs the analysis of all the log's
tasks first: about 0.2 s on a 150,000-task log, more than reading its tables back. What it
finds depends only on the tables, which the entry's key names, and on this package's code,
whose digest names what is kept. So the first command keeps it and the next ones read it
back, while both are unchanged. A log without an entry (the cache off, a REST API, a store,
a merged or joined log) is analysed anew each time.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd

from perfx.logs.cache import keep_beside, read_beside, source_digest
from perfx.logs.model import Log

from .stragglers import IDENTITY, StragglerReport, find_stragglers


@cache
def code_digest() -> str:
    """A digest of this package's source: what the kept analysis was computed by."""
    return source_digest(Path(__file__).parent)


def straggler_analysis(log: Log) -> StragglerReport:
    """``find_stragglers`` of ``log``'s tasks, read back from the log's entry when an earlier
    command kept it, else computed and kept there.

    Only the computed columns of the report's rows are kept: their first columns are the task
    table's (``IDENTITY``), taken from it again by the rows' index when read back. That
    halves what is written and read (those are the text columns)."""
    name = f"stragglers-{code_digest()}"
    kept = read_beside(log, name)
    if kept is not None and (rebuilt := _rebuilt(log, *kept)) is not None:
        return rebuilt
    report = find_stragglers(log.tasks)
    identity = [c for c in IDENTITY if c in report.tasks.columns]
    keep_beside(
        log,
        name,
        {"computed": report.tasks.drop(columns=identity), "stages": report.stages},
        {"causes": list(report.causes), "identity": identity},
    )
    return report


def _rebuilt(log: Log, frames: dict[str, pd.DataFrame], meta: dict) -> StragglerReport | None:
    """The report kept as ``frames`` and ``meta``, or None if they do not fit ``log``."""
    computed, stages = frames.get("computed"), frames.get("stages")
    identity = meta.get("identity")
    if (
        computed is None
        or stages is None
        or not isinstance(identity, list)
        or not set(identity) <= set(log.tasks.columns)
        or not computed.index.isin(log.tasks.index).all()
    ):
        return None
    same_rows = computed.index.equals(log.tasks.index)  # all the tasks, in order: no lookup
    rows = log.tasks[identity] if same_rows else log.tasks.loc[computed.index, identity]
    return StragglerReport(
        pd.concat([rows, computed], axis=1), stages, tuple(meta.get("causes", ()))
    )
