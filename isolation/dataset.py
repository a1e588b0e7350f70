"""TracedDataset: the RDD-like API a traced program is written against.

Underneath is an RDD of provenance tuples (records.py). Narrow operators stay narrow;
shuffle operators are a combine (a stage end that writes lineage), a real Spark
``partitionBy`` and a merge; actions add an output stage end. A dataset that gets a second
consumer is persisted, and so is every action's output, so that no traced work is computed
twice: a recomputation would time the same records again.
"""

from __future__ import annotations

import copy

from pyspark.core.rdd import RDD, portable_hash

from . import narrow, output, shuffle
from .records import TracedRecord


def _single(value):
    return [value]


def _append(values, value):
    values.append(value)
    return values


def _extend(values, more):
    values.extend(more)
    return values


class TracedDataset:
    """A distributed dataset whose records carry their provenance; use it like an RDD."""

    def __init__(self, ctx, rdd, name: str, stage_inputs: tuple[int, ...]):
        self.ctx = ctx
        self.name = name
        self._rdd = rdd
        self._stage_inputs = stage_inputs
        self._consumers = 0
        self._output: tuple[int, RDD] | None = None

    def __repr__(self) -> str:
        return f"TracedDataset({self.name})"

    def getNumPartitions(self) -> int:
        return self._rdd.getNumPartitions()

    # -- plumbing --------------------------------------------------------------------------

    def _consume(self):
        """The RDD for one more consumer: persisted when it is the second one."""
        self._consumers += 1
        if self._consumers == 2:
            self.ctx._persist(self._rdd)
        return self._rdd

    def _narrow(self, factory, function, name: str, keeps_partitioning: bool) -> TracedDataset:
        rdd = self._consume().mapPartitions(
            factory(function, self.ctx.full), preservesPartitioning=keeps_partitioning
        )
        return TracedDataset(self.ctx, rdd, f"{self.name}.{name}", self._stage_inputs)

    # -- narrow operators ------------------------------------------------------------------

    def map(self, f) -> TracedDataset:
        return self._narrow(narrow.map_records, f, "map", False)

    def flatMap(self, f) -> TracedDataset:
        return self._narrow(narrow.flat_map, f, "flatMap", False)

    def filter(self, f) -> TracedDataset:
        return self._narrow(narrow.filter_records, f, "filter", True)

    def mapValues(self, f) -> TracedDataset:
        return self._narrow(narrow.map_values, f, "mapValues", True)

    def flatMapValues(self, f) -> TracedDataset:
        return self._narrow(narrow.flat_map_values, f, "flatMapValues", True)

    # -- shuffles --------------------------------------------------------------------------

    def _reduce_partitions(self, numPartitions: int | None) -> int:
        if numPartitions:
            return numPartitions
        sc = self._rdd.context
        if sc.getConf().contains("spark.default.parallelism"):
            return sc.defaultParallelism
        return self._rdd.getNumPartitions()

    def combineByKey(
        self,
        createCombiner,
        mergeValue,
        mergeCombiners,
        numPartitions=None,
        partitionFunc=portable_hash,
        name: str = "combineByKey",
    ) -> TracedDataset:
        partitions = self._reduce_partitions(numPartitions)
        rdd = self._consume()
        stage = self.ctx._new_stage(
            "combine", f"{self.name}.{name}", self._stage_inputs, rdd.getNumPartitions()
        )
        combined = rdd.mapPartitionsWithIndex(
            shuffle.combine(
                createCombiner, mergeValue, self.ctx.run_id, stage, self.ctx.store, self.ctx.full
            )
        )
        merged = combined.partitionBy(partitions, partitionFunc).mapPartitionsWithIndex(
            shuffle.merge(mergeCombiners, self.ctx.full), preservesPartitioning=True
        )
        return TracedDataset(self.ctx, merged, f"{self.name}.{name}", (stage,))

    def reduceByKey(self, func, numPartitions=None, partitionFunc=portable_hash) -> TracedDataset:
        return self.combineByKey(
            lambda v: v, func, func, numPartitions, partitionFunc, name="reduceByKey"
        )

    def aggregateByKey(
        self, zeroValue, seqFunc, combFunc, numPartitions=None, partitionFunc=portable_hash
    ) -> TracedDataset:
        def create(value):
            return seqFunc(copy.deepcopy(zeroValue), value)

        return self.combineByKey(
            create, seqFunc, combFunc, numPartitions, partitionFunc, name="aggregateByKey"
        )

    def groupByKey(self, numPartitions=None, partitionFunc=portable_hash) -> TracedDataset:
        """Groups are lists (PySpark gives a ResultIterable over one)."""
        return self.combineByKey(
            _single, _append, _extend, numPartitions, partitionFunc, name="groupByKey"
        )

    def join(self, other: TracedDataset, numPartitions=None) -> TracedDataset:
        """Inner join: ``(k, (v, w))`` for every pair of a key, each with those two inputs."""
        if other.ctx is not self.ctx:
            raise ValueError("join needs two datasets of the same TracedContext")
        partitions = numPartitions or max(
            self._reduce_partitions(None), other._reduce_partitions(None)
        )
        name = f"{self.name}.join({other.name})"
        sides = []
        for side, dataset in enumerate((self, other)):
            rdd = dataset._consume()
            stage = self.ctx._new_stage(
                "combine", f"{name}[{side}]", dataset._stage_inputs, rdd.getNumPartitions()
            )
            sides.append(
                (
                    stage,
                    rdd.mapPartitionsWithIndex(
                        shuffle.join_tag(
                            side, self.ctx.run_id, stage, self.ctx.store, self.ctx.full
                        )
                    ),
                )
            )
        joined = (
            sides[0][1]
            .union(sides[1][1])
            .partitionBy(partitions)
            .mapPartitionsWithIndex(shuffle.join_merge(self.ctx.full), preservesPartitioning=True)
        )
        return TracedDataset(self.ctx, joined, name, (sides[0][0], sides[1][0]))

    # -- actions ---------------------------------------------------------------------------

    def _finalized(self) -> tuple[int, RDD]:
        """This dataset's output stage: computed once, persisted, then reused by every action."""
        if self._output is None:
            rdd = self._consume()
            stage = self.ctx._new_stage(
                "output", self.name, self._stage_inputs, rdd.getNumPartitions()
            )
            finalized = rdd.mapPartitionsWithIndex(
                output.finalize(self.ctx.run_id, stage, self.ctx.store, self.ctx.full)
            )
            self._output = (stage, self.ctx._persist(finalized))
        return self._output

    def collect_traced(self) -> list[TracedRecord]:
        """The records with their provenance: id, latency, most impactful source, remediated."""
        stage, rdd = self._finalized()
        rows = self.ctx._run_action(stage, rdd.collect)
        return [
            TracedRecord(value, out_id, total / 1e6, source, rest / 1e6)
            for value, out_id, total, source, rest in rows
        ]

    def collect(self) -> list:
        return [record.value for record in self.collect_traced()]

    def count(self) -> int:
        stage, rdd = self._finalized()
        return self.ctx._run_action(stage, rdd.count)

    def saveAsTextFile(self, path: str, compressionCodecClass: str | None = None) -> None:
        stage, rdd = self._finalized()
        values = rdd.map(lambda row: row[0])
        self.ctx._run_action(stage, lambda: values.saveAsTextFile(path, compressionCodecClass))
