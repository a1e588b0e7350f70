"""``sources.hadoop_lines`` without Spark: lines end where Hadoop's LineRecordReader ends
them (CR LF, LF or a lone CR), whatever the blocks it reads cut (hypothesis)."""

from __future__ import annotations

import io
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from perfx.isolation.sources import hadoop_lines


def reference(data: bytes) -> list[bytes]:
    """The lines of ``data``, each with its end: the longest run of other bytes, then CR LF,
    LF or CR (the last line may have none)."""
    return re.findall(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z", data)


@settings(max_examples=300, deadline=None)
@given(
    data=st.binary().map(lambda b: b.translate(bytes.maketrans(b"\x00\x01", b"\r\n"))),
    block=st.integers(1, 9),
)
def test_lines_end_as_hadoop_ends_them_whatever_the_blocks(data, block):
    lines = list(hadoop_lines(io.BytesIO(data), block))
    assert lines == reference(data)
    assert b"".join(lines) == data


def test_a_lone_cr_ends_a_line_and_cr_lf_is_one_end():
    data = b"mac\rdos\r\nunix\n\r\nlast"
    assert list(hadoop_lines(io.BytesIO(data), 4)) == [
        b"mac\r",
        b"dos\r\n",
        b"unix\n",
        b"\r\n",
        b"last",
    ]
