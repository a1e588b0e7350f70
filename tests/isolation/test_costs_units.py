"""The costs a stage end keeps beside its lineage (isolation/costs.py), without Spark: each
source record's own cost (its narrow operators' time plus its share of the stage end's own
loop), the costliest ``KEPT`` per partition, a record several outputs derive from kept once,
and a rest row that makes the partition's rows add up to its traced time. Timed by a clock
that advances only by what the user functions spend, so every figure is exact."""

from __future__ import annotations

from operator import add

import pytest

from perfx.isolation import costs, narrow, output, shuffle
from perfx.isolation.costs import REST, RecordCosts
from perfx.isolation.ids import NO_LATENCY, partition_base

from .tasks import Store, use_clock

COSTS = 9
"""The stage number of the costs tables these tests write."""


@pytest.fixture
def clock(monkeypatch):
    found = use_clock(monkeypatch)
    monkeypatch.setattr(output, "perf_counter_ns", found)
    return found


def _parsed(clock, full: bool, lines):
    """A source stage: lines ``key,cost`` of ids 101, 102, ... (path 0) mapped to
    ``(key, 1)``, each parse spending its line's cost."""

    def parse(line):
        key, cost = line.split(",")
        clock.spend(int(cost))
        return key, 1

    def records():
        for number, line in enumerate(lines, start=101):
            record = (line, 0, number, NO_LATENCY, 0)
            yield record + (0, (number,)) if full else record

    return narrow.map_records(parse, full)(records())


def _kept(store: Store, partition: int = 0) -> list[tuple[int, float, int]]:
    """(out_id, cost ms, source) of a costs partition, as written."""
    table = store.tables[COSTS, partition].to_pandas()
    return list(
        zip(
            table.out_id.tolist(),
            table.total_latency_ms.tolist(),
            table.most_impactful_source.tolist(),
            strict=True,
        )
    )


@pytest.mark.parametrize("full", [False, True])
def test_a_combine_keeps_each_records_cost_and_the_rest_of_its_time(clock, full):
    store = Store()

    def create(value):
        clock.spend(4)
        return value

    def merge(acc, value):
        clock.spend(3)
        return acc + value

    lines = ["a,5000", "a,9000", "b,2000"]
    combine = shuffle.combine(create, merge, "run", 1, store, full, COSTS)
    assert sorted(k for k, _ in combine(0, _parsed(clock, full, lines))) == ["a", "b"]
    # the loop spent 4 + 3 + 4 = 11 ns on 3 records: 3 ns each, 2 ns left over
    base = partition_base(COSTS, 0)
    assert _kept(store) == [
        (base, 9003 / 1e6, 102),
        (base + 1, 5003 / 1e6, 101),
        (base + 2, 2003 / 1e6, 103),
        (base + 3, 2 / 1e6, REST),
    ]
    assert sum(cost for _, cost, _ in _kept(store)) * 1e6 == pytest.approx(clock.spent)


def test_without_a_costs_table_a_combine_writes_none(clock):
    store = Store()
    combine = shuffle.combine(lambda v: v, add, "run", 1, store, False)
    list(combine(0, _parsed(clock, False, ["a,5", "b,7"])))
    assert [stage for stage, _ in store.tables] == [1]


def test_only_the_costliest_are_kept_and_a_shared_source_once(clock, monkeypatch):
    monkeypatch.setattr(costs, "KEPT", 3)
    kept = RecordCosts()
    for cost, source in [(5, 1), (1, 2), (8, 3), (8, 3), (2, 4), (7, 5), (3, 6)]:
        if cost > kept.floor:
            kept.add(cost, source)
    store = Store()
    kept.write(store, "run", COSTS, 2, False, elapsed=40)
    base = partition_base(COSTS, 2)
    # (8, 3) twice (a flatMap's outputs share their record's path) took two of the three
    # places: the source is written once, beside the one other record kept
    assert [(o, round(c * 1e6), s) for o, c, s in _kept(store, 2)] == [
        (base, 8, 3),
        (base + 1, 7, 5),
        (base + 2, 40 - 15, REST),
    ]


@pytest.mark.parametrize("full", [False, True])
def test_a_join_side_keeps_its_records_costs(clock, full):
    store = Store()
    tag = shuffle.join_tag(0, "run", 1, store, full, True, COSTS)
    assert len(list(tag(0, _parsed(clock, full, ["k,700", "j,300"])))) == 2
    base = partition_base(COSTS, 0)
    assert _kept(store) == [
        (base, 700 / 1e6, 101),
        (base + 1, 300 / 1e6, 102),
        (base + 2, 0.0, REST),
    ]


@pytest.mark.parametrize("full", [False, True])
def test_an_output_keeps_its_records_costs(clock, full):
    store = Store()
    done = output.finalize("run", 1, store, full, COSTS)
    assert [v for v, *_ in done(0, _parsed(clock, full, ["x,50", "y,80", "z,10"]))] == [
        ("x", 1),
        ("y", 1),
        ("z", 1),
    ]
    base = partition_base(COSTS, 0)
    assert _kept(store) == [
        (base, 80 / 1e6, 102),
        (base + 1, 50 / 1e6, 101),
        (base + 2, 10 / 1e6, 103),
        (base + 3, 0.0, REST),
    ]


@pytest.mark.parametrize("full", [False, True])
def test_a_full_heap_keeps_the_costliest_whatever_their_ids(clock, monkeypatch, full):
    """Two places for five records whose ids do not follow their costs; source 0 (the first
    record of table 0) is a record like any other, and -1 (an output derived from no record)
    is none; equal costs are written by id."""
    monkeypatch.setattr(costs, "KEPT", 2)
    store = Store()
    records = [
        (("a", 1), 300, 0, NO_LATENCY, 0),
        (("b", 1), 900, 7, NO_LATENCY, 0),
        (("c", 1), 100, 50, NO_LATENCY, 0),
        (("d", 1), 900, 3, NO_LATENCY, 0),
        (("e", 1), 5000, -1, NO_LATENCY, 0),
    ]
    if full:
        records = [r + (r[1], (r[2],)) for r in records]
    list(shuffle.combine(lambda v: v, add, "run", 1, store, full, COSTS)(0, iter(records)))
    table = store.tables[COSTS, 0].to_pandas()
    base = partition_base(COSTS, 0)
    assert table.out_id.tolist() == [base, base + 1, base + 2]
    assert table.most_impactful_source.tolist() == [3, 7, REST]  # a tie: by id; -1 takes none
    kept = RecordCosts()
    for cost, source in [(300, 0), (900, 7)]:
        kept.add(cost, source)
    assert kept.floor == 300  # a cost, not an id
    more = Store()
    monkeypatch.setattr(costs, "KEPT", 3)
    both = RecordCosts()
    for cost, source in [(300, 0), (900, 7), (100, 5)]:
        both.add(cost, source)
    both.write(more, "run", COSTS, 0, full, elapsed=2000, extra=10)
    written = more.tables[COSTS, 0].to_pandas()
    assert written.most_impactful_source.tolist() == [7, 0, 5, REST]  # source 0 is kept
    assert (written.total_latency_ms * 1e6).round().tolist() == [910, 310, 110, 2000 - 1330]
    assert written.shuffle_latency_ms.tolist() == [0.0] * 4
    if full:
        assert [list(i) for i in written.in_ids] == [[7], [0], [5], []]
        assert [list(v) for v in written.in_latency_ms] == [
            [910 / 1e6],
            [310 / 1e6],
            [110 / 1e6],
            [],
        ]
    else:
        assert written.in_ids.isna().all()
