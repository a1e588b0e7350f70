"""What a Spark task gives the partition functions, without Spark: a clock that advances only
when a user function says it spent time (so every latency is known exactly), a lineage store
that keeps what each partition wrote, and a stage run that drives one partition function
over a list of partitions the way Spark's ``mapPartitionsWithIndex`` does.

Outside Spark ``TaskContext.get()`` is None, so ``write_rows`` writes attempt 0 of Spark
stage -1: the store checks it, which proves the rows came from a task outside Spark.
"""

from __future__ import annotations

import zlib

import pandas as pd
import pyarrow as pa

from perfx.isolation import narrow, shuffle
from perfx.isolation.lineage import SCHEMA


class Clock:
    """``perf_counter_ns`` for the partition functions: the time user functions spent."""

    START = 1_000_000  # as a real clock, never 0: a reading is not a duration

    def __init__(self) -> None:
        self.now = self.START

    @property
    def spent(self) -> int:
        return self.now - self.START

    def __call__(self) -> int:
        return self.now

    def spend(self, ns: int) -> None:
        self.now += ns


class Store:
    """A lineage store that keeps every partition's table, by stage and partition."""

    def __init__(self) -> None:
        self.tables: dict[tuple[int, int], pa.Table] = {}

    def write_partition(self, run, stage, partition, table, attempt, spark_stage) -> None:
        assert (run, attempt, spark_stage) == ("run", 0, -1)
        assert table.schema == SCHEMA
        self.tables[stage, partition] = table

    def stage(self, stage: int) -> pd.DataFrame:
        """The stage's rows, partition by partition."""
        parts = [t for (s, _), t in sorted(self.tables.items()) if s == stage]
        return pa.concat_tables(parts).to_pandas()


def use_clock(monkeypatch) -> Clock:
    """Makes the narrow and shuffle operators time with a fresh Clock."""
    clock = Clock()
    monkeypatch.setattr(narrow, "perf_counter_ns", clock)
    monkeypatch.setattr(shuffle, "perf_counter_ns", clock)
    return clock


def run_stage(function, partitions: list[list]) -> list[list]:
    """``function(index, records)`` over each partition, as Spark runs a stage's tasks."""
    return [list(function(index, iter(records))) for index, records in enumerate(partitions)]


def exchange(partitions: list[list], count: int) -> list[list]:
    """Spark's shuffle of ``(key, payload)`` pairs: each to one partition by a hash of its
    key (crc32 of its repr: the same in every process), in the order the map partitions
    produced them."""
    out: list[list] = [[] for _ in range(count)]
    for pairs in partitions:
        for key, payload in pairs:
            out[zlib.crc32(repr(key).encode()) % count].append((key, payload))
    return out
