"""The narrow operators' partition functions on hand-made provenance tuples, timed by a clock
that advances only by what the user functions spend: each output must be the plain
function's value with exactly that time added to its path, rest and compute."""

from __future__ import annotations

import functools

import pytest

from perfx.isolation import narrow
from perfx.isolation.errors import UdfError
from perfx.isolation.ids import NO_LATENCY, partition_base

from .tasks import use_clock

ID = partition_base(2, 1) + 5  # reads t2/p1/#5
# (value, path, source, rest, shuffle[, compute, inputs])
IMPACT = [("ab", 100, ID, 40, 3), ("c", 7, ID + 1, NO_LATENCY, 0)]
FULL = [("ab", 100, ID, 40, 3, 20, (ID, ID + 9)), ("c", 7, ID + 1, NO_LATENCY, 0, 0, (ID + 1,))]
COST = {"ab": 30, "c": 11}


@pytest.fixture
def clock(monkeypatch):
    return use_clock(monkeypatch)


def timed(clock, function):
    """``function`` that spends COST of its record's text (the value, or a pair's value)."""

    def user(value):
        text = value[1] if isinstance(value, tuple) else value
        clock.spend(COST[text])
        return function(value)

    return user


def advanced(record, value, spent):
    """The record a narrow operator makes from ``record``: ``value``, ``spent`` on its path."""
    out = (value, record[1] + spent, record[2], record[3] + spent, record[4])
    return out + (record[5] + spent, record[6]) if len(record) == 7 else out


@pytest.mark.parametrize("records", [IMPACT, FULL], ids=["impact", "full"])
def test_map_adds_each_calls_time_to_its_records_path_rest_and_compute(clock, records):
    out = list(narrow.map_records(timed(clock, str.upper), len(records[0]) == 7)(iter(records)))
    assert out == [advanced(r, r[0].upper(), COST[r[0]]) for r in records]


@pytest.mark.parametrize("records", [IMPACT, FULL], ids=["impact", "full"])
def test_map_values_keeps_the_key_and_times_the_value(clock, records):
    pairs = [(("k", r[0]),) + r[1:] for r in records]
    out = list(narrow.map_values(timed(clock, str.upper), len(records[0]) == 7)(iter(pairs)))
    assert out == [advanced(p, ("k", p[0][1].upper()), COST[p[0][1]]) for p in pairs]


@pytest.mark.parametrize("records", [IMPACT, FULL], ids=["impact", "full"])
def test_flat_map_puts_the_whole_call_on_every_output_and_none_for_an_empty_result(clock, records):
    out = list(narrow.flat_map(timed(clock, list), len(records[0]) == 7)(iter(records)))
    ab, c = records
    assert out == [advanced(ab, "a", 30), advanced(ab, "b", 30), advanced(c, "c", 11)]
    empty = list(narrow.flat_map(timed(clock, lambda v: []), len(ab) == 7)(iter(records)))
    assert empty == [] and clock.spent == 2 * 41


@pytest.mark.parametrize("records", [IMPACT, FULL], ids=["impact", "full"])
def test_flat_map_values_pairs_each_value_with_the_key(clock, records):
    pairs = [((1, r[0]),) + r[1:] for r in records]
    out = list(narrow.flat_map_values(timed(clock, list), len(records[0]) == 7)(iter(pairs)))
    ab, c = pairs
    assert out == [
        advanced(ab, (1, "a"), 30),
        advanced(ab, (1, "b"), 30),
        advanced(c, (1, "c"), 11),
    ]


@pytest.mark.parametrize("records", [IMPACT, FULL], ids=["impact", "full"])
def test_filter_keeps_the_records_the_function_keeps_with_its_time(clock, records):
    out = list(
        narrow.filter_records(timed(clock, lambda v: len(v) > 1), len(records[0]) == 7)(
            iter(records)
        )
    )
    assert out == [advanced(records[0], "ab", 30)] and clock.spent == 41


