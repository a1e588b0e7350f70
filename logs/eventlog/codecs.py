"""Decoders for the compressed streams event logs come in: the four Spark writes them with,
and gzip, bzip2 and xz, which archived copies often are.

Spark does not use the standard lz4-frame or snappy-framing formats: it wraps each codec in a
Java stream (lz4-java ``LZ4BlockOutputStream``, snappy-java ``SnappyOutputStream``, Ning
``LZFOutputStream``). Each decoder here takes a binary file object and yields decompressed
chunks, so a log of any size streams through bounded memory. A stream that ends mid-block
raises ``CorruptStream`` after yielding everything before the bad block: the reader counts
that as a truncated tail instead of losing the whole log.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import BinaryIO

from ..errors import CorruptStream

FRAMED_READ = 1 << 17
"""Compressed bytes fed to a zstd or gzip decompressor at a time: event logs compress ~10-20x,
so this bounds each decompressed chunk to a few MB."""

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
LZ4_MAGIC = b"LZ4Block"
SNAPPY_MAGIC = b"\x82SNAPPY\x00"
LZ4_MAX_BLOCK = 1 << 26
"""More than lz4-java's largest block (32 MB): a header claiming more is damaged, and is not
allowed to make the decoder allocate what it claims."""
LZF_MAGIC = b"ZV"
LZF_CHUNK_TYPES = (b"\x00", b"\x01")
"""Ning LZF chunks are stored (0) or compressed (1): sniffing wants both bytes, ``ZV`` alone
starts too many other files."""
GZIP_MAGIC = b"\x1f\x8b\x08"
"""gzip's magic and its one compression method (deflate)."""
BZIP2_MAGIC = b"BZh"
BZIP2_BLOCKS = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")
"""What follows ``BZh`` and the block-size digit: a block's magic (pi) or, in an empty
stream, the end-of-stream magic (sqrt pi). Sniffing wants them: ``BZh9`` alone could start a
text file."""
XZ_MAGIC = b"\xfd7zXZ\x00"


def _read_exact(stream: BinaryIO, size: int, what: str) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise CorruptStream(f"stream ends inside {what} ({len(data)} of {size} bytes)")
    return data


def zstd_chunks(stream: BinaryIO) -> Iterator[bytes]:
    """Zstandard: Spark writes several frames without a content size. Frame by frame, so that a
    stream cut inside a frame (a crashed or still-running app, a partial copy) yields every
    complete block and then says so: zstandard's own stream reader just stops there."""
    import zstandard

    decompressor = zstandard.ZstdDecompressor()
    yield from _frames(stream, decompressor.decompressobj, zstandard.ZstdError, "zstd", "frame")


def _frames(
    stream: BinaryIO, new_frame: Callable, error: type[Exception], codec: str, unit: str
) -> Iterator[bytes]:
    """Decompress a stream of self-delimiting frames (zstd frames, gzip members) one after
    another with decompressor objects from ``new_frame``; raise ``CorruptStream`` after
    yielding everything decodable when the stream breaks or ends inside a frame. Zero bytes
    after the last frame (tape and block-device padding) are not a frame."""
    frame = new_frame()
    inside = False
    try:
        while data := stream.read(FRAMED_READ):
            while data:
                if not inside and not data.strip(b"\x00"):
                    break
                out = frame.decompress(data)
                inside = True
                if out:
                    yield out
                data = b""
                if frame.eof:
                    data, frame, inside = frame.unused_data, new_frame(), False
    except error as err:
        raise CorruptStream(f"{codec}: {err}") from err
    if inside:
        raise CorruptStream(f"{codec}: stream ends inside a {unit}")


def lz4_chunks(stream: BinaryIO) -> Iterator[bytes]:
    """lz4-java LZ4BlockOutputStream: per block the magic ``LZ4Block``, a token byte (method in
    the high nibble: 0x10 raw, 0x20 lz4), little-endian compressed length, decompressed length
    and xxhash32 checksum, then the data. A block with length 0 ends one stream; streams may
    follow each other."""
    import lz4.block

    while True:
        magic = stream.read(len(LZ4_MAGIC))
        if not magic:
            return
        if magic != LZ4_MAGIC:
            raise CorruptStream("lz4: block does not start with the LZ4Block magic")
        token, compressed_len, decompressed_len, _checksum = struct.unpack(
            "<BIII", _read_exact(stream, 13, "an lz4 block header")
        )
        if decompressed_len > LZ4_MAX_BLOCK or compressed_len > LZ4_MAX_BLOCK:
            raise CorruptStream(f"lz4: block header claims {decompressed_len} bytes")
        data = _read_exact(stream, compressed_len, "an lz4 block")
        if decompressed_len == 0:
            continue
        method = token & 0xF0
        if method == 0x10:
            yield data
        elif method == 0x20:
            try:
                yield lz4.block.decompress(data, uncompressed_size=decompressed_len)
            except lz4.block.LZ4BlockError as err:
                raise CorruptStream(f"lz4: {err}") from err
        else:
            raise CorruptStream(f"lz4: unknown compression method {method:#x}")


