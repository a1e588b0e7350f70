"""Source records: the ids a traced run gives its inputs, and finding those inputs again.

A text source's record id is (source table, partition, line number in the partition). The
run keeps the file splits (file, start, length) each partition reads, in order: one Hadoop
split for ``textFile``; for ``spark.read.text`` the splits Spark's file scan packs into the
partition (several small files, or part of a large one). A stored run can so show a
culprit's file, byte offset and content later without Spark: the lines of a split are read
back the way Hadoop's LineRecordReader cuts them (a split that does not start at byte 0
skips its first, partial line and reads past its end to finish its last one).
A collection source (``parallelize``) writes its records' excerpts as a source table. A
``wholeTextFiles`` record (a whole file) is located by its partition and number in it.
"""

from __future__ import annotations

import gzip
import io
import re
from collections.abc import Iterator

import pyarrow.fs as pafs

from .ids import EXCERPT_WIDTH, NO_LATENCY, NO_SOURCE, excerpt, partition_base, split_id

NO_INPUT = "no input record (made from an empty partition)"
"""Where an output derived from no input record (``ids.NO_SOURCE``) comes from."""


def text_source(stage: int, full: bool):
    def run_partition(index, lines):
        base = partition_base(stage, index)
        if full:
            for seq, line in enumerate(lines):
                record_id = base + seq
                yield (line, 0, record_id, NO_LATENCY, 0, 0, (record_id,))
        else:
            for seq, line in enumerate(lines):
                yield (line, 0, base + seq, NO_LATENCY, 0)

    return run_partition


def collection_source(stage: int, full: bool):
    """Records arrive as (index in the collection, value) pairs numbered by the driver."""
    base = partition_base(stage, 0)

    def run_partition(records):
        if full:
            for index, value in records:
                yield (value, 0, base + index, NO_LATENCY, 0, 0, (base + index,))
        else:
            for index, value in records:
                yield (value, 0, base + index, NO_LATENCY, 0)

    return run_partition


def text_splits(rdd) -> list[list[dict]] | None:
    """The Hadoop split (path, start, length) of every partition of a ``textFile`` RDD, each
    a list of one, or None when its partitions are not file splits (then culprits show ids,
    not lines)."""
    try:
        partitions = rdd._jrdd.rdd().partitions()
        splits = []
        for i in range(len(partitions)):
            split = partitions[i].inputSplit().value()
            splits.append([_split(split.getPath().toString(), split.getStart(), split.getLength())])
        return splits
    except Exception:
        return None


def scan_splits(rdd) -> list[list[dict]] | None:
    """The file splits each partition of a DataFrame's ``.rdd`` reads, in the order it reads
    them (Spark's file scan packs small files into one partition and cuts large ones), or
    None when no file scan lies under its partitions one for one."""
    try:
        scan = rdd._jrdd.rdd()
        while not scan.getClass().getName().endswith(".FileScanRDD"):
            dependencies = scan.dependencies()
            if dependencies.size() != 1:
                return None
            scan = dependencies.head().rdd()
        partitions = scan.partitions()
        if len(partitions) != rdd.getNumPartitions():
            return None
        return [
            [_split(f.toPath().toString(), f.start(), f.length()) for f in partition.files()]
            for partition in partitions
        ]
    except Exception:
        return None


def _split(path: str, start: int, length: int) -> dict:
    return {"path": path, "start": int(start), "length": int(length)}


def partition_splits(source: dict, partition: int) -> list[dict]:
    """The splits a source's partition reads (a run stored before a partition could read
    several kept its one split alone)."""
    splits = source["splits"][partition]
    return splits if isinstance(splits, list) else [splits]


def source_bytes(source: dict) -> int:
    """The bytes of a file source's splits (0 when it kept none)."""
    return sum(
        split["length"]
        for partition in range(len(source.get("splits") or []))
        for split in partition_splits(source, partition)
    )


