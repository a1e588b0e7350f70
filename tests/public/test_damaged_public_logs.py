"""Every public log, its events duplicated and reordered (a task's start after its end, lines
swapped, a stretch shuffled, lines replayed), gives the same tables and the same answers as
the original: the reader merges events by their keys, whatever their order or number."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pandas as pd
import pytest
import zstandard

from perfx.session import open as open_session
from tests.data_files import PUBLIC
from tests.logs import damage
from tests.logs.fuzzing import plain_bytes

pytestmark = pytest.mark.slow  # every log of the public corpus, damaged several ways

CORPUS = PUBLIC
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())
REORDERINGS = ("start_after_end", "swap_lines", "shuffle_lines", "duplicate_lines")
"""Damages that keep every event whole, all done to each file of each log."""


def reordered(source: Path, into: Path, seed: int) -> Path:
    """A copy of the log at ``source`` (a file or a folder of parts) under ``into``, each
    file's events reordered and repeated, compressed as the original was."""
    copy = into / source.name
    if source.is_dir():
        shutil.copytree(source, copy)
    else:
        shutil.copy(source, copy)
    rng = random.Random(seed)
    for path in [copy] if copy.is_file() else sorted(p for p in copy.rglob("*") if p.is_file()):
        data = plain_bytes(path)
        header = 2 if data.startswith(b"Avro-Json") else 0
        for name in REORDERINGS:
            data = damage.DAMAGES[name](data, rng, header)
        if path.read_bytes()[:4] == b"\x28\xb5\x2f\xfd":
            data = zstandard.ZstdCompressor(write_content_size=False).compress(data)
        path.write_bytes(data)
    return copy


def _tables(session) -> dict[str, pd.DataFrame]:
    """The log's four tables, rows by id, without the path it was read from."""
    log = session.raw
    tables = {}
    for entity in ("task", "stage", "job", "app"):
        table = log.table(entity).drop(columns=["source"], errors="ignore")
        if "id" in table.columns:
            table = table.sort_values("id", kind="stable").reset_index(drop=True)
        tables[entity] = table
    return tables


def _answers(session) -> dict[str, object]:
    answers: dict[str, object] = {
        "stragglers": session.stragglers().to_dict(),
        "whatif": session.whatif().to_dict(),
    }
    tasks = session.raw.tasks
    if len(tasks) > 2:
        slowest = tasks.sort_values(["duration", "id"]).iloc[-1]["id"]
        answers["explain"] = session.explain(f"WHY TASK '{slowest}' SLOWER", sample=300).to_dict()
    return answers


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["path"] for e in MANIFEST])
def test_reordered_and_repeated_events_give_the_same_tables_and_answers(entry, tmp_path):
    source = CORPUS / entry["path"]
    original = open_session([str(source)])
    damaged = open_session([str(reordered(source, tmp_path, seed=len(entry["path"])))])
    for entity, table in _tables(original).items():
        pd.testing.assert_frame_equal(_tables(damaged)[entity], table, obj=entity)
    # a repeated task end is counted and dropped: the damaged log says so, the original not
    assert all(
        s.reason.startswith("duplicate event")
        for s in damaged.raw.skipped[len(original.raw.skipped) :]
    )
    try:
        expected = _answers(original)
    except Exception as err:  # a log too small to answer: the copy fails alike
        with pytest.raises(type(err)):
            _answers(damaged)
        return
    assert _answers(damaged) == expected
