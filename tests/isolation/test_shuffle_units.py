"""The shuffle operators' partition functions (combine, merge, join_tag, join_merge) without
Spark, timed by a clock that advances only by what the user functions spend.

Two kinds of check: small partitions whose rows and payloads are worked out by hand (shares
that do not divide evenly, ties between sources, a slower input of another source), and
oracles over a bigger input: the traced values equal the plain computation, the on-the-fly
provenance written in the output table equals ``propagate()`` of the written tables, and
impact lineage writes the same provenance as full lineage."""

from __future__ import annotations

from collections import defaultdict

import pytest
from pyspark.resultiterable import ResultIterable

from perfx.isolation import narrow, shuffle, sources
from perfx.isolation.errors import UdfError
from perfx.isolation.ids import NO_LATENCY, excerpt, partition_base
from perfx.isolation.output import finalize
from perfx.isolation.propagation import propagate

from .tasks import Store, exchange, run_stage, use_clock


@pytest.fixture
def clock(monkeypatch):
    return use_clock(monkeypatch)


def source(values, full, path=0):
    """Stage-0 records with ids 101, 102, ...: (value, path, id, rest, shuffle[, compute, inputs])."""
    for number, (value, latency) in enumerate(values, start=101):
        record = (value, latency, number, NO_LATENCY, 0)
        yield record + (latency, (number,)) if full else record


def rows(store, stage):
    """The written rows of a stage as tuples: out_id, total, source, remediated, shuffle
    (ms), key, records, in_ids, in_latency_ms."""
    table = store.stage(stage)
    columns = [
        "out_id",
        "total_latency_ms",
        "most_impactful_source",
        "remediated_latency_ms",
        "shuffle_latency_ms",
        "key",
        "records",
        "in_ids",
        "in_latency_ms",
    ]
    return [
        tuple(list(v) if hasattr(v, "tolist") else v for v in row)
        for row in table[columns].itertuples(index=False)
    ]


def listing(clock, create_cost=6, merge_cost=5):
    def create(value):
        clock.spend(create_cost)
        return [value]

    def merge_value(acc, value):
        clock.spend(merge_cost)
        return acc + [value]

    return create, merge_value


# a: 10 ns from 101, then 20 ns from 103 and 20 ns from 100 (a tie the smaller id leads)
GROUPED = [(("a", 1), 10), (("b", 2), 5), (("a", 3), 20), (("a", 4), 20)]


@pytest.mark.parametrize("full", [False, True], ids=["impact", "full"])
def test_combine_groups_by_key_and_splits_the_partitions_time_by_inputs(clock, full):
    records = list(source(GROUPED, full))
    records[3] = (records[3][0], 20, 100) + records[3][3:6] + ((100,),) * full
    store = Store()
    create, merge_value = listing(clock)
    out = run_stage(shuffle.combine(create, merge_value, "run", 1, store, full), [[], records])[1]
    base = partition_base(1, 1)
    # 22 ns spent over 4 inputs: a's 3 get 66 // 4 = 16, b's one 22 // 4 = 5
    expected = [("a", ([1, 3, 4], 36, 100)), ("b", ([2], 10, 102))]
    if full:
        expected = [(k, p + (base + seq,)) for seq, (k, p) in enumerate(expected)]
    assert out == expected
    a = (base, 36e-6, 100, 36e-6, 16e-6, "a", 3)
    b = (base + 1, 10e-6, 102, 0.0, 5e-6, "b", 1)
    if full:
        a += ([101, 103, 100], [10e-6, 20e-6, 20e-6])
        b += ([102], [5e-6])
    else:
        a += (None, None)
        b += (None, None)
    assert rows(store, 1) == [a, b]
    assert store.stage(1)["partition"].tolist() == [1, 1]
    assert len(store.tables[1, 0]) == 0  # an empty partition writes its empty table


def test_combine_remediated_is_the_slowest_path_of_another_source(clock):
    # 300's 40 ns leads; 200 (30 ns) is the slowest other source; 300's own 35 ns is not
    values = [(("k", 0), 30), (("k", 1), 40), (("k", 2), 35), (("k", 3), 12)]
    records = [(v, p, s, NO_LATENCY, 0) for (v, p), s in zip(values, [200, 300, 300, 201])]
    store = Store()
    create, merge_value = listing(clock, 4, 4)
    (out,) = run_stage(shuffle.combine(create, merge_value, "run", 1, store, False), [records])
    assert out == [("k", ([0, 1, 2, 3], 56, 300))]
    assert rows(store, 1)[0][1:5] == (56e-6, 300, 46e-6, 16e-6)


