"""Archived copies of logs: bzip2 and xz event logs and job histories load like the plain
files, recognised by their bytes; and a compressed stream that breaks before its first event
is no application, only a file perfx says it cannot read. Files built here from small public
logs (tests/data/public)."""

from __future__ import annotations

import bz2
import hashlib
import lzma
import re
import shutil

import pandas as pd
import pytest
import zstandard

from perfx.cli import main
from perfx.logs.errors import CorruptStream
from perfx.logs.eventlog.codecs import LZ4_MAGIC
from perfx.logs.loader import load_log
from tests.data_files import PUBLIC

SPARK = PUBLIC / "qubole__sparklens" / "local-1532512550423"
JHIST = (
    PUBLIC
    / "linkedin__dr-elephant"
    / (
        "job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist"
    )
)
GARBAGE = hashlib.sha256(b"perfx").digest() * 8
"""Bytes that are no stream of any codec, the same in every run."""

ARCHIVERS = {  # each half a stream of its own, as pbzip2 and pixz write them
    "bz2": lambda data: bz2.compress(data[: len(data) // 2]) + bz2.compress(data[len(data) // 2 :]),
    "xz": lambda data: (
        lzma.compress(data[: len(data) // 2]) + lzma.compress(data[len(data) // 2 :])
    ),
}


@pytest.mark.parametrize("suffix", ARCHIVERS)
def test_archived_event_log_loads_like_the_plain_one(tmp_path, suffix) -> None:
    path = tmp_path / f"renamed.{suffix}.log"  # the name says nothing: the bytes do
    path.write_bytes(ARCHIVERS[suffix](SPARK.read_bytes()))
    plain, packed = load_log(SPARK), load_log(path)
    assert packed.skipped == []
    for entity in ("task", "stage", "job"):
        pd.testing.assert_frame_equal(packed.table(entity), plain.table(entity))
    assert packed.apps.drop(columns="source").equals(plain.apps.drop(columns="source"))


@pytest.mark.parametrize("suffix", ARCHIVERS)
def test_archived_job_history_loads_like_the_plain_one(tmp_path, suffix) -> None:
    path = tmp_path / f"{JHIST.name}.{suffix}"
    path.write_bytes(ARCHIVERS[suffix](JHIST.read_bytes()))
    plain, packed = load_log(JHIST), load_log(path)
    assert packed.skipped == []
    pd.testing.assert_frame_equal(packed.tasks, plain.tasks)
    pd.testing.assert_frame_equal(
        packed.jobs.drop(columns="source"), plain.jobs.drop(columns="source")
    )


@pytest.mark.parametrize("suffix, codec", [("bz2", "bzip2"), ("xz", "xz")])
def test_archive_cut_short_keeps_the_first_stream(tmp_path, suffix, codec) -> None:
    packed = ARCHIVERS[suffix](SPARK.read_bytes())
    path = tmp_path / f"app.{suffix}"
    path.write_bytes(packed[:-100])  # inside the second stream
    log = load_log(path)
    assert re.fullmatch(
        rf"compressed stream broken off after line \d+: {codec}: stream ends inside a stream",
        log.skipped[-1].reason,
    )
    assert log.apps["app_id"].tolist() == ["local-1532512550423"]  # from the first stream
    assert log.apps["completed"].tolist() == ["F"]  # its end was in the second


def _zstd_cut_in_its_first_block() -> bytes:
    packed = zstandard.ZstdCompressor(write_content_size=False).compress(
        SPARK.read_bytes()
    )  # one block
    return packed[: len(packed) // 2]


BROKEN = {
    "lz4": (LZ4_MAGIC + GARBAGE, "lz4: block header claims"),
    "zstd": (_zstd_cut_in_its_first_block(), "zstd: stream ends inside a frame"),
}
"""A file that starts like Spark's LZ4 stream and then is garbage, and a zstd log cut inside its
first block: neither holds one event."""


@pytest.mark.parametrize("codec", BROKEN)
def test_a_stream_broken_before_its_first_event_is_not_a_log(tmp_path, codec) -> None:
    data, why = BROKEN[codec]
    path = tmp_path / f"app.{codec}"
    path.write_bytes(data)
    reason = f"its {codec} stream breaks before the first event ({why}"
    with pytest.raises(CorruptStream, match="^" + re.escape(f"{path}: not an event log: {reason}")):
        load_log(path)
    shutil.copy(SPARK, tmp_path)  # in a folder, it is passed over and said why
    log = load_log(tmp_path)
    assert len(log.apps) == 1 and log.apps["app_id"].tolist() == ["local-1532512550423"]
    assert [(s.path, s.reason.split(" (")[0]) for s in log.skipped] == [
        (str(path), reason.split(" (")[0])
    ]


def test_cli_logs_on_a_broken_stream_alone_is_a_one_line_error(tmp_path, capsys) -> None:
    path = tmp_path / "app.lz4"
    path.write_bytes(LZ4_MAGIC + GARBAGE)
    with pytest.raises(SystemExit) as exit_info:
        main(["logs", str(path)])
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(
        f"perfx: {path}: not an event log: its lz4 stream breaks before the first event"
    )
    assert captured.err.count("\n") == 1
