"""The straggler analysis of a log, kept in the log's table-cache entry (logs.cache).

Every command that lists, explains or reports stragglers needs the analysis of all the log's
tasks first: about 0.2 s on a 150,000-task log, more than reading its tables back. What it
finds depends only on the tables, which the entry's key names, and on this package's code,
whose digest names what is kept. So the first command keeps it and the next ones read it
back, while both are unchanged. A log without an entry (the cache off, a REST API, a store,
a merged or joined log) is analysed anew each time.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from perfx.logs.cache import keep_beside, read_beside
from perfx.logs.model import Log

from .stragglers import StragglerReport, find_stragglers

_FRAMES = ("tasks", "stages")


@cache
def code_digest() -> str:
    """A digest of this package's source: what the kept analysis was computed by."""
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def straggler_analysis(log: Log) -> StragglerReport:
    """``find_stragglers`` of ``log``'s tasks, read back from the log's entry when an earlier
    command kept it, else computed and kept there."""
    name = f"stragglers-{code_digest()}"
    if (kept := read_beside(log, name)) is not None:
        frames, meta = kept
        if set(frames) == set(_FRAMES):
            return StragglerReport(frames["tasks"], frames["stages"], tuple(meta["causes"]))
    report = find_stragglers(log.tasks)
    keep_beside(
        log,
        name,
        {"tasks": report.tasks, "stages": report.stages},
        {"causes": list(report.causes)},
    )
    return report
