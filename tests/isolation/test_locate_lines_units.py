"""``udf.locate_lines`` without Spark: the block-wise pass finds every line of a wanted
digest where a plain line-by-line reading does, whatever the blocks cut (hypothesis)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from perfx.isolation import udf

LINE = st.text(alphabet="ab\r", max_size=6)


def line_by_line(files: list[Path], wanted: set[str]) -> dict[str, list[tuple[str, int]]]:
    """The reference: each line read as Python reads it, its end of line taken off."""
    located: dict[str, list[tuple[str, int]]] = {}
    for file in files:
        offset = 0
        with file.open("rb") as handle:
            for number, raw in enumerate(handle, 1):
                line = raw[:-1] if raw.endswith(b"\n") else raw
                line = line[:-1] if line.endswith(b"\r") else line
                key = udf.digest(line.decode())
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
