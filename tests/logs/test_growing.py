"""An in-progress log read on from where its last read stopped (logs.eventlog.growing): at
every step of its growth, cut anywhere (inside a line too), the Log read through the cache
is the Log a whole read gives, skipped lines and their numbers included, and only the bytes
appended since the last read are read; a log rewritten rather than appended, or a state kept
by another version of the reader, is read from its start."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from perfx.logs import background
from perfx.logs.eventlog import growing, halves
from perfx.logs.loader import load_log
from tests.logs import damage
from tests.logs.fuzzing import SOURCES, plain_bytes
from tests.logs.same_log import assert_same_log

pytestmark = pytest.mark.usefixtures("home")  # tests/logs/conftest.py: a home of its own


@pytest.fixture
def read_bytes(monkeypatch) -> list[int]:
    """The bytes of the lines each read of an in-progress log read (one entry per read)."""
    counted: list[int] = []
    real = halves.lines_between

    def counting(*args, **kwargs):
        counted.append(0)
        for item in real(*args, **kwargs):
            counted[-1] += len(item[2])
            yield item

    monkeypatch.setattr(halves, "lines_between", counting)
    return counted


def _grow(data: bytes, path: Path, cuts: list[int], read_bytes: list[int]) -> None:
    """Write ``data`` up to each cut in turn, reading the log through the cache after each:
    after the first read, each reads only the lines appended since the one before."""
    done = 0
    for cut in cuts:
        path.write_bytes(data[:cut])
        reads = len(read_bytes)
        cached = load_log(str(path), cache=True)
        read_now = read_bytes[reads:]  # the whole read below may count its first half too
        assert_same_log(cached, load_log(str(path), cache=False))
        complete = data[:cut].rfind(b"\n") + 1  # a line being written is read again next time
        if done:
            assert read_now == [complete - done], "not only what was appended"
        done = complete


@pytest.mark.parametrize("fork", [True, False], ids=["state kept by a child", "kept here"])
@pytest.mark.parametrize("source", ["spark-2.3", "spark-1.5", "spark-yarn"])
def test_a_growing_log_read_on_is_the_log_read_whole(
    source, fork, tmp_path, read_bytes, monkeypatch
):
    # forked or not, the state kept is the one before the line being written was read; a
    # first read on two cores (its halves: eventlog.halves) stops at the last complete line
    monkeypatch.setattr(background, "can_fork", lambda: fork)
    monkeypatch.setattr(halves, "MIN_BYTES", 0)
    data = plain_bytes(SOURCES[source][0])
    rng = random.Random(source)
    cuts = sorted(rng.sample(range(1, len(data)), 6)) + [len(data)]
    _grow(data, tmp_path / "app-1.inprogress", cuts, read_bytes)


def test_a_damaged_growing_log_keeps_its_skipped_lines_and_numbers(tmp_path, read_bytes):
    path, header = SOURCES["spark-2.3"]
    data = damage.DAMAGES["garbage_lines"](plain_bytes(path), random.Random(3), header)
    data = damage.DAMAGES["duplicate_lines"](data, random.Random(4), header)
    cuts = [len(data) * k // 5 for k in range(1, 6)]
    _grow(data, tmp_path / "app-2.inprogress", cuts, read_bytes)
    assert load_log(str(tmp_path / "app-2.inprogress"), cache=True).skipped


def test_a_rewritten_log_is_read_from_its_start(tmp_path, read_bytes):
    data = plain_bytes(SOURCES["spark-2.3"][0])
    path = tmp_path / "app-3.inprogress"
    path.write_bytes(data[: len(data) // 2])
    load_log(str(path), cache=True)
    rewritten = data[: len(data) // 2].replace(
        b'"Spark Version":"2.3.0"', b'"Spark Version":"2.3.1"'
    )
    assert rewritten != data[: len(data) // 2]
    path.write_bytes(rewritten)
    assert_same_log(load_log(str(path), cache=True), load_log(str(path), cache=False))
    assert read_bytes[-1] == rewritten.rfind(b"\n") + 1  # every complete line, from the start


def test_a_state_kept_by_another_reader_is_not_read_on(tmp_path, read_bytes, monkeypatch):
    data = plain_bytes(SOURCES["spark-2.3"][0])
    path = tmp_path / "app-4.inprogress"
    path.write_bytes(data[: len(data) // 2])
    load_log(str(path), cache=True)
    monkeypatch.setattr(growing, "schema_version", lambda: "another reader")
    path.write_bytes(data)
    assert_same_log(load_log(str(path), cache=True), load_log(str(path), cache=False))
    assert read_bytes[-1] == len(data)


@pytest.mark.parametrize("source", ["spark-2.3", "spark-1.5", "spark-yarn"])
def test_a_first_read_on_two_cores_stops_at_the_last_complete_line(
    source, tmp_path, read_bytes, monkeypatch
):
    monkeypatch.setattr(background, "can_fork", lambda: True)
    monkeypatch.setattr(halves, "MIN_BYTES", 0)
    splits: list[halves.Split] = []
    real = halves.read_later
    monkeypatch.setattr(halves, "read_later", lambda at, over: splits.append(at) or real(at, over))
    data = plain_bytes(SOURCES[source][0])
    last_line = data.rstrip(b"\n").rfind(b"\n") + 1
    cuts = [last_line + 40, len(data)]  # the first read's file ends inside its last line
    _grow(data, tmp_path / "app-5.inprogress", cuts, read_bytes)
    # the first split is the cached read's (the whole reads compared with it split too)
    assert splits and splits[0].end == last_line, "the first read was not split"
