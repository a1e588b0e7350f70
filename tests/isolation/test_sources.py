"""A stored run finds its culprit lines again without Spark: the lines of each partition's
file splits, read back by perfx, are exactly the lines Spark gave that partition, whether
``textFile`` read it (one Hadoop split) or ``spark.read.text`` (its file scan packs small
files into one partition and cuts large ones)."""

from __future__ import annotations

import itertools

import pytest

from perfx.isolation import udf
from perfx.isolation.sources import read_partition_lines, scan_splits, text_splits

pytestmark = pytest.mark.spark


def _assert_lines_found(path_lines: dict[str, list[str]], splits, by_partition) -> None:
    """Every line Spark gave each partition is read back from its splits, with its file
    and byte offset; one line past the partition's last is not."""
    offsets = {}
    for path, raw in path_lines.items():
        position = 0
        for line in raw:
            offsets.setdefault((path, line.rstrip("\r\n")), position)
            position += len(line.encode())
    assert len(splits) == len(by_partition)
    for partition, spark_lines in enumerate(by_partition):
        wanted = set(range(len(spark_lines))) | {len(spark_lines)}
        found = read_partition_lines(splits[partition], wanted)
        assert [found[i][2] for i in range(len(spark_lines))] == spark_lines
        assert len(spark_lines) not in found
        for i, line in enumerate(spark_lines):
            path, offset, _ = found[i]
            assert offsets[(path.removeprefix("file:"), line)] == offset


def _write(path, lines: list[str]) -> list[str]:
    path.write_bytes("".join(lines).encode())
    return lines


def test_split_lines_match_spark_partitions(spark, tmp_path):
    """Lines end as Hadoop ends them: at CR LF, LF or a lone CR (an old Mac file's lines
    were one line to perfx, and its culprits' locations read "(file unreadable)")."""
    path = tmp_path / "lines.txt"
    lines = [f"line {i} " + "x" * (i % 37) for i in range(4000)]
    ends = ["\r\n"] * 1300 + ["\r"] * 1300 + ["\n"] * 1400
    raw = _write(path, [line + end for line, end in zip(lines, ends)])
    rdd = spark.sparkContext.textFile(str(path), 7)
    splits = text_splits(rdd)
    assert splits is not None and len(splits) == rdd.getNumPartitions() >= 7
    assert all(len(files) == 1 for files in splits)
    by_partition = rdd.glom().collect()
    _assert_lines_found({str(path): raw}, splits, by_partition)
    # the lines of a DataFrame UDF's input are found where Spark read them too
    said = [line for partition in by_partition for line in partition]
    located = udf.locate_lines([str(path)], {udf.digest(line) for line in said})
    offsets = itertools.accumulate((len(line) for line in raw), initial=0)
    assert [located[udf.digest(line)] for line in said] == [
        [(f"{path.resolve()}@{offset}", number)] for number, offset in enumerate(offsets, 1)
    ][: len(said)]


def test_scan_lines_match_spark_read_text_partitions(spark, tmp_path):
    """Small files packed into a partition and a large one cut across several: each row's
    file and offset, as Spark's scan read them."""
    folder = tmp_path / "in"
    folder.mkdir()
    written = {
        str(folder / f"small-{n}.txt"): _write(
            folder / f"small-{n}.txt", [f"small {n} line {i}\n" for i in range(n * 7 + 1)]
        )
        for n in range(5)
    }
    large = folder / "large.txt"
    written[str(large)] = _write(
        large, [f"large line {i} " + "y" * (i % 23) + "\n" for i in range(3000)]
    )
    settings = {"spark.sql.files.maxPartitionBytes": "16k", "spark.sql.files.openCostInBytes": "1k"}
    before = {key: spark.conf.get(key) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        rows = spark.read.text(str(folder)).rdd
        by_partition = [[row.value for row in p] for p in rows.glom().collect()]
        splits = scan_splits(rows)
    finally:
        for key, value in before.items():
            spark.conf.set(key, value)
    assert splits is not None and len(splits) == len(by_partition)
    assert any(len(files) > 1 for files in splits), "no partition packs several files"
    assert sum(split["path"].endswith("large.txt") for files in splits for split in files) > 1
    _assert_lines_found(written, splits, by_partition)
