"""The lineage table of one partition: its schema and the column buffers a task fills.

One table per stage end (a pre-shuffle combine, or the records an action returns or saves),
with the columns docs/design.md lists ("Record-level isolation"). Latencies travel through the run as integer nanoseconds (exact
sums, so the on-the-fly propagation and the post-mortem one agree) and are written as
float milliseconds. ``full`` lineage keeps every input id of every output (backward tracing);
``impact`` lineage keeps only the propagated fields, so a row costs O(1) whatever its fan-in.
Output tables also keep an excerpt of each output record and its key, so that a stored run
can show its outputs without the Spark job that made them. Combine tables (the map side of a
shuffle) keep each row's key and ``records``, how many records of that key the partition
combined: a data-skewed task's heavy keys, with their counts.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .ids import EXCERPT_WIDTH, excerpt

SCHEMA = pa.schema(
    [
        ("run", pa.dictionary(pa.int32(), pa.string())),
        ("stage", pa.int32()),
        ("partition", pa.int32()),
        ("out_id", pa.int64()),
        ("in_ids", pa.list_(pa.int64())),
        ("in_latency_ms", pa.list_(pa.float64())),
        ("shuffle_latency_ms", pa.float64()),
        ("total_latency_ms", pa.float64()),
        ("most_impactful_source", pa.int64()),
        ("remediated_latency_ms", pa.float64()),
        ("record", pa.string()),
        ("key", pa.string()),
        ("records", pa.int64()),
    ]
)
"""Every lineage table, of every store, has exactly these columns."""


def output_key(value: object) -> str:
    """The key of an output record as ``perfx culprits --trace`` matches it: the first field
    of a (key, value) pair, else the whole record."""
    if isinstance(value, tuple) and len(value) == 2:
        value = value[0]
    return value if isinstance(value, str) else repr(value)


class PartitionRows:
    """Column buffers for one partition's rows, appended to by the task that computes it.

    Hot loops append to the lists directly; ``add_inputs`` keeps the in-id lists flat
    (values plus offsets) so that a full-lineage row with a million inputs is one extend."""

    def __init__(self, full: bool, output: bool, keyed: bool = False):
        self.out_ids: list[int] = []
        self.totals: list[int] = []
        self.sources: list[int] = []
        self.remediated: list[int] = []
        self.shuffle: list[int] = []
        self.full = full
        self.in_ids: list[int] = []
        self.in_latency: list[int] = []
        self.offsets: list[int] = [0]
        self.records: list[str] | None = [] if output else None
        self.keys: list[str] | None = [] if output or keyed else None
        self.counts: list[int] | None = [] if keyed else None

    def add(self, out_id: int, total: int, source: int, remediated: int, shuffle: int) -> None:
        self.out_ids.append(out_id)
        self.totals.append(total)
        self.sources.append(source)
        self.remediated.append(remediated)
        self.shuffle.append(shuffle)

    def add_inputs(self, ids, latencies) -> None:
        """The input ids of the row just added, with each input's path latency (ns)."""
        self.in_ids.extend(ids)
        self.in_latency.extend(latencies)
        self.offsets.append(len(self.in_ids))

    def add_key(self, key: object, count: int) -> None:
        """The key of the row just added and how many records it combined (combine tables)."""
        if self.keys is None or self.counts is None:
            raise ValueError("add_key on the rows of a stage built without keys")
        self.keys.append(excerpt(key if isinstance(key, str) else repr(key), EXCERPT_WIDTH))
        self.counts.append(count)

    def add_output(self, value: object) -> None:
        """The output record of the row just added (output tables only)."""
        if self.records is None or self.keys is None:
            raise ValueError("add_output on the rows of a stage that is not an output")
        self.records.append(excerpt(value, EXCERPT_WIDTH))
        self.keys.append(excerpt(output_key(value), EXCERPT_WIDTH))

    def to_arrow(self, run: str, stage: int, partition: int) -> pa.Table:
        n = len(self.out_ids)
        if self.full:
            offsets = pa.array(self.offsets, pa.int32())
            in_ids = pa.ListArray.from_arrays(offsets, pa.array(self.in_ids, pa.int64()))
            in_latency = pa.ListArray.from_arrays(offsets, pa.array(_ms(self.in_latency)))
        else:
            in_ids = pa.nulls(n, pa.list_(pa.int64()))
            in_latency = pa.nulls(n, pa.list_(pa.float64()))
        columns = [
            pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([run])),
            pa.array(np.full(n, stage, np.int32)),
            pa.array(np.full(n, partition, np.int32)),
            pa.array(self.out_ids, pa.int64()),
            in_ids,
            in_latency,
            pa.array(_ms(self.shuffle)),
            pa.array(_ms(self.totals)),
            pa.array(self.sources, pa.int64()),
            pa.array(_ms(np.maximum(np.asarray(self.remediated, np.int64), 0))),
            pa.array(self.records, pa.string())
            if self.records is not None
            else pa.nulls(n, pa.string()),
            pa.array(self.keys, pa.string()) if self.keys is not None else pa.nulls(n, pa.string()),
            pa.array(self.counts, pa.int64())
            if self.counts is not None
            else pa.nulls(n, pa.int64()),
        ]
        return pa.Table.from_arrays(columns, schema=SCHEMA)


def _ms(nanoseconds) -> np.ndarray:
    return np.asarray(nanoseconds, dtype=np.int64) / 1e6