def test_combine_after_a_merge_keeps_the_rest_of_the_leaders_source(clock):
    # records of one source that come out of a merge carry their own rest
    records = [("k", 1), ("k", 2), ("k", 3)]
    records = [
        (records[0], 50, 7, 30, 0),  # leader; 30 ns is its other sources' path
        (records[1], 20, 7, 44, 0),  # same source: its rest (44) is a remediated path
        (records[2], 10, 9, NO_LATENCY, 0),
    ]
    store = Store()
    (out,) = run_stage(shuffle.combine(lambda v: v, max, "run", 1, store, False), [records])
    assert out == [("k", (3, 50, 7))] and rows(store, 1)[0][1:4] == (50e-6, 7, 44e-6)


def test_fold_follows_the_slowest_input_and_keeps_the_slowest_other_source():
    def group(path, source, other=NO_LATENCY, rest=NO_LATENCY):
        return [None, path, source, other, rest, 1, None]

    cases = [
        # (group before, input (path, source, rest), group after: path, source, other, rest)
        (group(10, 1), (20, 2, 3), (20, 2, 10, 3)),  # a slower other source leads
        (group(10, 2), (10, 1, 3), (10, 1, 10, 3)),  # a tie goes to the smaller source
        (group(10, 1), (10, 2, 3), (10, 1, 10, NO_LATENCY)),  # ... not the larger
        (group(10, 1, 4, 5), (20, 1, 3), (20, 1, 4, 5)),  # same source, lower rest: kept
        (group(10, 1, 4, 5), (20, 1, 6), (20, 1, 4, 6)),  # same source, higher rest
        (group(10, 1, 4), (8, 2, 3), (10, 1, 8, NO_LATENCY)),  # a slower other path
        (group(10, 1, 9), (8, 2, 3), (10, 1, 9, NO_LATENCY)),  # a faster one: no change
        (group(10, 1, 4, 5), (8, 1, 6), (10, 1, 4, 6)),  # same source behind: its rest
        (group(10, 1, 4, 5), (8, 1, 2), (10, 1, 4, 5)),
    ]
    for before, (path, source, rest), after in cases:
        shuffle._fold(before, path, source, rest)
        assert tuple(before[1:5]) == after, (path, source, rest)


@pytest.mark.parametrize("full", [False, True], ids=["impact", "full"])
def test_merge_combines_a_keys_payloads_and_shares_its_time(clock, full):
    def add(left, right):
        clock.spend(7)
        return left + right

    payloads = [("a", (1, 30, 5)), ("b", (2, 8, 6)), ("a", (3, 30, 4)), ("a", (4, 12, 9))]
    if full:
        payloads = [(k, p + (1000 + n,)) for n, (k, p) in enumerate(payloads)]
    (out,) = run_stage(shuffle.merge(add, full), [payloads])
    # 14 ns over 4 payloads: a's 3 get 42 // 4 = 10, b's one 14 // 4 = 3
    a = (("a", 8), 40, 4, 40, 10)
    b = (("b", 2), 11, 6, NO_LATENCY + 3, 3)
    if full:
        a += (0, (1000, 1002, 1003))
        b += (0, (1001,))
    assert out == [a, b]


def test_a_failing_combiner_names_its_record():
    def broken(acc, value):
        raise ZeroDivisionError("division by zero")

    records = [(("k", 1), 0, 101, NO_LATENCY, 0), (("k", 2), 0, 102, NO_LATENCY, 0)]
    with pytest.raises(UdfError) as caught:
        run_stage(shuffle.combine(lambda v: [v], broken, "run", 1, Store(), False), [records])
    assert str(caught.value) == (
        "test_a_failing_combiner_names_its_record.<locals>.broken raised ZeroDivisionError: "
        "division by zero on record ('k', 2) (input t0/p0/#102)"
    )
    with pytest.raises(UdfError) as caught:
        run_stage(shuffle.combine(broken_create, None, "run", 1, Store(), False), [records[1:]])
    assert (
        str(caught.value)
        == "broken raised ValueError: broken on record ('k', 2) (input t0/p0/#102)"
    )
    with pytest.raises(UdfError) as caught:
        run_stage(shuffle.merge(broken, False), [[("k", (1, 0, 5)), ("k", ([2], 0, 7))]])
    assert str(caught.value) == (
        "test_a_failing_combiner_names_its_record.<locals>.broken raised ZeroDivisionError: "
        "division by zero on record ('k', [2]) (input t0/p0/#7)"
    )


