"""The provenance arithmetic of the new operators, without Spark: a record made from several
(``narrow.merged``) and the outputs of each join-like operator (``shuffle.join_merge`` with
its emitter), on hand-made provenance tuples whose answers can be worked out by hand."""

from __future__ import annotations

from perfx.isolation import narrow, shuffle
from perfx.isolation.ids import NO_LATENCY

# impact tuples: (value, path, source, rest, shuffle)
A = ("a", 50, 7, NO_LATENCY, 1)
B = ("b", 80, 3, 20, 2)
C = ("c", 80, 2, NO_LATENCY, 0)  # ties B's path with a smaller source


def test_merged_leads_with_the_slowest_input_and_keeps_another_sources_path_as_rest():
    value, path, source, rest, shuffled = narrow.merged([A, B], "ab", 5, False)
    assert (value, path, source, rest, shuffled) == ("ab", 85, 3, 55, 2)


def test_merged_breaks_a_tie_by_the_smaller_source():
    assert narrow.merged([B, C], "bc", 0, False)[1:3] == (80, 2)


def test_merged_inputs_of_one_source_keep_the_slowest_of_their_rests():
    same = ("a2", 10, 7, 4, 0)
    assert narrow.merged([A, same], "x", 1, False)[3] == 5  # the leader's path is not a rest


def test_merged_of_nothing_derives_from_no_input():
    assert narrow.merged([], "x", 9, False)[:3] == ("x", 9, -1)
    assert narrow.merged([], "x", 9, True)[6] == ()


def test_merged_in_full_lineage_keeps_every_input_once():
    left = ("l", 5, 1, NO_LATENCY, 0, 3, (1, 2))
    right = ("r", 9, 4, NO_LATENCY, 0, 6, (2, 4))
    merged = narrow.merged([left, right], "lr", 2, True)
    assert merged[5] == 8 and merged[6] == (1, 2, 4)


def _merge(emit, pairs, full=False):
    return list(shuffle.join_merge(full, emit)(0, iter(pairs)))


def _payloads():
    # key -> payloads (side, value, path, source)
    return [
        ("k", (0, "l1", 10, 100)),
        ("k", (0, "l2", 30, 101)),
        ("k", (1, "r1", 20, 200)),
        ("only-left", (0, "l3", 5, 102)),
        ("only-right", (1, "r2", 7, 201)),
    ]


def test_inner_join_pairs_every_left_with_every_right_of_a_key():
    found = {r[0]: r[2] for r in _merge(shuffle.inner, _payloads())}
    assert found == {("k", ("l1", "r1")): 200, ("k", ("l2", "r1")): 101}


def test_outer_joins_trace_the_side_that_exists():
    left = {r[0]: r[2] for r in _merge(shuffle.left_outer, _payloads())}
    assert left[("only-left", ("l3", None))] == 102 and len(left) == 3
    right = {r[0]: r[2] for r in _merge(shuffle.right_outer, _payloads())}
    assert right[("only-right", (None, "r2"))] == 201 and len(right) == 3
    full = {r[0]: r[2] for r in _merge(shuffle.full_outer, _payloads())}
    assert len(full) == 4 and full[("only-left", ("l3", None))] == 102


def test_an_output_of_one_input_has_no_remediated_path():
    (row,) = [r for r in _merge(shuffle.left_outer, _payloads()) if r[0][0] == "only-left"]
    assert row[3] == NO_LATENCY


def test_cogroup_is_one_output_per_key_led_by_its_slowest_input():
    found = {r[0][0]: r for r in _merge(shuffle.cogroup, _payloads())}
    key, (lefts, rights) = found["k"][0]
    assert (key, lefts.data, rights.data) == ("k", ["l1", "l2"], ["r1"]) and found["k"][2] == 101
    assert set(found) == {"k", "only-left", "only-right"}


def test_set_operations_key_records_by_themselves():
    pairs = [
        ("x", (0, "x", 1, 1)),
        ("x", (0, "x", 2, 2)),
        ("y", (0, "y", 3, 3)),
        ("y", (1, "y", 4, 4)),
        ("z", (1, "z", 5, 5)),
    ]
    assert sorted(r[0] for r in _merge(shuffle.subtract, pairs)) == ["x", "x"]
    assert [r[0] for r in _merge(shuffle.intersection, pairs)] == ["y"]
    assert [r[0] for r in _merge(shuffle.subtract_by_key, pairs)] == [("x", "x"), ("x", "x")]


def test_the_merge_share_is_split_by_inputs_and_the_full_row_names_them():
    pairs = [(k, p + (i,)) for i, (k, p) in enumerate(_payloads())]
    rows = _merge(shuffle.cogroup, pairs, full=True)
    by_key = {r[0][0]: r for r in rows}
    assert by_key["k"][6] == (0, 1, 2) and by_key["only-left"][6] == (3,)
    shares = {k: r[4] for k, r in by_key.items()}
    assert shares["k"] >= shares["only-left"] >= 0


def test_a_group_shows_as_its_values_not_as_an_address():
    """A grouped output's values are PySpark's ResultIterable (as a plain run's), whose repr
    is an object address: tables show the values."""
    from pyspark.resultiterable import ResultIterable

    from perfx.isolation.ids import excerpt

    grouped = ("k", (ResultIterable([1, 2]), ResultIterable([])))
    assert excerpt(grouped) == "('k', ([1, 2], []))"
    assert excerpt(ResultIterable(["x"])) == "['x']"


def test_an_id_holds_a_run_of_thousands_of_stages():
    """An iterative program (PageRank's 45 rounds: a join and a reduce each) passed the 128
    stages 7 table bits held; ids hold 2,048, each id still round-trips."""
    from perfx.isolation.ids import MAX_PARTITIONS, MAX_TABLES, partition_base, split_id

    assert MAX_TABLES == 2048 and MAX_PARTITIONS == 1 << 20
    for table, partition, seq in [
        (0, 0, 0),
        (2047, MAX_PARTITIONS - 1, (1 << 32) - 1),
        (300, 7, 9),
    ]:
        assert split_id(partition_base(table, partition) + seq) == (table, partition, seq)
