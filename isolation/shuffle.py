"""Shuffle operators as three partition functions around a real Spark shuffle:

* ``combine`` (pre-shuffle, a stage end): groups a partition's records by key with the user's
  create/merge functions, tracks each group's slowest path, its source and the slowest path
  of any other source, writes the stage's lineage rows and emits ``(key, payload)``;
* Spark's ``partitionBy`` moves the payloads;
* ``merge`` (post-shuffle): merges the payloads of a key with the user's combiner merge.

The combine and merge loops are timed as a whole per partition (the paper's partition
latency) and each output gets the share ``inputs of the output / inputs of the partition``.
``join`` tags each record with its side instead of combining, and its merge pairs them up.

Propagation follows docs/design.md ("Record-level isolation"): an output's path is its slowest input's path plus its share;
its source is that input's source (ties: the smaller source id); its remediated latency is
the slowest path among inputs of other sources plus its share, or none. Inputs of a combine
that started after a merge carry their own ``rest``: a group whose leader shares the output's
source contributes ``rest`` instead of ``path`` (records.py), which keeps the on-the-fly
result equal to propagating the stage's table from its stage inputs.
"""

from __future__ import annotations

from time import perf_counter_ns

from pyspark.resultiterable import ResultIterable

from .costs import RecordCosts
from .errors import UdfError
from .ids import NO_LATENCY, describe_id, excerpt, partition_base
from .lineage import PartitionRows
from .narrow import udf_error
from .tasks import write_rows

# A group's state, one list per key: accumulator, slowest path, its source, slowest path of
# another source, slowest rest of the same source, number of inputs, {input id: path}.
ACC, PATH, SOURCE, OTHER, REST, COUNT, INPUTS = range(7)


def _fold(group: list, path: int, source: int, rest: int) -> None:
    """Folds one input's (path, source, rest) into a group's provenance."""
    if path > group[PATH] or (path == group[PATH] and source < group[SOURCE]):
        if source != group[SOURCE]:
            group[OTHER] = group[PATH]
            group[REST] = rest
        elif rest > group[REST]:
            group[REST] = rest
        group[PATH] = path
        group[SOURCE] = source
    elif source != group[SOURCE]:
        if path > group[OTHER]:
            group[OTHER] = path
    elif rest > group[REST]:
        group[REST] = rest