@pytest.mark.parametrize("records", [IMPACT, FULL], ids=["impact", "full"])
def test_key_by_keys_and_values(clock, records):
    full = len(records[0]) == 7
    keyed = list(narrow.key_by(timed(clock, len), full)(iter(records)))
    assert keyed == [advanced(r, (len(r[0]), r[0]), COST[r[0]]) for r in records]
    assert [r[0] for r in narrow.keys(full)(iter(keyed))] == [2, 1]
    assert [r[0] for r in narrow.values(full)(iter(keyed))] == ["ab", "c"]
    assert [r[1:] for r in narrow.keys(full)(iter(keyed))] == [r[1:] for r in keyed]
    assert list(narrow.values(full)(iter(keyed[:1]))) == [(records[0][0],) + keyed[0][1:]]


def test_keys_and_values_of_a_record_that_is_not_a_pair_fail_naming_the_accessor():
    for factory, name in ((narrow.keys, "_key"), (narrow.values, "_value")):
        with pytest.raises(UdfError) as caught:
            list(factory(False)(iter([(5,) + IMPACT[0][1:]])))
        assert str(caught.value) == (
            f"{name} raised TypeError: 'int' object is not subscriptable on record 5 (input t2/p1/#5)"
        )


def fails(value):
    raise ValueError(f"bad  value\n{value}")


def test_a_failing_function_is_named_with_its_record_and_input_in_one_line():
    for factory in (narrow.map_records, narrow.flat_map, narrow.filter_records, narrow.key_by):
        with pytest.raises(UdfError) as caught:
            list(factory(fails, False)(iter(IMPACT)))
        assert str(caught.value) == (
            "fails raised ValueError: bad value ab on record ab (input t2/p1/#5)"
        )
        assert isinstance(caught.value.__cause__, ValueError)


def test_a_failure_on_a_pairs_value_names_the_users_function_not_the_wrapper():
    for factory in (narrow.map_values, narrow.flat_map_values):
        with pytest.raises(
            UdfError, match=r"^fails raised ValueError: bad value x on record \('k', 'x'\)"
        ):
            list(factory(fails, True)(iter([(("k", "x"),) + FULL[0][1:]])))


def test_an_error_without_a_message_and_a_function_without_a_name():
    def silent(value):
        raise KeyError()

    with pytest.raises(UdfError) as caught:
        list(narrow.map_records(silent, False)(iter(IMPACT)))
    assert str(caught.value).startswith(
        "test_an_error_without_a_message_and_a_function_without_a_name.<locals>.silent raised KeyError on record"
    )
    nameless = functools.partial(fails)
    with pytest.raises(UdfError) as caught:
        list(narrow.map_records(nameless, False)(iter(IMPACT)))
    assert str(caught.value).startswith(f"{nameless!r} raised ValueError: bad value ab")
    long = "x" * 300
    with pytest.raises(UdfError) as caught:
        list(narrow.map_records(fails, False)(iter([(long,) + IMPACT[0][1:]])))
    message = str(caught.value).split("ValueError: ")[1]
    assert message.startswith("bad value " + "x" * 189 + "…")


def test_map_partitions_outputs_derive_from_the_whole_partition(clock):
    def user(*args):
        clock.spend(50)
        return ["".join(args[-1])] + ([args[0]] if len(args) == 2 else [])

    for full, records in ((False, IMPACT), (True, FULL)):
        out = list(narrow.map_partitions(user, False, full)(3, iter(records)))
        assert out == [narrow.merged(records, "abc", 50, full)]
        out = list(narrow.map_partitions(user, True, full)(3, iter(records)))
        assert out == [
            narrow.merged(records, "abc", 50, full),
            narrow.merged(records, 3, 50, full),
        ]
    # the lead is the slowest input; its rest is the other source's path
    assert narrow.merged(IMPACT, "v", 50, False) == ("v", 150, ID, 90, 3)
    (empty,) = narrow.map_partitions(lambda it: [sum(1 for _ in it)], False, True)(0, iter([]))
    assert empty == (0, 0, -1, NO_LATENCY, 0, 0, ())
    assert narrow.merged([], "x", 9, False) == ("x", 9, -1, NO_LATENCY, 0)
    assert narrow.merged([], "x", 9, True) == ("x", 9, -1, NO_LATENCY, 0, 9, ())


