"""Narrow operators: each wraps a user function in a partition function that times every
call with ``perf_counter_ns`` and adds the time to the record's provenance (records.py).

They run inside Spark's pipelined Python function, one generator per operator, so a stage
of narrow operators is still one pass over its partition. A user exception becomes a
UdfError naming the record and its most impactful input.
"""

from __future__ import annotations

from time import perf_counter_ns

from .errors import UdfError
from .ids import describe_id, excerpt


def udf_error(function, record: tuple, err: BaseException) -> UdfError:
    """The one-line error for ``function`` failing on ``record``."""
    name = getattr(function, "__qualname__", None) or repr(function)
    message = excerpt(" ".join(str(err).split()), 200)
    return UdfError(
        f"{name} raised {type(err).__name__}{': ' + message if message else ''} "
        f"on record {excerpt(record[0])} (input {describe_id(record[2])})"
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
    def apply(pair):
        key, value = pair
        return key, function(value)

    return _mapping(function, apply, full)


def flat_map(function, full: bool):
    return _flat_mapping(function, function, full)


def flat_map_values(function, full: bool):
    def apply(pair):
        key, value = pair
        return [(key, v) for v in function(value)]

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