def combine(create, merge_value, run: str, stage: int, store, full: bool, costs: int | None = None):
    """The map side of a keyed shuffle; with ``costs`` (the stage reads source records), its
    costliest records go to that costs table too (costs.py)."""

    def run_partition(index, records):
        clock = perf_counter_ns
        groups: dict = {}
        seen = spent = 0
        kept = RecordCosts()
        floor = kept.floor if costs is not None else -NO_LATENCY  # nothing is kept without
        began = clock()
        for record in records:
            if record[1] > floor:
                kept.add(record[1], record[2])
                floor = kept.floor
            start = clock()
            try:
                key, value = record[0]
            except (TypeError, ValueError):
                raise not_a_pair(record, "a combine") from None
            group = groups.get(key)
            if group is None:
                try:
                    accumulator = create(value)
                except Exception as err:
                    raise udf_error(create, record, err) from err
                groups[key] = group = [
                    accumulator,
                    record[1],
                    record[2],
                    NO_LATENCY,
                    record[3],
                    1,
                    {} if full else None,
                ]
            else:
                try:
                    group[ACC] = merge_value(group[ACC], value)
                except Exception as err:
                    raise udf_error(merge_value, record, err) from err
                group[COUNT] += 1
                path = record[1]
                if path < group[PATH] and record[2] != group[SOURCE]:  # the common case, inline
                    if path > group[OTHER]:
                        group[OTHER] = path
                else:
                    _fold(group, path, record[2], record[3])
            seen += 1
            spent += clock() - start
            if full:  # lineage bookkeeping, not the program's combine: left out of its time
                inputs = group[INPUTS]
                path = record[5] + record[4]
                for input_id in record[6]:
                    if inputs.get(input_id, NO_LATENCY) < path:
                        inputs[input_id] = path
        elapsed = clock() - began
        rows = PartitionRows(full, output=False, keyed=True)
        base = partition_base(stage, index)
        for seq, (key, group) in enumerate(groups.items()):
            share = group[COUNT] * spent // seen
            total = group[PATH] + share
            rows.add(
                base + seq, total, group[SOURCE], max(group[OTHER], group[REST]) + share, share
            )
            rows.add_key(key, group[COUNT])
            if full:
                rows.add_inputs(group[INPUTS].keys(), group[INPUTS].values())
        write_rows(store, run, stage, index, rows)
        if costs is not None:
            kept.write(store, run, costs, index, full, elapsed, spent // seen if seen else 0)
        for seq, (key, group) in enumerate(groups.items()):
            share = group[COUNT] * spent // seen
            if full:
                yield key, (group[ACC], group[PATH] + share, group[SOURCE], base + seq)
            else:
                yield key, (group[ACC], group[PATH] + share, group[SOURCE])

    return run_partition


def not_a_pair(record: tuple, operator: str) -> UdfError:
    """The error for a keyed operator given a record that is not a (key, value) pair."""
    return UdfError(
        f"{operator} needs (key, value) records, got {excerpt(record[0])} "
        f"(input {describe_id(record[2])})"
    )


def merge(merge_combiners, full: bool):
    def run_partition(index, pairs):
        clock = perf_counter_ns
        groups: dict = {}
        seen = spent = 0
        for key, payload in pairs:
            start = clock()
            group = groups.get(key)
            if group is None:
                groups[key] = group = [
                    payload[0],
                    payload[1],
                    payload[2],
                    NO_LATENCY,
                    NO_LATENCY,
                    1,
                    [] if full else None,
                ]
            else:
                try:
                    group[ACC] = merge_combiners(group[ACC], payload[0])
                except Exception as err:
                    raise udf_error(
                        merge_combiners, ((key, payload[0]),) + payload[1:], err
                    ) from err
                group[COUNT] += 1
                _fold(group, payload[1], payload[2], NO_LATENCY)
            seen += 1
            spent += clock() - start
            if full:
                group[INPUTS].append(payload[3])
        for key, group in groups.items():
            share = group[COUNT] * spent // seen
            path, other = group[PATH] + share, group[OTHER] + share
            if full:
                yield (
                    (key, group[ACC]),
                    path,
                    group[SOURCE],
                    other,
                    share,
                    0,
                    tuple(group[INPUTS]),
                )
            else:
                yield ((key, group[ACC]), path, group[SOURCE], other, share)

    return run_partition


def join_tag(
    side: int,
    run: str,
    stage: int,
    store,
    full: bool,
    pairs: bool = True,
    costs: int | None = None,
):
    """The map side of a join or cogroup (a stage end): each record is its own pre-shuffle
    output, keyed by its key (``pairs``) or by the whole record (subtract, intersection);
    with ``costs`` (the stage reads source records), its costliest records go to that costs
    table too (costs.py)."""

    def run_partition(index, records):
        clock = perf_counter_ns
        tagged = []
        spent = 0
        began = clock()
        for record in records:
            start = clock()
            if pairs:
                try:  # PySpark's joins read a record's first two items (a wider one joins too)
                    key, value = record[0][0], record[0][1]
                except (TypeError, IndexError, KeyError):
                    raise not_a_pair(record, "join") from None
            else:
                key = value = record[0]
            tagged.append((key, value, record))
            spent += clock() - start
        elapsed = clock() - began
        rows = PartitionRows(full, output=False)
        base = partition_base(stage, index)
        share = spent // len(tagged) if tagged else 0
        for seq, (_, _, record) in enumerate(tagged):
            rows.add(base + seq, record[1] + share, record[2], record[3] + share, share)
            if full:
                rows.add_inputs(record[6], [record[5] + record[4]] * len(record[6]))
        write_rows(store, run, stage, index, rows)
        if costs is not None:
            kept = RecordCosts()
            for _, _, record in tagged:
                if record[1] > kept.floor:
                    kept.add(record[1], record[2])
            kept.write(store, run, costs, index, full, elapsed, share)
        for seq, (key, value, record) in enumerate(tagged):
            payload = (side, value, record[1] + share, record[2])
            yield key, (payload + (base + seq,) if full else payload)

    return run_partition


def join_merge(full: bool, emit, sides: int = 2):
    """The reduce side of a join or cogroup of ``sides`` datasets: ``emit(key, lefts,
    rights)`` (the payloads of each side; a cogroup of more, one list per side) yields
    ``(value, inputs)`` per output; an output's provenance is that of its slowest input, and
    it shares the partition's merge time by its inputs / inputs of the partition."""

    def run_partition(index, pairs):
        clock = perf_counter_ns
        groups: dict = {}
        seen = spent = 0
        for key, payload in pairs:
            start = clock()
            grouped = groups.get(key)
            if grouped is None:
                groups[key] = grouped = tuple([] for _ in range(sides))
            grouped[payload[0]].append(payload)
            seen += 1
            spent += clock() - start
        for key, grouped in groups.items():
            for value, inputs in emit(key, *grouped):
                share = len(inputs) * spent // seen
                first = inputs[0]
                for payload in inputs[1:]:
                    if (payload[2], -payload[3]) > (first[2], -first[3]):
                        first = payload
                other = max((p[2] for p in inputs if p[3] != first[3]), default=NO_LATENCY - share)
                if full:
                    yield (
                        value,
                        first[2] + share,
                        first[3],
                        other + share,
                        share,
                        0,
                        tuple(p[4] for p in inputs),
                    )
                else:
                    yield (value, first[2] + share, first[3], other + share, share)

    return run_partition


# What the reduce side of each join-like operator emits: (value, the payloads it derives from)
# for one key, given the payloads (side, value, path, source[, id]) of its left and right side.


def inner(key, lefts, rights):
    for left in lefts:
        for right in rights:
            yield (key, (left[1], right[1])), (left, right)


def left_outer(key, lefts, rights):
    if rights:
        yield from inner(key, lefts, rights)
    else:
        for left in lefts:
            yield (key, (left[1], None)), (left,)


def right_outer(key, lefts, rights):
    if lefts:
        yield from inner(key, lefts, rights)
    else:
        for right in rights:
            yield (key, (None, right[1])), (right,)


def full_outer(key, lefts, rights):
    if lefts and rights:
        yield from inner(key, lefts, rights)
    else:
        yield from left_outer(key, lefts, rights)
        yield from right_outer(key, lefts, rights)


def cogroup(key, *sides):
    """One output per key: the values of each side, each a ResultIterable as PySpark's."""
    grouped = tuple(ResultIterable([p[1] for p in side]) for side in sides)
    yield (key, grouped), [p for side in sides for p in side]


def subtract_by_key(key, lefts, rights):
    if not rights:
        for left in lefts:
            yield (key, left[1]), (left,)


def subtract(key, lefts, rights):
    """Records keyed by themselves: the left ones that the right side lacks, each kept."""
    if not rights:
        for left in lefts:
            yield left[1], (left,)


def intersection(key, lefts, rights):
    """Records keyed by themselves: one output per record both sides hold."""
    if lefts and rights:
        yield key, lefts + rights