def test_merge_follows_the_slowest_payload_of_one_source(clock):
    payloads = [("a", (1, 5, 9)), ("a", (2, 8, 9)), ("a", (3, 6, 4))]
    (out,) = run_stage(shuffle.merge(lambda x, y: x + y, False), [payloads])
    assert out == [(("a", 6), 8, 9, 6, 0)]


def test_combine_in_full_lineage_keeps_each_inputs_slowest_path_with_its_shuffle(clock):
    # records after a shuffle (4 and 2 ns of merge share), two of one source record 101
    records = [
        (("k", 1), 30, 7, NO_LATENCY, 4, 10, (101, 102)),
        (("k", 2), 25, 7, NO_LATENCY, 4, 3, (101,)),
        (("j", 3), 12, 8, NO_LATENCY, 2, 9, (103,)),
    ]
    store = Store()
    create, merge_value = listing(clock)
    (out,) = run_stage(shuffle.combine(create, merge_value, "run", 1, store, True), [records])
    base = partition_base(1, 0)
    # 17 ns over 3 inputs: k's 2 get 34 // 3 = 11 ns, j's one 17 // 3 = 5 ns
    assert out == [("k", ([1, 2], 41, 7, base)), ("j", ([3], 17, 8, base + 1))]
    assert rows(store, 1) == [
        (base, 41e-6, 7, 0.0, 11e-6, "k", 2, [101, 102], [14e-6, 14e-6]),
        (base + 1, 17e-6, 8, 0.0, 5e-6, "j", 1, [103], [11e-6]),
    ]


def broken_create(value):
    raise ValueError("broken")


broken_create.__qualname__ = "broken"


@pytest.mark.parametrize(
    "operator, values",
    [
        ("combine", ("abc", 5, (1, 2, 3))),  # PySpark's combine unpacks a pair
        ("join_tag", ("a", 5, ())),  # its joins read the first two items: "ab" and (1, 2, 3) join
    ],
)
def test_a_keyed_operator_given_a_record_that_is_not_a_pair_says_so(operator, values):
    make = {
        "combine": lambda: shuffle.combine(list, list.__add__, "run", 1, Store(), False),
        "join_tag": lambda: shuffle.join_tag(0, "run", 1, Store(), False),
    }[operator]
    for value in values:
        with pytest.raises(UdfError) as caught:
            run_stage(make(), [[(value, 0, 101, NO_LATENCY, 0)]])
        name = "a combine" if operator == "combine" else "join"
        shown = value if isinstance(value, str) else repr(value)
        assert str(caught.value) == (
            f"{name} needs (key, value) records, got {shown} (input t0/p0/#101)"
        )


class Costly:
    """A (key, value) pair whose key lookup spends ``ns`` on the clock: the time join_tag
    spends on a record."""

    def __init__(self, clock, key, value, ns):
        self.clock, self.pair, self.ns = clock, (key, value), ns

    def __getitem__(self, index):
        if index == 0:
            self.clock.spend(self.ns)
        return self.pair[index]


@pytest.mark.parametrize("full", [False, True], ids=["impact", "full"])
def test_join_tag_keeps_each_record_with_its_own_key_and_a_share_of_the_time(clock, full):
    pairs = [Costly(clock, "a", 1, 4), Costly(clock, "b", 2, 3), Costly(clock, "a", 3, 4)]
    # 4 ns in this stage so far after a 2 ns merge share; the first with another source's 6 ns
    records = [
        (pair, latency + 4, number, rest, 2) + ((latency, (number,)) if full else ())
        for pair, latency, number, rest in zip(
            pairs, [10, 5, 20], [101, 102, 103], [6, NO_LATENCY, NO_LATENCY]
        )
    ]
    store = Store()
    out = list(shuffle.join_tag(1, "run", 2, store, full)(1, iter(records)))
    base = partition_base(2, 1)
    # 11 ns over 3 records: 3 ns each
    expected = [("a", (1, 1, 17, 101)), ("b", (1, 2, 12, 102)), ("a", (1, 3, 27, 103))]
    if full:
        expected = [(k, p + (base + n,)) for n, (k, p) in enumerate(expected)]
    assert out == expected
    assert [r[:5] for r in rows(store, 2)] == [
        (base, 17e-6, 101, 9e-6, 3e-6),
        (base + 1, 12e-6, 102, 0.0, 3e-6),
        (base + 2, 27e-6, 103, 0.0, 3e-6),
    ]
    expected_inputs = [([101], [12e-6]), ([102], [7e-6]), ([103], [22e-6])]
    assert [r[7:] for r in rows(store, 2)] == (expected_inputs if full else [(None, None)] * 3)
    (empty,) = run_stage(shuffle.join_tag(0, "run", 3, store, full), [[]])
    assert empty == [] and len(store.stage(3)) == 0