def test_map_partitions_puts_each_records_own_time_on_its_path(clock):
    """A function that works record by record (a parse, a running min): the time between
    taking a record and asking for the next is the record's, and the record that cost it
    leads every output, however cheap its path so far; the rest of the call is shared."""

    def user(values):
        clock.spend(5)  # before the first record: shared
        total = 0
        for value in values:
            clock.spend(COST[value])
            total += len(value)
        clock.spend(2)  # after the last: shared
        return [total, -total]

    cheap_first = [("c", 100, ID + 1, NO_LATENCY, 0), ("ab", 7, ID, NO_LATENCY, 3)]
    out = list(narrow.map_partitions(user, False, False)(0, iter(cheap_first)))
    own = [advanced(cheap_first[0], "c", 11), advanced(cheap_first[1], "ab", 30)]
    assert out == [narrow.merged(own, 3, 7, False), narrow.merged(own, -3, 7, False)]
    assert out[0] == (3, 118, ID + 1, 44, 0)  # the first record's path still leads: 111 > 37
    costly_first = [("ab", 7, ID, NO_LATENCY, 3), ("c", 20, ID + 1, NO_LATENCY, 0)]
    (total, _) = narrow.map_partitions(user, False, False)(0, iter(costly_first))
    assert total == (3, 44, ID, 38, 3)  # ab: 7 + 30 + 7 shared; without it, c: 20 + 11 + 7


def test_merged_leader_is_the_slowest_then_the_smallest_source_in_any_order():
    small, large = ("s", 80, 2, 9, 5), ("l", 80, 3, 4, 6)  # rests that do not order them
    assert narrow.merged([small, large], "v", 0, False) == ("v", 80, 2, 80, 5)
    assert narrow.merged([large, small], "v", 0, False) == ("v", 80, 2, 80, 5)
    # two inputs of one source on equal paths: the first leads (its shuffle share)
    first, second = ("a", 5, 1, NO_LATENCY, 2), ("b", 5, 1, NO_LATENCY, 3)
    assert narrow.merged([first, second], "v", 0, False) == ("v", 5, 1, NO_LATENCY, 2)


def test_map_partitions_failure_names_the_partition():
    with pytest.raises(
        UdfError, match=r"^fails raised ValueError: bad value <generator .* on partition 4$"
    ):
        list(narrow.map_partitions(fails, False, False)(4, iter(IMPACT)))
    with pytest.raises(UdfError, match=r"on partition 4$"):
        list(narrow.map_partitions(lambda i, it: fails(i), True, False)(4, iter(IMPACT)))


def test_merged_in_full_lineage_takes_the_slowest_compute_and_the_leaders_shuffle():
    merged = narrow.merged(FULL, "m", 4, True)
    assert merged == ("m", 104, ID, 44, 3, 24, (ID, ID + 9, ID + 1))


def test_merged_rest_of_one_source_is_the_slowest_rest_not_the_leaders_path():
    same = [("x", 10, 1, 4, 0), ("y", 8, 1, 6, 0), ("z", 3, 2, 1, 0)]
    assert narrow.merged(same, "v", 0, False)[2:4] == (1, 6)
    assert narrow.merged(same[:2], "v", 0, False)[3] == 6


def test_cartesian_pair_and_zip_with_index():
    left, right = IMPACT
    assert narrow.pair((left, right), False) == (("ab", "c"), 100, ID, 40, 3)
    assert narrow.pair((FULL[1], FULL[0]), True) == (
        ("c", "ab"),
        100,
        ID,
        40,
        3,
        20,
        (ID + 1, ID, ID + 9),
    )
    assert narrow.with_index((FULL[1], 8)) == (("c", 8),) + FULL[1][1:]
