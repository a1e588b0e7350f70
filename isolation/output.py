"""The stage end of an action: every record the action returns (or saves) is a row of the
run's output table, written by the task that produced it after its last record."""

from __future__ import annotations

from itertools import islice
from time import perf_counter_ns

from .costs import RecordCosts
from .ids import NO_LATENCY, partition_base
from .lineage import PartitionRows
from .tasks import write_rows


def finalize(
    run: str, stage: int, store, full: bool, costs: int | None = None, limit: int | None = None
):
    """Yields ``(value, out_id, total_ns, source, remediated_ns)`` per record; with ``costs``
    (the stage reads source records), its costliest records go to that costs table too
    (costs.py). With ``limit``, a partition's first ``limit`` records only: no record past
    them is computed (a take reads no more)."""

    def run_partition(index, records):
        if limit is not None:
            records = islice(records, limit)
        rows = PartitionRows(full, output=True)
        base = partition_base(stage, index)
        kept = RecordCosts()
        floor = kept.floor if costs is not None else -NO_LATENCY  # nothing is kept without
        began = perf_counter_ns()
        for seq, record in enumerate(records):
            if record[1] > floor:
                kept.add(record[1], record[2])
                floor = kept.floor
            out_id = base + seq
            rows.add(out_id, record[1], record[2], record[3], record[4])
            rows.add_output(record[0])
            if full:
                rows.add_inputs(record[6], [record[5]] * len(record[6]))
            yield record[0], out_id, record[1], record[2], max(record[3], 0)
        write_rows(store, run, stage, index, rows)
        if costs is not None:
            kept.write(store, run, costs, index, full, perf_counter_ns() - began)

    return run_partition