def test_a_set_operation_keys_each_record_by_itself(clock):
    records = [("x", 3, 101, 1, 0), (("t", 1), 2, 102, 0, 0)]
    (out,) = run_stage(shuffle.join_tag(0, "run", 1, Store(), False, pairs=False), [records])
    assert out == [("x", (0, "x", 3, 101)), (("t", 1), (0, ("t", 1), 2, 102))]


def test_join_merge_leads_with_the_slowest_input_and_names_every_input(clock):
    pairs = [
        ("k", (0, "l1", 30, 5, 100)),
        ("k", (1, "r1", 30, 4, 101)),
        ("k", (0, "l2", 10, 6, 102)),
        ("j", (1, "r2", 1, 8, 103)),
        ("j", (0, "l3", 2, 8, 104)),
    ]
    out = list(shuffle.join_merge(True, shuffle.inner)(0, iter(pairs)))
    assert out == [
        (("k", ("l1", "r1")), 30, 4, 30, 0, 0, (100, 101)),
        (("k", ("l2", "r1")), 30, 4, 10, 0, 0, (102, 101)),
        (("j", ("l3", "r2")), 2, 8, NO_LATENCY, 0, 0, (104, 103)),
    ]


@pytest.mark.parametrize("full", [False, True], ids=["impact", "full"])
def test_join_merge_shares_by_inputs_of_the_partition(monkeypatch, full):
    ticks = iter([0, 2, 10, 13, 20, 25])  # the inputs take 2, 3 and 5 ns
    monkeypatch.setattr(shuffle, "perf_counter_ns", lambda: next(ticks))
    pairs = [("k", (0, "l", 1, 5)), ("k", (1, "r", 2, 6)), ("j", (0, "x", 4, 7))]
    if full:
        pairs = [(k, p + (50 + n,)) for n, (k, p) in enumerate(pairs)]
    out = list(shuffle.join_merge(full, shuffle.left_outer)(0, iter(pairs)))
    # 10 ns over 3 inputs: "k"'s 2 get 20 // 3 = 6 ns, "j"'s one 10 // 3 = 3 ns
    expected = [(("k", ("l", "r")), 8, 6, 7, 6), (("j", ("x", None)), 7, 7, NO_LATENCY, 3)]
    if full:
        expected = [expected[0] + (0, (50, 51)), expected[1] + (0, (52,))]
    assert out == expected


# -- oracles over a bigger input ---------------------------------------------------------

WORDS = ["hot"] * 9 + ["k1", "k2", "k3", "k1", "k2", "ünï", "k1"] + ["cold"]
PARTITIONS = [WORDS[0:7], [], WORDS[7:14], WORDS[14:]]


def _text_run(full, build):
    """Runs ``build(store, stage0_partitions, full) -> final partitions`` over text sources,
    then the output stage; (output records, store)."""
    store = Store()
    lines = run_stage(sources.text_source(0, full), PARTITIONS)
    final = build(store, lines, full)
    out_stage = 1 + max((s for s, _ in store.tables), default=0)
    out = run_stage(finalize("run", out_stage, store, full), final)
    return [r for part in out for r in part], store


def _cost(clock, word):
    """What a user function spends on a word: the hot key 50 ns, others by their length."""
    clock.spend(50 if word == "hot" else 3 + len(word))


def _word_count(clock):
    def pair(word):
        _cost(clock, word)
        return word, 1

    def add(a, b):
        clock.spend(2)
        return a + b

    def build(store, lines, full):
        pairs = [list(narrow.map_records(pair, full)(iter(p))) for p in lines]
        combined = run_stage(shuffle.combine(lambda v: v, add, "run", 1, store, full), pairs)
        merged = run_stage(shuffle.merge(add, full), exchange(combined, 3))
        return merged

    return build


def _join(clock, emit):
    def pair(word):
        _cost(clock, word)
        return word, len(word)

    def build(store, lines, full):
        pairs = [list(narrow.map_records(pair, full)(iter(p))) for p in lines]
        left = run_stage(shuffle.join_tag(0, "run", 1, store, full), pairs[:2])
        right = run_stage(shuffle.join_tag(1, "run", 2, store, full), pairs[2:])
        return run_stage(shuffle.join_merge(full, emit), exchange(left + right, 2))

    return build


