"""One conformance suite for every lineage store: the Parquet store (a local path and a
file:// URI) and Apache Ignite (the node the tests start, or PERFX_IGNITE_HOST's): runs listed,
partitions complete, a retried or speculative attempt replacing its partition whole, a reader
seeing only complete runs while one is written, and the culprit and trace queries of one
traced execution giving the same answers from each store."""

from __future__ import annotations

import pickle
import threading
import time
import uuid

import pandas as pd
import pyarrow as pa
import pytest

from perfx.isolation.errors import IsolationError, StoreError
from perfx.isolation.ids import ID_LAYOUT, partition_base
from perfx.isolation.lineage import SCHEMA, PartitionRows
from perfx.isolation.programs import movie_ratings
from perfx.isolation.queries import StoredRun, backward_trace, outputs, top_culprits
from perfx.isolation.runner import run_traced
from perfx.isolation.stores import open_store
from tests.isolation.tee import Tee

STORES = ["parquet", "parquet-uri", pytest.param("ignite", marks=pytest.mark.ignite)]


def _open(kind: str, request, tmp_path):
    if kind == "ignite":
        return open_store(request.getfixturevalue("ignite_url"))
    root = tmp_path / "runs"
    return open_store(root.as_uri() if kind == "parquet-uri" else str(root))


@pytest.fixture(params=STORES)
def any_store(request, tmp_path):
    return _open(request.param, request, tmp_path)


def _rows(stage, partition, count, full=True, output=False):
    rows = PartitionRows(full=full, output=output)
    base = partition_base(stage, partition)
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
    any_store.mark_complete(run, {"run": run, "ids": ID_LAYOUT, "outputs": [2]})
    assert any_store.complete_meta(run)["outputs"] == [2]


def test_a_run_of_another_id_layout_is_refused_not_misread(any_store):
    """Runs stored before ids had 11 table bits packed the table at bit 56: read with
    today's layout their ids would name other stages and partitions."""
    run = _run_id()
    any_store.begin(run, {"run": run, "complete": False})
    any_store.mark_complete(run, {"run": run, "outputs": [2]})
    with pytest.raises(IsolationError, match=r"stored by an older perfx.*trace the program again"):
        any_store.complete_meta(run)


def test_unknown_run(any_store):
    for read in (any_store.run_meta, any_store.partitions, any_store.tables):
        with pytest.raises(IsolationError, match="no run nope"):
            read("nope")


def test_parquet_store_that_cannot_be_written_fails_loudly(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="cannot write lineage store") as caught:
        open_store(str(blocker / "runs")).begin("r1", {"run": "r1"})
    assert "\n" not in str(caught.value)


def test_ignite_store_that_cannot_be_reached_fails_on_opening():
    with pytest.raises(StoreError, match=r"cannot reach Ignite at 127.0.0.1:9 ") as caught:
        open_store("ignite://127.0.0.1:9")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("url", ["ignite://", "ignite://host:port", "ignite://host:99999"])
def test_bad_ignite_url_is_refused(url):
    with pytest.raises(StoreError, match="bad Ignite store URL"):
        open_store(url)


