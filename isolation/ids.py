"""Compact record ids: one int64 per record, so that provenance stays a tiny tuple.

An id packs the lineage table that produced the record (source tables included), the Spark
partition that produced it and its sequence number inside that partition:
``table << 52 | partition << 32 | seq``: 2,048 tables (an iterative program, PageRank's 45
rounds, passed the 128 of 7 bits), 1,048,576 partitions a dataset and 2^32 records a
partition. For a text source the sequence number is the line number inside the partition,
which is what locates the line in the file later.
"""

from __future__ import annotations

ID_LAYOUT = 2
"""The layout a run's record ids are written in (its metadata's ``ids``): runs stored in
another (version 1, ``table << 56``, before it was recorded) are refused, not misread."""
TABLE_SHIFT = 52
PARTITION_SHIFT = 32
MAX_TABLES = 1 << (63 - TABLE_SHIFT)
MAX_PARTITIONS = 1 << (TABLE_SHIFT - PARTITION_SHIFT)

NO_SOURCE = -1
"""The source of a record derived from no input record: a partition function's output on an
empty partition (``mapPartitions``, ``glom``). It is no record's id, and no culprit."""

NO_LATENCY = -(1 << 62)
"""Path latency (ns) of "no such input": far below any real latency, so that ``max`` ignores
it and adding UDF time to it keeps it negative. Written out as remediated latency 0."""


def partition_base(table: int, partition: int) -> int:
    """The id of record 0 of ``partition`` in ``table``; record i has ``base + i``."""
    if not 0 <= table < MAX_TABLES:
        raise ValueError(f"a traced run has at most {MAX_TABLES} lineage tables")
    if not 0 <= partition < MAX_PARTITIONS:
        raise ValueError(f"a traced dataset has at most {MAX_PARTITIONS} partitions")
    return (table << TABLE_SHIFT) | (partition << PARTITION_SHIFT)


def split_id(record_id: int) -> tuple[int, int, int]:
    """``(table, partition, seq)`` of an id."""
    return (
        record_id >> TABLE_SHIFT,
        (record_id >> PARTITION_SHIFT) & (MAX_PARTITIONS - 1),
        record_id & ((1 << PARTITION_SHIFT) - 1),
    )


def describe_id(record_id: int) -> str:
    """``"t0/p3/#17"``: how an id reads in messages and tables."""
    if record_id == NO_SOURCE:
        return "none"
    table, partition, seq = split_id(record_id)
    return f"t{table}/p{partition}/#{seq}"


EXCERPT_WIDTH = 120
"""Width of the excerpts of records that a stored run keeps (outputs, keys, source lines)."""


def _shown(value: object) -> object:
    """A record as a table shows it: a group's ResultIterable as its list of values
    (Spark's repr is an address)."""
    if isinstance(value, tuple):
        return tuple(_shown(v) for v in value)
    if type(value).__module__ == "pyspark.resultiterable":
        return getattr(value, "data", value)
    return value


def excerpt(value: object, width: int = 80) -> str:
    """A one-line excerpt of a record for messages and tables."""
    text = value if isinstance(value, str) else repr(_shown(value))
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= width else text[: width - 1] + "…"