def _plain_join(emit_name):
    left = defaultdict(list)
    right = defaultdict(list)
    for word in WORDS[:7]:
        left[word].append(len(word))
    for word in WORDS[7:]:
        right[word].append(len(word))
    out = []
    for key in set(left) | set(right):
        ls, rs = left.get(key, []), right.get(key, [])
        if emit_name == "cogroup":
            out.append((key, (sorted(ls), sorted(rs))))
            continue
        if ls and rs:
            out += [(key, (x, y)) for x in ls for y in rs]
        elif emit_name in ("left_outer", "full_outer") and ls:
            out += [(key, (x, None)) for x in ls]
        elif emit_name in ("right_outer", "full_outer") and rs:
            out += [(key, (None, y)) for y in rs]
    return out


def _traced_pipelines(clock):
    """name -> (build(store, lines, full), the plain computation's output)."""
    counts = defaultdict(int)
    for word in WORDS:
        counts[word] += 1
    pipelines = {"reduce": (_word_count(clock), sorted(counts.items()))}
    for name in ("inner", "left_outer", "right_outer", "full_outer", "cogroup"):
        pipelines[name] = (_join(clock, getattr(shuffle, name)), sorted(_plain_join(name)))
    return pipelines


def _values(records):
    def canonical(value):
        key, rest = value
        if isinstance(rest, tuple) and isinstance(rest[0], ResultIterable):  # cogroup's
            return key, tuple(sorted(r) for r in rest)
        return value

    return sorted(canonical(r[0]) for r in records)


PIPELINES = ["reduce", "inner", "left_outer", "right_outer", "full_outer", "cogroup"]


@pytest.mark.parametrize("name", PIPELINES)
@pytest.mark.parametrize("full", [False, True], ids=["impact", "full"])
def test_traced_output_equals_the_plain_computation(clock, name, full):
    build, plain = _traced_pipelines(clock)[name]
    out, _ = _text_run(full, build)
    assert _values(out) == plain


@pytest.mark.parametrize("name", PIPELINES)
def test_on_the_fly_provenance_equals_propagate_of_the_written_tables(clock, name):
    build, _ = _traced_pipelines(clock)[name]
    out, store = _text_run(True, build)
    stages = sorted({s for s, _ in store.tables})
    tables = [store.stage(s) for s in stages]
    final = propagate(tables)[-1].set_index("out_id")
    assert len(final) == len(out) > 0
    for value, out_id, total, source, remediated in out:
        row = final.loc[out_id]
        assert row["total_latency_ms"] == pytest.approx(total / 1e6, abs=1e-9), value
        assert row["most_impactful_source"] == source, value
        assert row["remediated_latency_ms"] == pytest.approx(remediated / 1e6, abs=1e-9)
    # and the stage-end tables' own columns agree with the propagated ones
    for written, propagated in zip(tables, propagate(tables)):
        assert (
            written["most_impactful_source"].tolist()
            == propagated["most_impactful_source"].tolist()
        )
        for column in ("total_latency_ms", "remediated_latency_ms"):
            assert written[column].tolist() == pytest.approx(propagated[column].tolist(), abs=1e-9)


@pytest.mark.parametrize("name", PIPELINES)
def test_impact_lineage_writes_the_provenance_full_lineage_does(monkeypatch, name):
    written = {}
    for full in (False, True):
        clock = use_clock(monkeypatch)
        build, _ = _traced_pipelines(clock)[name]
        out, store = _text_run(full, build)
        written[full] = (
            sorted((excerpt(r[0]), r[1:]) for r in out),
            {k: t.drop_columns(["in_ids", "in_latency_ms"]) for k, t in store.tables.items()},
        )
    assert written[False][0] == written[True][0]
    assert written[False][1].keys() == written[True][1].keys()
    for key, table in written[False][1].items():
        assert table.equals(written[True][1][key]), key


def test_the_hot_key_is_led_by_its_first_record_and_remediated_by_another_partitions(clock):
    build, _ = _traced_pipelines(clock)["reduce"]
    out, _ = _text_run(True, build)
    ((value, _, total, source, remediated),) = [r for r in out if r[0][0] == "hot"]
    assert value == ("hot", 9) and source == partition_base(0, 0)
    # partition 0's 7 hot records (50 ns each, tied: the first id leads) take 6 merges of
    # 2 ns: 50 + 12; partition 2's 2 take 2 ns of its 6: 50 + 2 * 6 // 7; the merge's share
    # is on both paths
    assert total - remediated == 62 - 51
