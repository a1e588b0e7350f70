"""Post-mortem propagation and culprit ranking on hand-made lineage tables, whose answers
follow from the formulas of docs/design.md ("Record-level isolation") by hand."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from perfx.isolation.errors import IsolationError
from perfx.isolation.propagation import propagate, rank_culprits

COLUMNS = ["out_id", "in_ids", "in_latency_ms", "shuffle_latency_ms"]
RESULT = ["out_id", "total_latency_ms", "most_impactful_source", "remediated_latency_ms"]


def table(*rows):
    return pd.DataFrame(list(rows), columns=COLUMNS)


# ids 1..6 are source records (no table produces them): total 0, their own source
FIRST = table(
    (10, [1, 2], [5.0, 3.0], 1.0),  # 1 leads (5); 2 is another source's path (3)
    (11, [3, 4], [2.0, 2.0], 0.5),  # a tie: the smaller source leads
    (12, [5], [7.0], 0.0),  # one input: nothing to remediate
    (13, [], [], 2.0),  # no input: its own source, only its shuffle time
)
SECOND = table(
    (20, [10, 11, 12], [1.0, 4.0, 0.5], 0.25),  # 12's path 7.5 beats 10's 7 and 11's 6.5
    (21, [10, 6], [0.0, 1.5], 0.0),  # a source read in a later stage
    (22, [10, 1], [0.0, 9.0], 0.0),  # two paths of source 1: none remediates the other
    (23, [13], [None], 0.0),  # no latency recorded: 0
)


def result(frame):
    return [tuple(row) for row in frame[RESULT].itertuples(index=False)]


def test_propagate_follows_the_slowest_path_and_remediates_with_other_sources():
    first, second = propagate([FIRST, SECOND])
    assert result(first) == [
        (10, 6.0, 1, 4.0),
        (11, 2.5, 3, 2.5),
        (12, 7.0, 5, 0.0),
        (13, 2.0, 13, 0.0),
    ]
    assert result(second) == [
        (20, 7.75, 5, 7.25),
        (21, 6.0, 1, 1.5),
        (22, 9.0, 1, 0.0),
        (23, 2.0, 13, 0.0),
    ]
    assert list(second.columns) == COLUMNS + RESULT[1:]


def test_propagate_recomputes_stale_propagated_columns_and_keeps_the_others():
    stale = SECOND.assign(total_latency_ms=-1.0, most_impactful_source=-1, record="r")
    second = propagate([FIRST, stale])[1]
    assert result(second)[0] == (20, 7.75, 5, 7.25)
    assert second["record"].tolist() == ["r"] * 4
    assert list(second.columns) == COLUMNS + ["record"] + RESULT[1:]


def test_propagate_refuses_tables_it_cannot_propagate():
    with pytest.raises(
        IsolationError, match=r"^lineage table 1 lacks column\(s\) in_ids, shuffle_latency_ms$"
    ):
        propagate([FIRST, SECOND.drop(columns=["in_ids", "shuffle_latency_ms"])])
    impact = FIRST.assign(in_ids=[None, [1], [2], []])
    with pytest.raises(IsolationError) as caught:
        propagate([impact])
    assert str(caught.value) == (
        "lineage table 0 has no input ids: propagate needs a run traced with --lineage full"
    )


FINAL = pd.DataFrame(
    [(9, 5.0, 2.0), (4, 3.0, 0.0), (7, 10.0, 1.0), (7, 4.0, 8.0)],
    columns=["most_impactful_source", "total_latency_ms", "remediated_latency_ms"],
)


def test_rank_culprits_by_impact_then_source():
    ranked = rank_culprits(FINAL)
    assert list(ranked.columns) == ["source", "impact_ms", "max_total_ms", "max_remediated_ms"]
    # impact is the source's slowest total less its slowest remediated latency
    assert [tuple(r) for r in ranked.itertuples(index=False)] == [
        (4, 3.0, 3.0, 0.0),
        (9, 3.0, 5.0, 2.0),
        (7, 2.0, 10.0, 8.0),
    ]
    assert rank_culprits(FINAL, top=2)["source"].tolist() == [4, 9]
    assert rank_culprits(pa.Table.from_pandas(FINAL), top=1)["source"].tolist() == [4]


def test_ranking_the_propagated_outputs_names_the_source_on_the_slowest_path():
    final = propagate([FIRST, SECOND])[1]
    ranked = rank_culprits(final)
    assert ranked["source"].tolist()[:2] == [1, 13]
    assert ranked["impact_ms"].tolist()[:2] == [7.5, 2.0]