def read_partition_lines(splits: list[dict], wanted: set[int]) -> dict[int, tuple[str, int, str]]:
    """Line number in the partition -> (file, byte offset in it, line) for the ``wanted``
    lines of a partition reading ``splits`` one after the other."""
    found: dict[int, tuple[str, int, str]] = {}
    if not wanted:
        return found
    last = max(wanted)
    seq = 0
    for split in splits:
        for offset, line in _split_lines(split):
            if seq in wanted:
                found[seq] = (split["path"], offset, line.decode("utf-8", "replace"))
            seq += 1
            if seq > last:
                return found
    return found


def _split_lines(split: dict) -> Iterator[tuple[int, bytes]]:
    """(byte offset, line without its end) of each line of a split, as Hadoop reads them."""
    url = split["path"]
    fs, path = (
        pafs.FileSystem.from_uri(url)
        if "://" in url or url.startswith("file:")
        else (pafs.LocalFileSystem(), url)
    )
    start, end = split["start"], split["start"] + split["length"]
    if path.endswith(".gz"):
        handle = io.BufferedReader(gzip.GzipFile(fileobj=fs.open_input_file(path)))
        start, end = 0, float("inf")
    else:
        handle = fs.open_input_file(path)
        handle.seek(start)
        handle = io.BufferedReader(handle, buffer_size=1 << 20)
    with handle:
        lines = hadoop_lines(handle)
        position = start
        if start != 0:
            position += len(next(lines, b""))
        while position <= end:
            line = next(lines, b"")
            if not line:
                break
            yield position, line.rstrip(b"\r\n")
            position += len(line)


_LINE_END = re.compile(rb"\r\n?|\n")


def hadoop_lines(handle, block: int = 1 << 20) -> Iterator[bytes]:
    """Each line of a binary file ``handle``, with its end, as Hadoop's LineRecordReader
    (Spark's ``textFile`` and text scans) ends lines: at CR LF, LF or a lone CR. Python's
    ``readline`` ends them at LF only: an old Mac file was one line."""
    buffer = b""
    while True:
        chunk = handle.read(block)
        buffer += chunk
        start = 0
        for match in _LINE_END.finditer(buffer):
            if chunk and match.end() == len(buffer) and match.group() == b"\r":
                break  # an LF may follow in the next block
            yield buffer[start : match.end()]
            start = match.end()
        buffer = buffer[start:]
        if not chunk:
            if buffer:
                yield buffer
            return


def locate(meta: dict, record_ids, source_rows=None) -> dict[int, dict]:
    """Id -> ``{"location", "excerpt"}`` for source records of a stored run.

    ``source_rows`` maps ids of collection sources to their stored excerpts."""
    sources = meta.get("sources", {})
    wanted: dict[tuple[int, int], set[int]] = {}
    result: dict[int, dict] = {}
    for record_id in record_ids:
        table, partition, seq = split_id(int(record_id))
        source = sources.get(str(table))
        if int(record_id) == NO_SOURCE:
            result[record_id] = {"location": NO_INPUT, "excerpt": ""}
        elif source is None:
            result[record_id] = {"location": f"stage {table} record", "excerpt": ""}
        elif source["kind"] == "collection":
            result[record_id] = {
                "location": f"{source['name']}[{seq}]",
                "excerpt": (source_rows or {}).get(record_id, ""),
            }
        elif source["kind"] == "files":
            result[record_id] = {
                "location": f"{source['name']} partition {partition} file #{seq}",
                "excerpt": "",
            }
        elif source.get("splits") is None:
            result[record_id] = {
                "location": f"{source['name']} partition {partition} line {seq}",
                "excerpt": "",
            }
        else:
            wanted.setdefault((table, partition), set()).add(seq)
    for (table, partition), seqs in wanted.items():
        splits = partition_splits(sources[str(table)], partition)
        try:
            lines = read_partition_lines(splits, seqs)
        except OSError:
            lines = {}
        read = splits[0]["path"] if len(splits) == 1 else sources[str(table)]["name"]
        for seq in seqs:
            record_id = partition_base(table, partition) + seq
            path, offset, line = lines.get(seq, (read, None, ""))
            where = (
                f"{path.removeprefix('file:')}@{offset}"
                if offset is not None
                else f"{read.removeprefix('file:')} split {partition} line {seq} (file unreadable)"
            )
            result[record_id] = {"location": where, "excerpt": excerpt(line, EXCERPT_WIDTH)}
    return result
