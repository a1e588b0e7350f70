"""A stored run finds its culprit lines again without Spark: the lines of each Hadoop split,
read back by perfx, are exactly the lines Spark's textFile gave that partition."""

from __future__ import annotations

import pytest

from perfx.isolation.sources import read_split_lines, text_splits

pytestmark = pytest.mark.spark


def test_split_lines_match_spark_partitions(spark, tmp_path):
    path = tmp_path / "lines.txt"
    lines = [f"line {i} " + "x" * (i % 37) for i in range(4000)]
    path.write_bytes(("\r\n".join(lines[:2000]) + "\r\n" + "\n".join(lines[2000:]) + "\n").encode())
    rdd = spark.sparkContext.textFile(str(path), 7)
    splits = text_splits(rdd)
    assert splits is not None and len(splits) == rdd.getNumPartitions() >= 7
    by_partition = rdd.mapPartitionsWithIndex(lambda i, it: [(i, list(it))]).collect()
    offsets = {}
    position = 0
    for raw in path.read_bytes().splitlines(keepends=True):
        offsets.setdefault(raw.rstrip(b"\r\n").decode(), position)
        position += len(raw)
    for partition, spark_lines in by_partition:
        wanted = set(range(len(spark_lines))) | {len(spark_lines)}  # one past the end: absent
        found = read_split_lines(splits[partition], wanted)
        assert [found[i][1] for i in range(len(spark_lines))] == spark_lines
        assert len(spark_lines) not in found
        assert all(found[i][0] == offsets[line] for i, line in enumerate(spark_lines))
