"""The batches plain PySpark serializes a partition's records in, worked out from the plain
values: what its ``cartesian`` pairs.

PySpark's cartesian takes the JVM's cartesian of two RDDs of serialized batches, then for
each (left batch, right batch) pair yields their product (``CartesianDeserializer``): its
order follows where the batches of each side end. Those depend on how the plain RDD was
serialized: a text file's lines one by one, ``parallelize``'s list in batches of a size it
computes, and a Python function's output in batches that double from one record while their
pickle is under 64 KB (``AutoBatchedSerializer``). Traced records are bigger and batch
otherwise, so a traced cartesian cuts each side's records into the plain run's batches."""

from __future__ import annotations

from typing import NamedTuple

from pyspark.serializers import AutoBatchedSerializer, CPickleSerializer


class Batching(NamedTuple):
    """How a plain RDD's records are batched: ``kind`` one of ``single`` (each record its
    own batch), ``fixed`` (``size`` records a batch) or ``auto`` (AutoBatchedSerializer)."""

    kind: str
    size: int = 0


SINGLE = Batching("single")
"""A text source's records: Spark's UTF-8 lines are not batched."""
AUTO = Batching("auto")
"""The output of a Python function: PySpark's default serializer."""


def fixed(size: int) -> Batching:
    """``parallelize``'s list, in batches of ``size``."""
    return Batching("fixed", size)


def plain_batches(batching: Batching, records: list) -> list[list]:
    """``records`` (traced, their plain value first) in the batches the plain run has."""
    if batching.kind == "single":
        return [[record] for record in records]
    if batching.kind == "fixed":
        size = batching.size
        return [records[i : i + size] for i in range(0, len(records), size)]
    return _auto_batches(records)


_PICKLE = CPickleSerializer()
_BEST = AutoBatchedSerializer(_PICKLE).bestSize


def _auto_batches(records: list) -> list[list]:
    """``AutoBatchedSerializer.dump_stream``'s batches of the records' plain values."""
    batches, start, size = [], 0, 1
    while start < len(records):
        batch = records[start : start + size]
        batches.append(batch)
        start += len(batch)
        pickled = len(_PICKLE.dumps([record[0] for record in batch]))
        if pickled < _BEST:
            size *= 2
        elif pickled > _BEST * 10 and size > 1:
            size //= 2
    return batches
