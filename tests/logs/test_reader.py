"""The event-log reader on logs with known damage and on Spark's stream framings built here
from a real log (pyspark-written samples are in test_codec_logs.py)."""

from __future__ import annotations

import gzip
import io
import json
import struct
from pathlib import Path

import cramjam
import lz4.block
import pandas as pd
import pytest
import zstandard

from perfx.cli import main
from perfx.logs.errors import NotALog
from perfx.logs.eventlog.codecs import LZ4_MAGIC, SNAPPY_MAGIC, lzf_decompress
from perfx.logs.eventlog.open import find_event_logs
from perfx.logs.formats import not_a_log
from perfx.logs.loader import load_log
from perfx.logs.model import CutOff
from tests.data_files import PUBLIC, fixture_log

FIXTURE = fixture_log("spark-events/local-1430917381534")
TEXT = FIXTURE.read_bytes()
BLOCK = 64 * 1024


def lz4_stream(data: bytes) -> bytes:
    """lz4-java LZ4BlockOutputStream framing: lz4 blocks, one stored block, an end block."""
    out = bytearray()
    pieces = [data[i : i + BLOCK] for i in range(0, len(data), BLOCK)]
    for n, piece in enumerate(pieces):
        if n == 1:  # a block lz4-java chose to store raw
            out += LZ4_MAGIC + struct.pack("<BIII", 0x10, len(piece), len(piece), 0) + piece
            continue
        packed = lz4.block.compress(piece, store_size=False)
        out += LZ4_MAGIC + struct.pack("<BIII", 0x20 | 4, len(packed), len(piece), 0) + packed
    return bytes(out + LZ4_MAGIC + struct.pack("<BIII", 0x10, 0, 0, 0))


def snappy_stream(data: bytes) -> bytes:
    """snappy-java SnappyOutputStream framing: header, then length-prefixed raw blocks."""
    out = bytearray(SNAPPY_MAGIC + struct.pack(">ii", 1, 1))
    for i in range(0, len(data), BLOCK):
        packed = bytes(cramjam.snappy.compress_raw(data[i : i + BLOCK]))
        out += struct.pack(">I", len(packed)) + packed
    return bytes(out)


def lzf_stored_stream(data: bytes) -> bytes:
    """Ning LZF framing with stored (type 0) chunks."""
    out = bytearray()
    for i in range(0, len(data), 0xFFFF):
        piece = data[i : i + 0xFFFF]
        out += b"ZV\x00" + struct.pack(">H", len(piece)) + piece
    return bytes(out)


def zstd_stream(data: bytes) -> bytes:
    """Spark's zstd: several frames without content size."""
    compressor = zstandard.ZstdCompressor(write_content_size=False)
    half = len(data) // 2
    return compressor.compress(data[:half]) + compressor.compress(data[half:])


@pytest.mark.parametrize(
    "name, encode",
    [
        ("app.lz4", lz4_stream),
        ("app.snappy", snappy_stream),
        ("app.lzf", lzf_stored_stream),
        ("app.zstd", zstd_stream),
        (
            "app.gz",
            lambda data: gzip.compress(data[:1000]) + gzip.compress(data[1000:]),
        ),  # two members, as `cat a.gz b.gz`
    ],
)
def test_framings_decode_to_the_plain_tables(tmp_path, name, encode) -> None:
    (tmp_path / name).write_bytes(encode(TEXT))
    plain = load_log(FIXTURE)
    packed = load_log(tmp_path / name)
    assert packed.skipped == []
    pd.testing.assert_frame_equal(packed.tasks, plain.tasks)


def test_codec_is_sniffed_not_taken_from_the_name(tmp_path) -> None:
    (tmp_path / "renamed_eventlog").write_bytes(lz4_stream(TEXT))
    assert len(load_log(tmp_path / "renamed_eventlog").tasks) == 110


def test_lzf_block_with_back_references() -> None:
    # literal "abc", then a 9-byte copy from 3 back (overlapping), then literal "d"
    block = bytes([2]) + b"abc" + bytes([0xE0, 0, 2]) + bytes([0]) + b"d"
    assert lzf_decompress(block, 13) == b"abcabcabcabcd"
    # short copy encoded in the control byte: length 3+2, offset 1
    assert lzf_decompress(bytes([1]) + b"xy" + bytes([3 << 5, 1]), 7) == b"xyxyxyx"


