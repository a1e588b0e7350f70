"""Source records: the ids a traced run gives its inputs, and finding those inputs again.

A text source's record id is (source table, partition, line number in the partition's
split). The run keeps each partition's Hadoop split (file, start, length), so a stored run
can show a culprit's file, byte offset and content later without Spark: the lines of a
split are read back the way Hadoop's LineRecordReader cuts them (a split that does not start
at byte 0 skips its first, partial line and reads past its end to finish its last one).
A collection source (``parallelize``) writes its records' excerpts as a source table. A
``wholeTextFiles`` record (a whole file) is located by its partition and number in it.
"""

from __future__ import annotations

import gzip
import io

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


def text_splits(rdd) -> list[dict] | None:
    """The Hadoop split (path, start, length) of every partition of a ``textFile`` RDD, or
    None when its partitions are not file splits (then culprits show ids, not lines)."""
    try:
        partitions = rdd._jrdd.rdd().partitions()
        splits = []
        for i in range(len(partitions)):
            split = partitions[i].inputSplit().value()
            splits.append(
                {
                    "path": split.getPath().toString(),
                    "start": int(split.getStart()),
                    "length": int(split.getLength()),
                }
            )
        return splits
    except Exception:
        return None


def read_split_lines(split: dict, wanted: set[int]) -> dict[int, tuple[int, str]]:
    """Line number in the split -> (byte offset in the file, line) for the ``wanted`` lines."""
    url = split["path"]
    fs, path = (
        pafs.FileSystem.from_uri(url)
        if "://" in url or url.startswith("file:")
        else (pafs.LocalFileSystem(), url)
    )
    found: dict[int, tuple[int, str]] = {}
    if not wanted:
        return found
    start, end = split["start"], split["start"] + split["length"]
    if path.endswith(".gz"):
        handle = io.BufferedReader(gzip.GzipFile(fileobj=fs.open_input_file(path)))
        start, end = 0, float("inf")
    else:
        handle = fs.open_input_file(path)
        handle.seek(start)
        handle = io.BufferedReader(handle, buffer_size=1 << 20)
    with handle:
        position = start
        if start != 0:
            position += len(handle.readline())
        seq = 0
        last = max(wanted)
        while position <= end and seq <= last:
            line = handle.readline()
            if not line:
                break
            if seq in wanted:
                found[seq] = (position, line.rstrip(b"\r\n").decode("utf-8", "replace"))
            position += len(line)
            seq += 1
    return found


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
        split = sources[str(table)]["splits"][partition]
        try:
            lines = read_split_lines(split, seqs)
        except OSError:
            lines = {}
        for seq in seqs:
            record_id = partition_base(table, partition) + seq
            offset, line = lines.get(seq, (None, ""))
            path = split["path"].removeprefix("file:")
            where = (
                f"{path}@{offset}"
                if offset is not None
                else f"{path} split {partition} line {seq} (file unreadable)"
            )
            result[record_id] = {"location": where, "excerpt": excerpt(line, EXCERPT_WIDTH)}
    return result
