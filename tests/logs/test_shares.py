"""Several event logs read on every core (logs.eventlog.shares) give the Log one process
gives, reading them in order: the same tables, skipped lines (in the same order), ends of
logs and sources, over every public Spark log of the corpus at once (plain, compressed,
rolled, Databricks, in progress, damaged) and over a copy of a log beside its original,
which must be reported once, as a duplicate of the first. Forking is forced here (a test
worker may have threads), whatever the logs' size."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest

from perfx.logs import background
from perfx.logs.eventlog import shares
from perfx.logs.eventlog.open import find_event_logs
from perfx.logs.loader import load_log
from perfx.logs.model import Log
from tests.data_files import PUBLIC, fixture_log
from tests.logs import damage
from tests.logs.fuzzing import SOURCES, plain_bytes
from tests.logs.same_log import assert_same_log
from tests.logs.test_halves import PLAIN

SPARK = [
    str(PUBLIC / entry["path"])
    for entry in json.loads((PUBLIC / "manifest.json").read_text())
    if entry["kind"] == "spark"
]


def _read(paths: list[str], monkeypatch: pytest.MonkeyPatch, cores: int) -> tuple[Log, list]:
    """The Log of ``paths`` read with ``cores`` cores (1: in order, in this process), and the
    shares the sources were cut into."""
    cut: list[list] = []
    real = shares._shares

    def counted(sources):
        cut.extend(real(sources))
        return cut

    with monkeypatch.context() as patch:
        patch.setattr(background, "can_fork", lambda: cores > 1)
        patch.setattr(shares.os, "cpu_count", lambda: cores)
        patch.setattr(shares, "MIN_BYTES", 0)
        patch.setattr(shares, "_shares", counted)
        return load_log(paths, cache=False), cut


def _same(paths: list[str], monkeypatch: pytest.MonkeyPatch, cores: int) -> Log:
    one, in_one = _read(paths, monkeypatch, 1)
    spread, in_shares = _read(paths, monkeypatch, cores)
    assert len(in_one) == 1
    assert len(in_shares) == cores, "the sources were not shared out"
    assert [s.path for share in in_shares for s in share] == [s.path for s in in_one[0]]
    assert_same_log(spread, one)
    return spread


@pytest.mark.parametrize("cores", [2, 3])
def test_the_public_logs_read_on_every_core_are_the_logs_read_in_order(cores, monkeypatch):
    log = _same(SPARK, monkeypatch, cores)
    assert log.skipped, "the corpus has damaged lines: their order is part of the check"


@pytest.mark.parametrize("cores", [2, 3])
def test_damaged_logs_read_on_every_core_keep_their_skipped_lines_in_order(
    cores, tmp_path, monkeypatch
):
    for i, kind in enumerate(["garbage_lines", "retype_field", "flip_bytes"] * 2):
        path, header = SOURCES[PLAIN[i % len(PLAIN)]]
        damaged = damage.DAMAGES[kind](plain_bytes(path), random.Random(i), header)
        (tmp_path / f"{i}-{kind}").write_bytes(damaged)
    log = _same([str(tmp_path)], monkeypatch, cores)
    damaged_files = {s.path for s in log.skipped if s.line}
    assert len(damaged_files) >= cores, "each share should have skipped lines of its own"


def test_a_copy_read_by_another_core_is_reported_as_a_duplicate(tmp_path, monkeypatch):
    original = fixture_log("spark-events/local-1430917381534")
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(original, folder / "a-original")
    shutil.copy(original, folder / "b-copy")
    log = _same([str(folder)], monkeypatch, 2)
    assert [s.reason for s in log.skipped if s.path.endswith("b-copy")] == [
        f"duplicate of {log.apps['app_id'].iloc[0]} already read from {folder / 'a-original'}"
    ]
    assert len(log.apps) == 1


def test_a_share_whose_child_died_is_read_here(monkeypatch):
    # Background computes the share here when its child sends nothing back
    parent, real = os.getpid(), shares._read_apart

    def dies(sources):
        if os.getpid() != parent:
            os._exit(1)
        return real(sources)

    monkeypatch.setattr(shares, "_read_apart", dies)
    _same(SPARK[:6], monkeypatch, 2)


def test_logs_of_few_bytes_in_all_are_read_in_one_process(monkeypatch):
    sources = [s for p in SPARK[:3] for s in find_event_logs(Path(p), lambda *_: None)]
    monkeypatch.setattr(background, "can_fork", lambda: True)
    monkeypatch.setattr(shares.os, "cpu_count", lambda: 2)
    assert shares._shares(sources) == [sources]
    monkeypatch.setattr(shares, "MIN_BYTES", 0)
    assert len(shares._shares(sources)) == 2
