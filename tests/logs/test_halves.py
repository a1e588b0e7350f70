"""A large plain log read on two cores (logs.eventlog.halves) gives the state a single pass
gives: the same tables, skipped lines and end of log, on real logs and on every damage the
fuzzer does to them (repeated, swapped, shuffled, cut, retyped lines), wherever the split
falls. Forking is forced here (a test worker has threads) and every log is split, whatever
its size."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from perfx.logs import background
from perfx.logs.eventlog import halves
from perfx.logs.eventlog.build import passed_over
from perfx.logs.eventlog.open import find_event_logs
from perfx.logs.loader import load_log
from tests.logs import damage
from tests.logs.fuzzing import SOURCES, plain_bytes
from tests.logs.same_log import assert_same_log

PLAIN = ("spark-2.3", "spark-1.5", "spark-yarn")


def _read(path: Path, monkeypatch: pytest.MonkeyPatch, split: bool):
    """The log at ``path``, read in two halves (``split``) or in one pass; and the splits."""
    splits: list[halves.Split] = []
    real = halves.read_later

    def counted(at: halves.Split, passed_over):
        splits.append(at)
        return real(at, passed_over)

    with monkeypatch.context() as patch:
        patch.setattr(background, "can_fork", lambda: split)
        patch.setattr(halves, "MIN_BYTES", 0)
        patch.setattr(halves, "read_later", counted)
        return load_log(str(path), cache=False), splits


def _same(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one, none = _read(path, monkeypatch, split=False)
    two, splits = _read(path, monkeypatch, split=True)
    assert none == []
    assert len(splits) == 1, "the log was not split"
    assert_same_log(two, one)


@pytest.mark.parametrize("source", PLAIN)
def test_a_log_read_in_two_halves_is_the_log_read_in_one(source, monkeypatch):
    _same(SOURCES[source][0], monkeypatch)


def _no_memory_file(*args):
    raise OSError("no memfd here")


@pytest.mark.parametrize("source", PLAIN)
def test_the_rows_are_sent_where_there_is_no_memory_file(source, monkeypatch):
    monkeypatch.setattr(halves.os, "memfd_create", _no_memory_file)
    _same(SOURCES[source][0], monkeypatch)


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="Linux's memory files")
def test_the_memory_file_is_closed_once_mapped(monkeypatch):
    made: list[int] = []
    real = os.memfd_create

    def counted(*args):
        made.append(real(*args))
        return made[-1]

    monkeypatch.setattr(halves.os, "memfd_create", counted)
    _same(SOURCES["spark-2.3"][0], monkeypatch)
    assert len(made) == 1
    try:
        now = os.readlink(f"/proc/self/fd/{made[0]}")  # another file's, if any
    except FileNotFoundError:
        now = ""
    assert "perfx-second-half" not in now


@pytest.mark.parametrize("kind", sorted(damage.DAMAGES))
@pytest.mark.parametrize("seed", range(4))
def test_a_damaged_log_read_in_two_halves_is_the_log_read_in_one(kind, seed, tmp_path, monkeypatch):
    source = PLAIN[seed % len(PLAIN)]
    path, header = SOURCES[source]
    damaged = damage.DAMAGES[kind](plain_bytes(path), random.Random(seed), header)
    (tmp_path / "app").write_bytes(damaged)
    try:
        _same(tmp_path / "app", monkeypatch)
    except AssertionError as err:
        if "not split" in str(err) and b"\n" not in damaged[len(damaged) // 2 : -1]:
            pytest.skip("no line begins in the log's second half")  # a cut near the start
        raise


def test_an_end_repeated_and_a_start_never_ended_in_the_second_half(tmp_path, monkeypatch):
    """The second half repeats a TaskEnd of the first (merged as a duplicate: read again
    from its offset) and holds a TaskStart whose task never ends (read again at the close)."""
    lines = plain_bytes(SOURCES["spark-2.3"][0]).splitlines(keepends=True)
    end = next(line for line in lines if line.startswith(b'{"Event":"SparkListenerTaskEnd"'))
    start = next(line for line in lines if line.startswith(b'{"Event":"SparkListenerTaskStart"'))
    never_ended = start.replace(b'"Task ID":', b'"Task ID":9', 1)
    (tmp_path / "app").write_bytes(b"".join([*lines, end, never_ended]))
    _same(tmp_path / "app", monkeypatch)
    log, _ = _read(tmp_path / "app", monkeypatch, split=True)
    assert any("duplicate event" in s.reason for s in log.skipped)
    assert (log.tasks["status"] == "UNKNOWN").sum() >= 1


def test_the_events_perfx_passes_over_are_not_sent_back(tmp_path, monkeypatch):
    """A log of SQL queries is mostly events perfx does not use: the child passes over them as
    the reader would, instead of sending their bytes back."""
    lines = plain_bytes(SOURCES["spark-2.3"][0]).splitlines(keepends=True)
    unused = b'{"Event":"SparkListenerExecutorMetricsUpdate","Executor ID":"1"}\n'
    (tmp_path / "app").write_bytes(b"".join(lines + [unused] * 1000))
    _same(tmp_path / "app", monkeypatch)
    monkeypatch.setattr(background, "can_fork", lambda: True)
    monkeypatch.setattr(halves, "MIN_BYTES", 0)
    (source,) = find_event_logs(tmp_path / "app", lambda *skipped: None)
    at = halves.split(source)
    assert at is not None
    half = halves._read_second_half(at, passed_over, None)
    assert len(half.kinds) > 500 and set(half.kinds) == set(halves.PASSED)  # all unused ones
    assert half.others == []
