"""Golden test: the lineage tables of PerfDebug's Figure 5 give exactly its Total Latency,
Most Impactful Source and Remediated Latency columns, and rank h2 over h1."""

from __future__ import annotations

import pandas as pd
import pytest

from perfx.isolation import propagate, rank_culprits


def _table(rows):
    return pd.DataFrame(rows, columns=["out_id", "in_ids", "in_latency_ms", "shuffle_latency_ms"])


HDFS = _table([(h, [], [], 0.0) for h in ["h1", "h2", "h3", "h4", "h5"]])

PRE_SHUFFLE = _table(
    [
        # partition 0: ten inputs, partition latency 60 ms
        ("i1", ["h1", "h2"], [486, 28848], 2 / 10 * 60),
        ("i2", ["h1", "h2"], [486, 28848], 2 / 10 * 60),
        ("i3", ["h1", "h2", "h3"], [486, 28848, 611], 3 / 10 * 60),
        ("i4", ["h1", "h2"], [486, 28848], 2 / 10 * 60),
        ("i5", ["h1"], [239], 1 / 10 * 60),
        # partition 1: seven inputs, partition latency 70 ms
        ("i6", ["h5"], [264], 1 / 7 * 70),
        ("i7", ["h5"], [264], 1 / 7 * 70),
        ("i8", ["h4", "h5"], [160, 264], 2 / 7 * 70),
        ("i9", ["h4", "h5"], [160, 264], 2 / 7 * 70),
        ("i10", ["h4"], [160], 1 / 7 * 70),
    ]
)

POST_SHUFFLE = _table(
    [
        ("o1", ["i1", "i6"], [0, 0], 2 / 4 * 60),
        ("o2", ["i2", "i7"], [0, 0], 2 / 4 * 60),
        ("o3", ["i3", "i8"], [0, 0], 2 / 6 * 120),
        ("o4", ["i4", "i9"], [0, 0], 2 / 6 * 120),
        ("o5", ["i5", "i10"], [0, 0], 2 / 6 * 120),
    ]
)

# (Total Latency, Most Impactful Source, Remediated Latency) exactly as printed in Figure 5.
EXPECTED = {
    "h1": (0, "h1", 0),
    "h2": (0, "h2", 0),
    "h3": (0, "h3", 0),
    "h4": (0, "h4", 0),
    "h5": (0, "h5", 0),
    "i1": (28860, "h2", 498),
    "i2": (28860, "h2", 498),
    "i3": (28866, "h2", 629),
    "i4": (28860, "h2", 498),
    "i5": (245, "h1", 0),
    "i6": (274, "h5", 0),
    "i7": (274, "h5", 0),
    "i8": (284, "h5", 180),
    "i9": (284, "h5", 180),
    "i10": (170, "h4", 0),
    "o1": (28890, "h2", 304),
    "o2": (28890, "h2", 304),
    "o3": (28906, "h2", 324),
    "o4": (28900, "h2", 324),
    "o5": (285, "h1", 210),
}


def test_figure5_columns():
    tables = propagate([HDFS, PRE_SHUFFLE, POST_SHUFFLE])
    got = {}
    for table in tables:
        for row in table.itertuples():
            got[row.out_id] = (
                row.total_latency_ms,
                row.most_impactful_source,
                row.remediated_latency_ms,
            )
    assert set(got) == set(EXPECTED)
    for out_id, (total, source, remediated) in EXPECTED.items():
        assert got[out_id][0] == pytest.approx(total), out_id
        assert got[out_id][1] == source, out_id
        assert got[out_id][2] == pytest.approx(remediated), out_id


def test_figure5_ranking_h2_over_h1():
    final = propagate([HDFS, PRE_SHUFFLE, POST_SHUFFLE])[-1]
    ranked = rank_culprits(final)
    assert list(ranked.source) == ["h2", "h1"]
    assert ranked.impact_ms.tolist() == pytest.approx([28906 - 324, 285 - 210])
    assert ranked.max_total_ms.tolist() == pytest.approx([28906, 285])
    assert ranked.max_remediated_ms.tolist() == pytest.approx([324, 210])


def test_propagate_keeps_rows_and_other_columns():
    tagged = POST_SHUFFLE.assign(partition=[0, 0, 1, 1, 1])
    out = propagate([HDFS, PRE_SHUFFLE, tagged])[-1]
    assert out.out_id.tolist() == tagged.out_id.tolist()
    assert out.partition.tolist() == [0, 0, 1, 1, 1]


def test_propagate_without_a_source_table_treats_unknown_inputs_as_sources():
    _pre, post = propagate([PRE_SHUFFLE, POST_SHUFFLE])
    assert post.set_index("out_id").loc["o3", "total_latency_ms"] == pytest.approx(28906)


def test_impact_lineage_cannot_be_propagated():
    from perfx.isolation.errors import IsolationError

    impact = PRE_SHUFFLE.assign(in_ids=None)
    with pytest.raises(IsolationError, match="--lineage full"):
        propagate([impact])
