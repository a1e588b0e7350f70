"""Each input record's own cost in the stage that read it: the credit PerfDebug's propagation
gives a record for the time on its own path, kept where a combine, a group or a join would
dilute it.

Propagation keeps, per output, the slowest path and the slowest path of another source: an
output made of 250 records that each cost 22 ms in a ``map`` has a most impactful source
whose removal saves nothing (the next record costs as much), so every one of them reads as
cheap although the task spent 5.5 s on them. Here the stage end of a stage that reads source
records directly (a combine, a join side or an output) also keeps the ``KEPT`` costliest
source records of its partition with their own cost: the time the stage's narrow operators
spent on them plus their share of the stage end's own loop. In such a stage every record's
path starts at 0 at its source, so its path at the stage end *is* its own cost (a record
that several outputs derive from, as a ``flatMap``'s, is kept once, at its largest).

The costs are written as a companion table of the stage end (stage kind ``costs``, the same
schema and partitions, written by the same task): each row has an id of the table's own
(``out_id``), the source record's id as ``most_impactful_source`` and its cost as
``total_latency_ms``. One more row, of source ``REST`` (-1, as "derived from no input
record" elsewhere), holds the rest of the partition's traced time (from its first record to
its stage end's last), so that a partition's rows add up to its time: what ``perfx verify``
takes removed records' costs from. A stage after a shuffle works on
aggregates, not on source records: its costs stay with propagation's most impactful source.
"""

from __future__ import annotations

from heapq import heappush, heapreplace

from .ids import NO_LATENCY, NO_SOURCE, partition_base
from .lineage import PartitionRows
from .tasks import write_rows

REST = NO_SOURCE
"""The source of the row holding the partition's time beyond its kept records."""

KEPT = 1000
"""Costliest source records kept per partition: enough for ``perfx culprits --top`` and for
``perfx verify --without K``, bounded whatever the partition's size (impact lineage stays
O(1) per output row)."""


class RecordCosts:
    """The ``KEPT`` costliest (cost ns, source id) of one partition. The hot loop keeps
    ``floor`` in a local, tests ``cost > floor`` before calling ``add`` and reads ``floor``
    again after it: one comparison per cheap record."""

    __slots__ = ("_heap", "floor")

    def __init__(self) -> None:
        self.floor = NO_LATENCY
        self._heap: list[tuple[int, int]] = []

    def add(self, cost: int, source: int) -> None:
        if source == NO_SOURCE:  # derived from no input record: none to credit
            return
        if len(self._heap) < KEPT:
            heappush(self._heap, (cost, source))
            if len(self._heap) == KEPT:
                self.floor = self._heap[0][0]
        else:
            heapreplace(self._heap, (cost, source))
            self.floor = self._heap[0][0]

    def write(
        self,
        store,
        run: str,
        stage: int,
        partition: int,
        full: bool,
        elapsed: int,
        extra: int = 0,
    ) -> None:
        """Writes the kept records, each with ``extra`` ns (its share of the stage end's own
        loop) added, and the ``REST`` of the partition's ``elapsed`` ns, as partition
        ``partition`` of the costs table ``stage``."""
        costs: dict[int, int] = {}
        for cost, source in self._heap:
            if cost > costs.get(source, NO_LATENCY):
                costs[source] = cost
        rows = PartitionRows(full, output=False)
        base = partition_base(stage, partition)
        ranked = sorted(costs.items(), key=lambda kv: (-kv[1], kv[0]))
        for seq, (source, cost) in enumerate(ranked):
            rows.add(base + seq, cost + extra, source, NO_LATENCY, 0)
            if full:
                rows.add_inputs((source,), (cost + extra,))
        rest = max(elapsed - sum(costs.values()) - extra * len(costs), 0)
        rows.add(base + len(ranked), rest, REST, NO_LATENCY, 0)
        if full:
            rows.add_inputs((), ())
        write_rows(store, run, stage, partition, rows)
