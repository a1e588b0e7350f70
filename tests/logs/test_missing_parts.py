"""A rolled log that lacks a part is read without it and says so: a rolling ``eventlog_v2``
folder whose ``events_<N>_`` numbers skip one (Spark numbers them from 1; a compaction
replaces the first ones with a ``.compact`` part), a Databricks rolled log whose parts'
``Rollover Number`` (from 0) skips one. Never a partial log presented as whole."""

from __future__ import annotations

import shutil
from pathlib import Path

from perfx.logs.loader import load_log
from tests.data_files import fixture_log

ROLLING = fixture_log("spark-rapids-tools-events/eventlog_v2_local-1623876083964")
DATABRICKS = fixture_log("databricks-rolled/8880912756278443690")


def _copy(folder: Path, tmp_path: Path, keep) -> Path:
    """``folder`` copied under ``tmp_path`` (same name), with the files ``keep`` says yes to,
    each renamed to what it returns."""
    copy = tmp_path / folder.name
    copy.mkdir()
    for part in sorted(folder.iterdir()):
        if (name := keep(part.name)) is not None:
            shutil.copy(part, copy / name)
    return copy


def _missing(log) -> list[tuple[str, int, str]]:
    return [(s.path, s.line, s.reason) for s in log.skipped if "missing" in s.reason]


def test_a_rolling_log_without_a_part_says_which(tmp_path):
    whole = load_log(str(ROLLING), cache=False)
    assert _missing(whole) == []
    lacking = _copy(ROLLING, tmp_path, lambda n: None if n.startswith("events_1_") else n)
    log = load_log(str(lacking), cache=False)
    assert _missing(log) == [
        (str(lacking), 0, "rolling part events_1 missing: its events are not in the log")
    ]
    assert len(log.tasks) < len(whole.tasks)


def test_a_compacted_rolling_log_lacks_nothing(tmp_path):
    # the first part compacted: Spark renames it events_<N>_<app>.compact and deletes the
    # parts it holds (here none before it)
    compacted = _copy(
        ROLLING,
        tmp_path,
        lambda n: (
            n.replace("events_1_", "events_7_") + ".compact"
            if n.startswith("events_1_")
            else n.replace("events_2_", "events_8_")
        ),
    )
    log = load_log(str(compacted), cache=False)
    assert _missing(log) == []
    assert len(log.tasks) == len(load_log(str(ROLLING), cache=False).tasks)


def test_a_databricks_log_without_a_part_says_which(tmp_path):
    whole = load_log(str(DATABRICKS), cache=False)
    assert _missing(whole) == []
    lacking = _copy(DATABRICKS, tmp_path, lambda n: None if n.endswith("19-00.gz") else n)
    log = load_log(str(lacking), cache=False)
    ((path, line, reason),) = _missing(log)
    assert (Path(path).name, reason) == (
        "eventlog-2024-02-13--19-04.gz",
        "Databricks part 0 missing: its events are not in the log",
    )
    assert line >= 1