def test_default_store_lives_under_perfx_home(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFX_HOME", str(tmp_path / "home"))
    assert open_store().url == str(tmp_path / "home" / "runs")


def _frame(table) -> pd.DataFrame:
    return (table if isinstance(table, pa.Table) else table.to_table()).to_pandas()


def _as_task(store):
    """The store as a task holds it: a pickled copy, with a connection of its own."""
    return pickle.loads(pickle.dumps(store))


RACES = 8
"""Races run: where the two attempts' writes of a partition interleave is up to the
scheduler, so one race can miss a store that lets them mix (a layout that put a partition's
rows and its entry apart, one after the other, failed this test 6 times in 6)."""


def test_racing_attempts_leave_each_partition_whole(any_store):
    """Two attempts of the same tasks (a speculative one beside the first) write the same
    partitions at once, each through its own copy, while a reader reads: every read
    and every end state hold each partition's rows of exactly one attempt (attempt a writes
    10 + 7a rows), and the partition listing agrees with the rows. Each race is a stage of
    its own in one run."""
    run = _run_id()
    any_store.begin(run, {"run": run, "complete": False})
    partitions = range(3)

    def race(stage: int, number: int) -> None:
        copy = _as_task(any_store)
        for p in partitions:
            table = _rows(stage, p, 10 + 7 * number).to_arrow(run, stage, p)
            copy.write_partition(run, stage, p, table, attempt=number)

    for stage in range(1, RACES + 1):
        for p in partitions:
            any_store.write_partition(run, stage, p, _rows(stage, p, 10).to_arrow(run, stage, p))
        writers = [threading.Thread(target=race, args=(stage, n)) for n in (0, 1)]
        for writer in writers:
            writer.start()
        while any(w.is_alive() for w in writers):
            frame = _frame(any_store.tables(run)[stage])
            assert not frame.out_id.duplicated().any()
            assert set(frame.groupby("partition").size()) <= {10, 17}
            time.sleep(0.01)  # the writers get the interpreter between reads
        for writer in writers:
            writer.join()
        frame = _frame(any_store.tables(run)[stage])
        listed = any_store.partitions(run)
        listed = listed[listed.stage == stage]
        assert listed.partition.tolist() == list(partitions)
        assert frame.groupby("partition").size().tolist() == listed["rows"].tolist()
        assert all(rows == 10 + 7 * a for rows, a in zip(listed["rows"], listed["attempt"]))


def _write_run(store, run: str, partitions: int, between=lambda: None) -> None:
    """A small complete run: a combine stage and an output stage of ``partitions`` each;
    ``between`` is called after the first partition is written."""
    store.begin(run, {"run": run, "created": run, "lineage": "impact", "complete": False})
    for p in range(partitions):
        store.write_partition(run, 1, p, _rows(1, p, 4 + p, full=False).to_arrow(run, 1, p))
        if p == 0:
            between()
    for p in range(partitions):
        rows = _rows(2, p, 2 + p, full=False, output=True).to_arrow(run, 2, p)
        store.write_partition(run, 2, p, rows)
    store.mark_complete(
        run, {"run": run, "created": run, "ids": ID_LAYOUT, "lineage": "impact", "outputs": [2]}
    )


def _answers(store, run: str) -> tuple:
    stored = StoredRun.open(store, run)
    return (
        outputs(stored).to_dict("records"),
        top_culprits(stored).to_dict("records"),
        top_culprits(stored, stage=1, partition=1).to_dict("records"),
    )


@pytest.mark.slow
def test_a_reader_during_a_write_sees_only_complete_runs(any_store):
    """While a run is being written, a reader listing and querying the store gets, for every
    run it lists, either the run's final answers or a refusal of an incomplete run; it is
    made to look while the run is half written."""
    done, busy = _run_id(), _run_id()
    _write_run(any_store, done, 3)
    half_written, looked = threading.Event(), threading.Event()

    def pause() -> None:
        half_written.set()
        assert looked.wait(60)

    writer = threading.Thread(target=_write_run, args=(_as_task(any_store), busy, 3, pause))
    writer.start()
    seen: dict[str, list] = {done: [], busy: []}
    refused = 0

    def read() -> None:
        nonlocal refused
        for meta in any_store.runs():
            if meta["run"] not in seen:
                continue
            try:
                seen[meta["run"]].append(_answers(any_store, meta["run"]))
            except IsolationError as err:
                assert meta["run"] == busy and "is incomplete" in str(err), err
                assert not meta.get("complete")
                refused += 1

    while writer.is_alive():
        read()
        if half_written.is_set() and refused:
            looked.set()
    writer.join()
    read()  # and once the writer is done: the run is complete
    assert refused and seen[done] and seen[busy]
    for run, answers in seen.items():
        assert all(answer == _answers(any_store, run) for answer in answers)


@pytest.fixture(scope="module")
def traced_in_both(spark, ignite_url, tmp_path_factory):
    """One traced execution (full lineage, one movie with far more ratings than the others)
    stored at once in Parquet and in Ignite: (run id, {store kind: url}, the hot line)."""
    folder = tmp_path_factory.mktemp("stores-traced")
    data = str(folder / "ratings.txt")
    # 300,000 ratings (~100 ms): 20,000 cost ~7 ms, and a fresh-clone run's longer line
    # outran them once (a pause in its call)
    movie_ratings.generate(data, 600, seed=11, hot_ratings=300_000)
    hot = next(line for line in open(data) if line.count(",") > 10000)
    urls = {"parquet": str(folder / "runs"), "ignite": ignite_url}
    store = Tee(*(open_store(url) for url in urls.values()))
    result = run_traced(movie_ratings.__file__, data, spark=spark, store=store, lineage="full")
    return result.run_id, urls, hot


def _all_answers(stored: StoredRun) -> dict:
    slowest = outputs(stored).iloc[0]
    combine = next(int(s) for s, i in stored.meta["stages"].items() if i["kind"] == "combine")
    return {
        "outputs": outputs(stored),
        "culprits": top_culprits(stored, top=5),
        "partition": top_culprits(stored, top=5, stage=combine, partition=0),
        "trace": backward_trace(stored, slowest.key, show=50),
    }


@pytest.mark.spark
@pytest.mark.parametrize("kind", ["parquet", pytest.param("ignite", marks=pytest.mark.ignite)])
def test_queries_answer_alike_from_every_store(traced_in_both, kind):
    """The culprit and trace queries of one execution answer the same from either store
    (Parquet is the oracle), and name the hot movie's line as the top culprit."""
    run, urls, hot = traced_in_both
    stored = StoredRun.open(open_store(urls[kind]), run)
    parquet = StoredRun.open(open_store(urls["parquet"]), run)
    assert stored.meta == parquet.meta
    pd.testing.assert_frame_equal(stored.store.partitions(run), parquet.store.partitions(run))
    oracle, answers = _all_answers(parquet), _all_answers(stored)
    for name in ("outputs", "culprits", "partition"):
        pd.testing.assert_frame_equal(answers[name], oracle[name])
    trace, expected = answers["trace"], oracle["trace"]
    assert (trace.output, trace.count) == (expected.output, expected.count)
    pd.testing.assert_frame_equal(trace.sources, expected.sources)
    assert hot.startswith(answers["culprits"].excerpt.iloc[0].rstrip("…"))