def snappy_chunks(stream: BinaryIO) -> Iterator[bytes]:
    """snappy-java SnappyOutputStream: the 8-byte magic, two 4-byte versions, then blocks of a
    4-byte big-endian length and one raw snappy block. Concatenated streams repeat the header."""
    import cramjam

    while True:
        head = stream.read(4)
        if not head:
            return
        if head == SNAPPY_MAGIC[:4]:
            _read_exact(stream, 12, "a snappy stream header")
            continue
        if len(head) != 4:
            raise CorruptStream("snappy: stream ends inside a block length")
        (length,) = struct.unpack(">I", head)
        data = _read_exact(stream, length, "a snappy block")
        try:
            yield bytes(cramjam.snappy.decompress_raw(data))
        except cramjam.DecompressionError as err:
            raise CorruptStream(f"snappy: {err}") from err


def lzf_decompress(data: bytes, expected_len: int) -> bytes:
    """One LZF block (liblzf's format, as Ning's encoder writes it).

    Control byte < 32: a literal run of ctrl+1 bytes. Otherwise a back reference: length
    ctrl>>5 (7 means "add the next byte"), plus 2; offset ((ctrl & 31) << 8) + next byte + 1."""
    out = bytearray()
    pos, end = 0, len(data)
    while pos < end:
        ctrl = data[pos]
        pos += 1
        if ctrl < 32:
            out += data[pos : pos + ctrl + 1]
            pos += ctrl + 1
            continue
        length = ctrl >> 5
        if length == 7:
            length += data[pos]
            pos += 1
        start = len(out) - ((ctrl & 0x1F) << 8) - data[pos] - 1
        pos += 1
        length += 2
        if start < 0:
            raise CorruptStream("lzf: back reference before the start of the block")
        if start + length <= len(out):
            out += out[start : start + length]
        else:
            for i in range(length):  # overlapping copy repeats the last bytes
                out.append(out[start + i])
    if len(out) != expected_len:
        raise CorruptStream(f"lzf: block decodes to {len(out)} bytes, header says {expected_len}")
    return bytes(out)


def lzf_chunks(stream: BinaryIO) -> Iterator[bytes]:
    """Ning LZFOutputStream: chunks of ``ZV``, a type byte (0 stored, 1 compressed), a 2-byte
    big-endian length (compressed chunks add the 2-byte decompressed length), then the data."""
    while True:
        magic = stream.read(2)
        if not magic:
            return
        if magic != LZF_MAGIC:
            raise CorruptStream("lzf: chunk does not start with ZV")
        kind = _read_exact(stream, 1, "an lzf chunk header")[0]
        if kind == 0:
            (length,) = struct.unpack(">H", _read_exact(stream, 2, "an lzf chunk header"))
            yield _read_exact(stream, length, "an lzf chunk")
        elif kind == 1:
            compressed_len, decompressed_len = struct.unpack(
                ">HH", _read_exact(stream, 4, "an lzf chunk header")
            )
            yield lzf_decompress(
                _read_exact(stream, compressed_len, "an lzf chunk"), decompressed_len
            )
        else:
            raise CorruptStream(f"lzf: unknown chunk type {kind}")


Decoder = Callable[[BinaryIO], Iterator[bytes]]


def gzip_chunks(stream: BinaryIO) -> Iterator[bytes]:
    """gzip (RFC 1952), one member after another: Spark does not write it, but logs are
    gzipped when archived and copied. A stream cut inside a member says so after its data."""
    import zlib

    yield from _frames(stream, lambda: zlib.decompressobj(wbits=31), zlib.error, "gzip", "member")


def bzip2_chunks(stream: BinaryIO) -> Iterator[bytes]:
    """bzip2, one stream after another (``cat a.bz2 b.bz2``, pbzip2's output), as gzip."""
    import bz2

    yield from _frames(stream, bz2.BZ2Decompressor, OSError, "bzip2", "stream")


def xz_chunks(stream: BinaryIO) -> Iterator[bytes]:
    """xz, one stream after another, as gzip."""
    import lzma

    yield from _frames(
        stream, lambda: lzma.LZMADecompressor(lzma.FORMAT_XZ), lzma.LZMAError, "xz", "stream"
    )


CODECS: dict[str, Decoder] = {
    "zstd": zstd_chunks,
    "lz4": lz4_chunks,
    "snappy": snappy_chunks,
    "lzf": lzf_chunks,
    "gzip": gzip_chunks,
    "bzip2": bzip2_chunks,
    "xz": xz_chunks,
}
"""Codec name (as in ``spark.eventLog.compression.codec``, plus the archivers') -> decoder."""


MAGIC_BYTES = 10
"""The first bytes of a file ``sniff_codec`` needs (bzip2's are the longest)."""


def sniff_codec(head: bytes) -> str | None:
    """The codec a file is compressed with, from its first ``MAGIC_BYTES`` bytes (file names
    lie: tools rename logs), or None for plain text."""
    if head.startswith(ZSTD_MAGIC):
        return "zstd"
    if head.startswith(LZ4_MAGIC):
        return "lz4"
    if head.startswith(SNAPPY_MAGIC):
        return "snappy"
    if head.startswith(LZF_MAGIC) and head[2:3] in LZF_CHUNK_TYPES:
        return "lzf"
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(BZIP2_MAGIC) and b"1" <= head[3:4] <= b"9" and head[4:10] in BZIP2_BLOCKS:
        return "bzip2"
    if head.startswith(XZ_MAGIC):
        return "xz"
    return None
