"""One conformance suite for every lineage store: the Parquet store (a local path and a
file:// URI) always, Apache Ignite when PERFX_IGNITE_HOST names a node (host or host:port)."""

from __future__ import annotations

import os
import uuid

import pyarrow as pa
import pytest

from perfx.isolation.errors import IsolationError, StoreError
from perfx.isolation.lineage import SCHEMA, PartitionRows
from perfx.isolation.stores import open_store


def _parquet_path(tmp_path):
    return open_store(str(tmp_path / "runs"))


def _parquet_uri(tmp_path):
    return open_store((tmp_path / "runs").as_uri())


def _ignite(tmp_path):
    host = os.environ.get("PERFX_IGNITE_HOST")
    if not host:
        pytest.skip("set PERFX_IGNITE_HOST to run the Ignite store's conformance tests")
    return open_store(f"ignite://{host}")


@pytest.fixture(
    params=[_parquet_path, _parquet_uri, _ignite], ids=["parquet", "parquet-uri", "ignite"]
)
def any_store(request, tmp_path):
    return request.param(tmp_path)


def _rows(stage, partition, count, full=True, output=False):
    rows = PartitionRows(full=full, output=output)
    base = (stage << 56) | (partition << 32)
    for seq in range(count):
        rows.add(base + seq, 1_000_000 * (seq + 1), 7, -5, 250_000)
        if full:
            rows.add_inputs([1, 2], [500_000, 750_000])
        if output:
            rows.add_output(("key", seq))
    return rows


def _run_id():
    return f"test-{uuid.uuid4().hex[:8]}"


def test_begin_registers_an_incomplete_run(any_store):
    run = _run_id()
    any_store.begin(run, {"run": run, "created": "2026-01-01T00:00:00", "complete": False})
    assert any_store.run_meta(run)["complete"] is False
    assert run in [m["run"] for m in any_store.runs()]
    with pytest.raises(IsolationError, match="incomplete"):
        any_store.complete_meta(run)


def test_rows_round_trip_with_the_schema(any_store):
    run = _run_id()
    any_store.begin(run, {"run": run, "complete": False})
    any_store.write_partition(
        run, 1, 0, _rows(1, 0, 3).to_arrow(run, 1, 0), attempt=0, spark_stage=4
    )
    any_store.write_partition(
        run, 1, 1, _rows(1, 1, 2).to_arrow(run, 1, 1), attempt=0, spark_stage=4
    )
    any_store.write_partition(
        run, 2, 0, _rows(2, 0, 1, full=False, output=True).to_arrow(run, 2, 0)
    )
    tables = {
        s: pa.table(t) if isinstance(t, pa.Table) else t.to_table()
        for s, t in any_store.tables(run).items()
    }
    assert sorted(tables) == [1, 2]
    assert tables[1].schema.remove_metadata().equals(SCHEMA)
    first = tables[1].to_pandas().sort_values("out_id")
    assert first.total_latency_ms.tolist() == [1.0, 2.0, 3.0, 1.0, 2.0]
    assert first.remediated_latency_ms.tolist() == [0.0] * 5  # "no other source" is written as 0
    assert first.in_latency_ms.iloc[0].tolist() == [0.5, 0.75]
    output = tables[2].to_pandas()
    assert output.in_ids.isna().all() and output.key.tolist() == ["key"]
    parts = any_store.partitions(run)
    assert parts[["stage", "partition", "rows", "spark_stage"]].values.tolist() == [
        [1, 0, 3, 4],
        [1, 1, 2, 4],
        [2, 0, 1, -1],
    ]


def test_rewriting_a_partition_replaces_its_rows(any_store):
    run = _run_id()
    any_store.begin(run, {"run": run, "complete": False})
    any_store.write_partition(run, 1, 0, _rows(1, 0, 5).to_arrow(run, 1, 0), attempt=0)
    any_store.write_partition(run, 1, 0, _rows(1, 0, 3).to_arrow(run, 1, 0), attempt=1)
    table = any_store.tables(run)[1]
    frame = (table if isinstance(table, pa.Table) else table.to_table()).to_pandas()
    assert len(frame) == 3 and not frame.out_id.duplicated().any()
    assert any_store.partitions(run)[["rows", "attempt"]].values.tolist() == [[3, 1]]


def test_mark_complete(any_store):
    run = _run_id()
    any_store.begin(run, {"run": run, "complete": False})
    any_store.mark_complete(run, {"run": run, "outputs": [2]})
    assert any_store.complete_meta(run)["outputs"] == [2]


def test_unknown_run(any_store):
    with pytest.raises(IsolationError, match="no run nope"):
        any_store.run_meta("nope")


def test_parquet_store_that_cannot_be_written_fails_loudly(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="cannot write lineage store") as caught:
        open_store(str(blocker / "runs")).begin("r1", {"run": "r1"})
    assert "\n" not in str(caught.value)


def test_ignite_store_that_cannot_be_reached_fails_loudly():
    with pytest.raises(StoreError, match=r"cannot reach Ignite at 127.0.0.1:9") as caught:
        open_store("ignite://127.0.0.1:9").begin("r1", {"run": "r1"})
    assert "\n" not in str(caught.value)


def test_default_store_lives_under_perfx_home(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFX_HOME", str(tmp_path / "home"))
    assert open_store().url == str(tmp_path / "home" / "runs")
