"""A partition's lineage rows as the task buffers them and as they are written: the schema
every store shares, nanoseconds written as milliseconds, "no remediation" as 0, flat in-id
buffers cut into one list per row, and the excerpts of outputs and keys."""

from __future__ import annotations

import pytest

from perfx.isolation.ids import NO_LATENCY
from perfx.isolation.lineage import SCHEMA, PartitionRows, output_key


def written(rows: PartitionRows) -> dict:
    table = rows.to_arrow("run-7", 3, 2)
    assert table.schema == SCHEMA
    return table.to_pydict()


def test_an_output_partition_in_full_lineage():
    rows = PartitionRows(full=True, output=True)
    rows.add(70, 2_500_000, 5, NO_LATENCY, 1_000)
    rows.add_output(("key", [1, 2]))
    rows.add_inputs([5, 6], [2_000_000, 1_500])
    rows.add(71, 4, 9, 3, 0)
    rows.add_output("line\nwith a break " + "x" * 200)
    rows.add_inputs([], [])
    rows.add(72, 0, 8, 0, 0)
    rows.add_output(7)
    rows.add_inputs([8], [0])
    table = written(rows)
    assert table["run"] == ["run-7"] * 3
    assert table["stage"] == [3] * 3 and table["partition"] == [2] * 3
    assert table["out_id"] == [70, 71, 72]
    assert table["in_ids"] == [[5, 6], [], [8]]
    assert table["in_latency_ms"] == [[2.0, 0.0015], [], [0.0]]
    assert table["shuffle_latency_ms"] == [0.001, 0.0, 0.0]
    assert table["total_latency_ms"] == [2.5, 4e-6, 0.0]
    assert table["most_impactful_source"] == [5, 9, 8]
    assert table["remediated_latency_ms"] == [0.0, 3e-6, 0.0]
    long = "line\\nwith a break " + "x" * 200
    assert table["record"] == ["('key', [1, 2])", long[:119] + "…", "7"]
    assert table["key"] == ["key", long[:119] + "…", "7"]
    assert table["records"] == [None] * 3


def test_an_impact_combine_partition_keeps_keys_and_counts_but_no_inputs():
    rows = PartitionRows(full=False, output=False, keyed=True)
    rows.add(1, 10, 2, 5, 1)
    rows.add_key(("t", 1), 4)
    rows.add(2, 20, 3, NO_LATENCY, 1)
    rows.add_key("plain", 1)
    rows.add(3, 20, 3, NO_LATENCY, 1)
    rows.add_key(("k" * 200, 2), 1)
    table = written(rows)
    assert table["in_ids"] == [None] * 3 and table["in_latency_ms"] == [None] * 3
    assert table["key"] == ["('t', 1)", "plain", "('" + "k" * 117 + "…"]
    assert table["records"] == [4, 1, 1]
    assert table["record"] == [None] * 3
    assert table["remediated_latency_ms"] == [5e-6, 0.0, 0.0]
    with pytest.raises(
        ValueError, match=r"^add_output on the rows of a stage that is not an output$"
    ):
        rows.add_output("x")


def test_a_join_tag_partition_has_neither_keys_nor_outputs():
    rows = PartitionRows(full=False, output=False)
    rows.add(1, 1, 1, 1, 1)
    assert written(rows)["key"] == [None] and written(rows)["records"] == [None]
    with pytest.raises(ValueError, match=r"^add_key on the rows of a stage built without keys$"):
        rows.add_key("k", 1)
    with pytest.raises(ValueError, match=r"^add_output"):
        rows.add_output("x")
    output = PartitionRows(full=False, output=True)
    with pytest.raises(ValueError, match=r"^add_key"):
        output.add_key("k", 1)


def test_an_empty_partition_writes_an_empty_table():
    for full in (False, True):
        table = PartitionRows(full=full, output=True).to_arrow("r", 0, 0)
        assert table.num_rows == 0 and table.schema == SCHEMA


@pytest.mark.parametrize(
    "value, key",
    [
        (("k", 1), "k"),
        ((("t", 1), [2]), "('t', 1)"),
        ((1, 2, 3), "(1, 2, 3)"),
        ("a line", "a line"),
        (5, "5"),
        ([1, 2], "[1, 2]"),
    ],
)
def test_the_key_of_an_output_is_a_pairs_first_field_else_the_record(value, key):
    assert output_key(value) == key
