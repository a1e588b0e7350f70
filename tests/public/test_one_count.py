"""One count everywhere: on every public log, ``perfx logs``, ``perfx report``, a store the
log was ingested into (``perfx ingest``, then the store's own tables) and the REPL say the same
number of applications, jobs, stages and tasks.

Each log is read twice, no more: once from its files (the session ``perfx logs``, the report
and the REPL share) and once by ``perfx ingest`` into a store of its own; the store is then
read back from its Parquet tables."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from rich.console import Console

import perfx
from perfx.logs.store.ingest import ingest
from perfx.logs.store.manifest import DATA
from perfx.report.overview import app_counts, applications
from perfx.results.summary import LogSummary
from tests.data_files import PUBLIC

pytestmark = pytest.mark.slow  # every log of the public corpus, read and ingested

CORPUS = PUBLIC
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())
KINDS = ("apps", "jobs", "stages", "tasks")


def _ingested(path: Path, where: Path) -> Path:
    """``path`` ingested into a store of its own (two public logs share an application id,
    and a store keeps one partition per application)."""
    report = ingest([str(path)], str(where), workers=1)
    assert not report.failed, report.failed
    return where


def _store_log(store: Path, path: Path):
    """The part of the store ingested from ``path`` (a log, or a folder of logs), read back
    as a log, and its entries."""
    from perfx.logs.store.read import Selection, open_store, read_selection

    opened = open_store(store)
    inside = [
        e
        for e in opened.entries
        if Path(e.source).resolve() == path.resolve() or path.resolve() in Path(e.source).parents
    ]
    assert inside, f"nothing of {path} in the store"
    return read_selection(opened, Selection(inside)), inside


def _counts(summary) -> dict[str, int]:
    return {k: summary.data[k] for k in KINDS}


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["path"] for e in MANIFEST])
def test_logs_report_store_and_repl_count_alike(entry, tmp_path, monkeypatch):
    path = CORPUS / entry["path"]
    session = perfx.open([path])
    said = _counts(session.summary())  # what perfx logs prints
    assert said["tasks"] > 0 or said["jobs"] > 0, said

    # perfx report: its overview's facts, per application, add up to the log's counts
    log = session.log
    apps = applications(log)
    per_app = [app_counts(app, log) for app in apps]
    report = {k: sum(c[k] for c in per_app) for k in KINDS if k != "apps"}
    assert {"apps": len(apps), **report} == said

    # the REPL's load line is perfx logs' sentence (the REPL loads the session read above)
    from perfx.repl import ReplSession

    monkeypatch.setattr("perfx.session.open", lambda paths, **options: session)
    out = io.StringIO()
    repl = ReplSession(console=Console(file=out, width=1000))
    repl.load([str(path)])
    assert session.summary().headline().text in out.getvalue()

    # the store: the partitions ingested from this log, read back as a log, and their tables
    store = _ingested(path, tmp_path / "store")
    stored, entries = _store_log(store, path)
    assert _counts(LogSummary.of(stored)) == said
    rows = {
        table: sum(
            pq.read_metadata(store / DATA / f"app={e.partition}" / f"{table}.parquet").num_rows
            for e in entries
            if table in e.schemas
        )
        for table in ("apps", "jobs", "tasks")
    }
    raw = session.raw
    assert rows == {"apps": len(raw.apps), "jobs": len(raw.jobs), "tasks": len(raw.tasks)}
    assert sum(e.tasks for e in entries) == said["tasks"]


def test_logs_of_three_formats_read_together_count_alike():
    """A Spark event log, a MapReduce job history and an Ousterhout job log read together:
    three applications (the MapReduce job belongs to neither of the others), the same counts
    in ``perfx logs`` and the report, and the Spark version the Spark log's (the others have
    none: their missing versions once ended the summary in an internal error)."""
    from tests.data_files import fixture_log

    paths = [
        fixture_log("spark-events/app-20161115172038-0000"),
        CORPUS / next(e["path"] for e in MANIFEST if e["path"].endswith(".jhist")),
        fixture_log("ousterhout-traces/test_files/test_job_log"),
    ]
    alone = [_counts(perfx.open([p], cache=False).summary()) for p in paths]
    session = perfx.open(paths, cache=False)
    summary = session.summary()
    said = _counts(summary)
    assert said == {k: sum(counts[k] for counts in alone) for k in KINDS}
    assert said["apps"] == 3
    apps = applications(session.log)
    per_app = [app_counts(app, session.log) for app in apps]
    assert {"apps": len(apps), **{k: sum(c[k] for c in per_app) for k in KINDS[1:]}} == said
    assert summary.data["spark_versions"] == ["2.1.0-SNAPSHOT"]
