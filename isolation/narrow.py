"""Narrow operators: each wraps a user function in a partition function that times every
call with ``perf_counter_ns`` and adds the time to the record's provenance (records.py).

They run inside Spark's pipelined Python function, one generator per operator, so a stage
of narrow operators is still one pass over its partition. A user exception becomes a
UdfError naming the record and its most impactful input.
"""

from __future__ import annotations

from time import perf_counter_ns

from .errors import UdfError
from .ids import NO_LATENCY, NO_SOURCE, describe_id, excerpt


def udf_error(function, record: tuple, err: BaseException) -> UdfError:
    """The one-line error for ``function`` failing on ``record``."""
    return _raised(function, err, f"record {excerpt(record[0])} (input {describe_id(record[2])})")


def _raised(function, err: BaseException, where: str) -> UdfError:
    """``function`` raised ``err`` on ``where`` (a record, a partition), in one line."""
    name = getattr(function, "__qualname__", None) or repr(function)
    message = excerpt(" ".join(str(err).split()), 200)
    return UdfError(
        f"{name} raised {type(err).__name__}{': ' + message if message else ''} on {where}"
    )


def _advance(record: tuple, value, spent: int, full: bool) -> tuple:
    if full:
        return (
            value,
            record[1] + spent,
            record[2],
            record[3] + spent,
            record[4],
            record[5] + spent,
            record[6],
        )
    return (value, record[1] + spent, record[2], record[3] + spent, record[4])


def map_records(function, full: bool):
    return _mapping(function, function, full)


def map_values(function, full: bool):
    def apply(pair):  # PySpark's reads a pair's first two items (a wider record maps too)
        return pair[0], function(pair[1])

    return _mapping(function, apply, full)


def flat_map(function, full: bool):
    return _flat_mapping(function, function, full)


def flat_map_values(function, full: bool):
    def apply(pair):
        key = pair[0]
        return [(key, v) for v in function(pair[1])]

    return _flat_mapping(function, apply, full)


def _mapping(function, apply, full: bool):
    """One output per record, ``apply(value)``, timed; a failure names the user's ``function``
    (``apply`` is it, or it wrapped to work on a pair's value)."""

    def run(records):
        clock = perf_counter_ns
        for record in records:
            start = clock()
            try:
                value = apply(record[0])
            except Exception as err:
                raise udf_error(function, record, err) from err
            yield _advance(record, value, clock() - start, full)

    return run


def _flat_mapping(function, apply, full: bool):
    """Any number of outputs per record, ``apply(value)``. The whole call, iteration of a
    returned generator included, is timed once and lies on the path of every output."""

    def run(records):
        clock = perf_counter_ns
        for record in records:
            start = clock()
            try:
                values = list(apply(record[0]))
            except Exception as err:
                raise udf_error(function, record, err) from err
            spent = clock() - start
            if full:
                for value in values:
                    yield _advance(record, value, spent, True)
            else:  # the hot path of impact lineage: one tuple per output, nothing else
                path, source, rest, shuffle = (
                    record[1] + spent,
                    record[2],
                    record[3] + spent,
                    record[4],
                )
                for value in values:
                    yield (value, path, source, rest, shuffle)

    return run


def filter_records(function, full: bool):
    def run(records):
        clock = perf_counter_ns
        for record in records:
            start = clock()
            try:
                keep = function(record[0])
            except Exception as err:
                raise udf_error(function, record, err) from err
            if keep:
                yield _advance(record, record[0], clock() - start, full)

    return run


def key_by(function, full: bool):
    def apply(value):
        return function(value), value

    return _mapping(function, apply, full)


def _key(pair):
    return pair[0]


def _value(pair):
    return pair[1]


def keys(full: bool):
    return _mapping(_key, _key, full)


def values(full: bool):
    return _mapping(_value, _value, full)


def merged(records: list, value, spent: int, full: bool) -> tuple:
    """The provenance of a record made from several ``records`` without a stage end (a
    partition's output of ``mapPartitions``, a ``cartesian`` pair): its slowest input's path
    plus ``spent``, that input's source, and as ``rest`` the slowest path of another source
    (or the leader's own ``rest``). No input at all (a partition function's output on an empty
    partition) has source ``NO_SOURCE``: it derives from no input record."""
    if not records:
        return (
            (value, spent, NO_SOURCE, NO_LATENCY, 0, spent, ())
            if full
            else (value, spent, NO_SOURCE, NO_LATENCY, 0)
        )
    lead = records[0]
    for record in records[1:]:
        if (record[1], -record[2]) > (lead[1], -lead[2]):
            lead = record
    rest = max(r[1] if r[2] != lead[2] else r[3] for r in records)
    if not full:
        return (value, lead[1] + spent, lead[2], rest + spent, lead[4])
    inputs = tuple(dict.fromkeys(i for r in records for i in r[6]))
    compute = max(r[5] for r in records) + spent
    return (value, lead[1] + spent, lead[2], rest + spent, lead[4], compute, inputs)


def map_partitions(function, with_index: bool, full: bool):
    """``function(iterator)`` (or ``function(index, iterator)``) over a whole partition: every
    output derives from every record of the partition. What the function spends between
    taking a record and asking for the next is that record's own time (its parse, its part of
    a sum or a min): it goes on that record's path, and the record with the longest path
    leads every output. The rest of the call (before the first record, after the last, what
    it does with all of them at once) lies on every output's path. Timed as one call, the
    whole of it had gone to the slowest input, the first read however cheap it was, and the
    record that cost the time was never named (a probe of public PySpark programs)."""

    def run(index, records):
        records = list(records)
        own = [0] * len(records)

        def handed():
            clock = perf_counter_ns
            for k, record in enumerate(records):
                taken = clock()
                yield record[0]
                own[k] = clock() - taken

        start = perf_counter_ns()
        try:
            values = list(function(index, handed())) if with_index else list(function(handed()))
        except Exception as err:
            raise _raised(function, err, f"partition {index}") from err
        spent = perf_counter_ns() - start
        timed = [_advance(record, record[0], t, full) for record, t in zip(records, own)]
        for value in values:
            yield merged(timed, value, spent - sum(own), full)

    return run


def picked(sampler):
    """The records a sampler of values (``sampler(split, values)``, PySpark's stratified
    sampler) picks, each keeping its provenance: the sampler yields a value right after
    taking it (several times, sampling with replacement), so each output is the record
    taken last."""

    def run(split, records):
        taken: list = [None]

        def values():
            for record in records:
                taken[0] = record
                yield record[0]

        for _ in sampler(split, values()):
            yield taken[0]

    return run


def batch_pairs(lefts: list[list], rights: list[list], full: bool):
    """A partition pair's ``cartesian`` outputs in PySpark's order: for each left batch and
    each right batch (batches.py), their product."""
    for left_batch in lefts:
        for right_batch in rights:
            for left in left_batch:
                for right in right_batch:
                    yield pair((left, right), full)


def pair(records: tuple, full: bool) -> tuple:
    """A ``cartesian`` output: the pair of two records' values, with both as inputs."""
    return merged(list(records), (records[0][0], records[1][0]), 0, full)


def with_index(record_and_index: tuple) -> tuple:
    """A ``zipWithIndex`` output: the record's value paired with its index."""
    record, index = record_and_index
    return ((record[0], index), *record[1:])
