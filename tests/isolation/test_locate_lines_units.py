"""``udf.locate_lines`` without Spark: the block-wise pass finds every line of a wanted
digest where a plain line-by-line reading does, whatever the blocks cut (hypothesis)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from perfx.isolation import udf
from perfx.isolation.sources import hadoop_lines

LINE = st.text(alphabet="ab\r", max_size=20)


def line_by_line(files: list[Path], wanted: set[str]) -> dict[str, list[tuple[str, int]]]:
    """The reference: each line read one by one as Hadoop ends lines (CR LF, LF or a lone
    CR, ``sources.hadoop_lines``), its end of line taken off."""
    located: dict[str, list[tuple[str, int]]] = {}
    for file in files:
        offset = 0
        with file.open("rb") as handle:
            for number, raw in enumerate(hadoop_lines(handle), 1):
                key = udf.digest(raw.rstrip(b"\r\n").decode())
                if key in wanted:
                    located.setdefault(key, []).append((f"{file.resolve()}@{offset}", number))
                offset += len(raw)
    return located


@settings(max_examples=150, deadline=None)
@given(
    files=st.lists(st.lists(LINE, max_size=12), min_size=1, max_size=3),
    newline_at_end=st.booleans(),
    block=st.integers(1, 9),
    picks=st.lists(LINE, max_size=4),
)
def test_the_block_wise_pass_finds_what_reading_line_by_line_finds(
    files, newline_at_end, block, picks
):
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for k, lines in enumerate(files):
            path = Path(folder, f"part-{k}.txt")
            path.write_bytes(("\n".join(lines) + ("\n" if newline_at_end else "")).encode())
            paths.append(path)
        wanted = {udf.digest(text) for text in picks + [f[0] for f in files if f]}
        saved, udf.BLOCK = udf.BLOCK, block
        try:
            found = udf.locate_lines([folder], wanted)
        finally:
            udf.BLOCK = saved
        assert found == line_by_line(sorted(paths), wanted)


def test_lines_that_share_their_sampled_bytes_are_told_apart(tmp_path: Path):
    """Two lines of one length with the same first, middle and last 8 bytes have the same
    sample (``linehash``): the BLAKE2b part of the digest tells which one is wanted."""
    wanted_line = "2026-11-27 user=alice INFO -- GET /index.html 200 0.4 ms"
    other_line = "2026-11-27 user=carol INFO -- GET /index.html 200 0.4 ms"
    assert len(wanted_line) == len(other_line)
    assert udf.digest(wanted_line).split("-")[:2] == udf.digest(other_line).split("-")[:2]
    path = tmp_path / "log.txt"
    path.write_text(f"{other_line}\n{wanted_line}\r\n{other_line}\n{wanted_line}", "utf-8")
    found = udf.locate_lines([str(tmp_path)], {udf.digest(wanted_line)})
    step = len(other_line) + 1
    assert found == {
        udf.digest(wanted_line): [
            (f"{path.resolve()}@{step}", 2),
            (f"{path.resolve()}@{3 * step + 1}", 4),  # after a \r\n
        ]
    }
