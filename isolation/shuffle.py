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


def combine(create, merge_value, run: str, stage: int, store, full: bool):
    def run_partition(index, records):
        clock = perf_counter_ns
        groups: dict = {}
        seen = spent = 0
        for record in records:
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


def join_tag(side: int, run: str, stage: int, store, full: bool):
    """The map side of a join (a stage end): each record is its own pre-shuffle output."""

    def run_partition(index, records):
        clock = perf_counter_ns
        tagged = []
        spent = 0
        for record in records:
            start = clock()
            try:
                key, value = record[0]
            except (TypeError, ValueError):
                raise not_a_pair(record, "join") from None
            tagged.append((key, value, record))
            spent += clock() - start
        rows = PartitionRows(full, output=False)
        base = partition_base(stage, index)
        share = spent // len(tagged) if tagged else 0
        for seq, (_, _, record) in enumerate(tagged):
            rows.add(base + seq, record[1] + share, record[2], record[3] + share, share)
            if full:
                rows.add_inputs(record[6], [record[5] + record[4]] * len(record[6]))
        write_rows(store, run, stage, index, rows)
        for seq, (key, value, record) in enumerate(tagged):
            payload = (side, value, record[1] + share, record[2])
            yield key, (payload + (base + seq,) if full else payload)

    return run_partition


def join_merge(full: bool):
    """The reduce side of a join: every (left, right) pair of a key is an output with those
    two inputs, sharing the partition's merge time by 2 / inputs of the partition."""

    def run_partition(index, pairs):
        clock = perf_counter_ns
        groups: dict = {}
        seen = spent = 0
        for key, payload in pairs:
            start = clock()
            sides = groups.get(key)
            if sides is None:
                groups[key] = sides = ([], [])
            sides[payload[0]].append(payload)
            seen += 1
            spent += clock() - start
        share = 2 * spent // seen if seen else 0
        for key, (lefts, rights) in groups.items():
            for left in lefts:
                for right in rights:
                    first, second = (
                        (left, right)
                        if (left[2], -left[3]) >= (right[2], -right[3])
                        else (right, left)
                    )
                    other = second[2] + share if second[3] != first[3] else NO_LATENCY
                    value = (key, (left[1], right[1]))
                    if full:
                        yield (
                            value,
                            first[2] + share,
                            first[3],
                            other,
                            share,
                            0,
                            (left[4], right[4]),
                        )
                    else:
                        yield (value, first[2] + share, first[3], other, share)

    return run_partition