def test_truncated_last_line_of_an_inprogress_log(tmp_path) -> None:
    lines = TEXT.splitlines(keepends=True)
    cut = b"".join(lines[:-3]) + lines[-3][: len(lines[-3]) // 2]
    path = tmp_path / "local-1430917381534.inprogress"
    path.write_bytes(cut)
    log = load_log(path)
    assert [(s.line, s.reason) for s in log.skipped] == [(len(lines) - 2, "truncated last line")]
    assert log.apps["completed"].tolist() == ["F"]
    assert log.tasks["id"].is_unique
    event = json.loads(lines[-3])["Event"]
    assert log.cut_off == [CutOff(str(path), len(lines) - 2, event, "application")]


def test_broken_compressed_stream_keeps_the_lines_before(tmp_path) -> None:
    packed = zstd_stream(TEXT)
    path = tmp_path / "app.zstd"
    path.write_bytes(packed[: len(packed) * 3 // 4])
    log = load_log(path)
    assert len(log.skipped) >= 1
    assert any("truncated" in s.reason or "broken off" in s.reason for s in log.skipped)
    assert 0 < len(log.tasks) <= 110


def test_unknown_and_malformed_lines_are_counted(tmp_path) -> None:
    lines = TEXT.splitlines(keepends=True)
    lines.insert(3, b'{"Event":"com.example.CustomEvent","x":1}\n')
    lines.insert(5, b'{"Event":"SparkListenerTaskEnd", broken\n')
    lines.insert(7, b"not json at all\n")
    path = tmp_path / "damaged"
    path.write_bytes(b"".join(lines))
    log = load_log(path)
    reasons = {s.line: s.reason for s in log.skipped}
    assert reasons[4] == "unknown event 'com.example.CustomEvent'"
    assert reasons[6].startswith("not JSON") and reasons[8].startswith("not JSON")
    assert len(log.tasks) == 110


def test_rolling_directory_parts_in_numeric_order(tmp_path) -> None:
    lines = TEXT.splitlines(keepends=True)
    rolling = tmp_path / "eventlog_v2_local-1430917381534"
    rolling.mkdir()
    tenth = -(-len(lines) // 10)
    for number in range(1, 11):  # events_10 sorts before events_2 as text
        part = lines[(number - 1) * tenth : number * tenth]
        (rolling / f"events_{number}_local-1430917381534.zstd").write_bytes(
            zstd_stream(b"".join(part))
        )
    (rolling / "appstatus_local-1430917381534").write_bytes(b"")
    (source,) = find_event_logs(rolling, lambda *skipped: pytest.fail(f"skipped {skipped}"))
    assert [int(part.name.split("_")[1]) for part in source.parts] == list(range(1, 11))
    log = load_log(rolling)
    assert log.skipped == []
    pd.testing.assert_frame_equal(log.tasks, load_log(FIXTURE).tasks)


def test_not_a_log(tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(NotALog):
        load_log(tmp_path / "notes.txt")
    with pytest.raises(NotALog):
        load_log(tmp_path)
    with pytest.raises(NotALog, match="no log paths"):
        load_log([])


def test_zstd_cut_inside_a_frame_keeps_the_complete_blocks_and_says_so(tmp_path) -> None:
    # One frame, a block per 20 lines (as Spark's flushes make them), cut inside the last
    # block but after a line end: without a check the tail would vanish without a word.
    lines = TEXT.splitlines(keepends=True)
    out = io.BytesIO()
    writer = zstandard.ZstdCompressor(write_content_size=False).stream_writer(out, closefd=False)
    sizes = []
    for k in range(0, len(lines), 20):
        writer.write(b"".join(lines[k : k + 20]))
        writer.flush(zstandard.FLUSH_BLOCK)
        sizes.append(out.tell())
    path = tmp_path / "app.zstd"
    path.write_bytes(out.getvalue()[: sizes[-2] + 5])  # the last block's header, not its data
    log = load_log(path)
    kept = len(lines) - len(lines[(len(sizes) - 1) * 20 :])
    assert [(s.line, s.reason) for s in log.skipped] == [
        (
            kept + 1,
            f"compressed stream broken off after line {kept}: zstd: stream ends inside a frame",
        )
    ]
    assert log.apps["completed"].tolist() == ["F"]  # the application end was in the lost block
    event = json.loads(lines[kept - 1])["Event"]
    assert log.cut_off == [CutOff(str(path), kept, event, "application")]


def test_a_log_that_ends_before_its_application_did_is_cut_off(tmp_path, capsys) -> None:
    """The fixture cut after its 10th, 30th and next-to-last line (its ApplicationEnd gone):
    the log names the file, that line and its event's type; `perfx logs` lists it and
    `perfx stragglers`' answer carries it in its one-line note. The whole file, and a real
    log Spark wrote while its application ran (sparkscope's), are told apart."""
    lines = TEXT.splitlines(keepends=True)
    assert load_log(FIXTURE).cut_off == []
    for n in (10, 30, len(lines) - 1):
        path = tmp_path / f"local-1430917381534-{n}"
        path.write_bytes(b"".join(lines[:n]))
        event = json.loads(lines[n - 1])["Event"]
        assert load_log(path).cut_off == [CutOff(str(path), n, event, "application")]
    with pytest.raises(SystemExit):
        main(["logs", str(path), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["cut_off"] == [
        {"path": str(path), "line": n, "last_event": event, "execution": "application"}
    ]
    assert "1 file ends before its application did" in data["summary"]["text"]
    with pytest.raises(SystemExit):
        main(["stragglers", "--log", str(path)])
    out = " ".join(capsys.readouterr().out.split())
    assert f"ends at line {n} ({event}) before its application did" in out
    running = PUBLIC / "ucesys__sparkscope" / "app-20231025121456-0004-eventLog-running-incomplete"
    last = running.read_bytes().splitlines()  # its last line is cut inside a JobEnd
    assert load_log(running).cut_off == [
        CutOff(str(running), len(last), "SparkListenerJobEnd", "application")
    ]


def test_files_that_only_look_compressed_are_passed_over_not_made_apps(tmp_path) -> None:
    (tmp_path / "app").write_bytes(TEXT)
    (tmp_path / "empty.gz").write_bytes(gzip.compress(b""))
    (tmp_path / "blank.gz").write_bytes(gzip.compress(b"\n\n\n"))
    (tmp_path / "notes.txt").write_bytes(b"ZVEZDA is a star\n")  # starts like an LZF chunk
    log = load_log(tmp_path)
    assert len(log.apps) == 1 and len(log.tasks) == 110
    assert sorted((Path(s.path).name, s.reason) for s in log.skipped) == [
        ("blank.gz", not_a_log()),
        ("empty.gz", not_a_log()),
        ("notes.txt", not_a_log()),
    ]


def test_a_folder_of_unreadable_job_histories_says_why(tmp_path) -> None:
    (tmp_path / "job_1_1.jhist").write_bytes(b"Avro-Binary\x00\x01")
    with pytest.raises(
        NotALog,
        match=r"in this directory \(job_1_1.jhist: binary Avro job history .*jhist.format=json",
    ):
        load_log(tmp_path)
