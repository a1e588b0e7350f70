"""End to end on a real event log written by the test's own PySpark jobs (local[2]).

Two skews with the same shape of job (one text file per partition, a Python map, a count):
computation skew — one partition's records cost far more, input sizes equal — must be
explained by its compute time and diagnosed as computation skew; data skew — one partition
holds ten times the records at the same cost per record — by input records or bytes, and
diagnosed as data skew. Neither may be explained by a symptom (time per record, run time) or
an identity (ids, launch time), and the pair of interest must satisfy every clause of the
answer.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfx.explain.columns import columns_for
from perfx.explain.engine import explain
from perfx.explain.pairs import conjunction_mask
from perfx.logs.model import Log

pytestmark = pytest.mark.spark

PARTITIONS = 40
LINES = 2000


def _write_inputs(folder, heavy_lines: int, marker: str) -> None:
    """One file per partition, equal-length lines; file 17 is the odd one out."""
    folder.mkdir()
    for p in range(PARTITIONS):
        n = heavy_lines if p == 17 else LINES
        tag = marker if p == 17 else "N"
        (folder / f"part-{p:03d}.txt").write_text("".join(f"{tag}{k:07d}\n" for k in range(n)))


def _run(spark, folder, group: str) -> tuple[list[str], int]:
    """Run the job under a job group; return its Spark job ids and the odd partition's index."""

    def work(line: str) -> int:
        """Per-record Python work; lines tagged H cost about 25x more. A plain task costs
        about 50 ms of it: enough that the odd task's 10x or 25x stands clear of a slow CI
        host's pauses (a worker's start, a neighbour's burst), which made a plain task
        the slowest of the data-skew job at 200 rounds. (Nested, so that cloudpickle ships
        it by value: workers need not import the test module.)"""
        rounds = 15000 if line[0] == "H" else 600
        return sum(k * k for k in range(rounds)) & 1

    sc = spark.sparkContext
    sc.setJobGroup(group, group)
    try:
        rdd = sc.textFile(str(folder), minPartitions=1)  # one split per (small) file
        per_partition = rdd.mapPartitionsWithIndex(
            lambda idx, it: [(idx, sum(1 + work(x) * 0 for x in it))]
        ).collect()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    sizes = dict(per_partition)
    odd = max(sizes, key=lambda k: (sizes[k], k)) if len(set(sizes.values())) > 1 else None
    return [str(j) for j in sc.statusTracker().getJobIdsForGroup(group)], odd


def _job_log(spark_event_dir, job_ids: list[str]) -> Log:
    from perfx.logs.loader import load_log

    log = load_log([spark_event_dir])
    tasks = log.tasks[log.tasks["job_id"].astype(str).isin(job_ids)].reset_index(drop=True)
    assert len(tasks) == PARTITIONS, (
        f"expected {PARTITIONS} tasks of jobs {job_ids}, got {len(tasks)}"
    )
    return Log(tasks=tasks, registry=log.registry)


def _odd_task(log: Log, partition: int) -> str:
    index_column = "partition_id" if (log.tasks["partition_id"] >= 0).all() else "task_index"
    row = log.tasks.index[log.tasks[index_column] == partition][0]
    return str(log.tasks["id"].iloc[row])


def _assert_applicable(log: Log, answer) -> None:
    cols = columns_for(log, "task")
    rows = {str(v): k for k, v in enumerate(log.tasks["id"])}
    i, j = np.array([rows[answer.pair[0]]]), np.array([rows[answer.pair[1]]])
    query = answer.query_ast
    for clause in (
        query.despite.atoms,
        answer.despite_atoms,
        query.observed.atoms,
        answer.because_atoms,
    ):
        assert conjunction_mask(cols, list(clause), i, j)[0], clause


def _first_because_feature(log: Log, answer) -> str:
    assert answer.because, answer.render_text()
    spec = log.registry.resolve("task", answer.because[0].atom.feature)
    assert spec.role == "feature", spec
    return spec.name


@pytest.fixture(scope="module")
def warm(spark):
    """Start the Python workers once so that no test task pays their start-up."""
    spark.sparkContext.parallelize(range(100), 4).map(lambda x: x).count()


@pytest.fixture(scope="module")
def compute_skew(spark, spark_event_dir, tmp_path_factory, warm):
    """The computation-skew job's log (its tasks only) and its slowest task."""
    folder = tmp_path_factory.mktemp("inputs") / "compute"
    _write_inputs(folder, LINES, "H")
    job_ids, _ = _run(spark, folder, "perfx-compute-skew")
    log = _job_log(spark_event_dir, job_ids)
    return log, str(log.tasks["id"].iloc[log.tasks["duration"].idxmax()])


def test_computation_skew_is_explained_by_compute_time_and_diagnosed(compute_skew):
    log, poi = compute_skew
    assert log.tasks["input_bytes"].nunique() == 1, "inputs must be the same size"
    answer = explain(log, f"WHY TASK {poi} SLOWER", seed=1)
    print(answer.render_text())
    assert _first_because_feature(log, answer) == "compute_time"
    assert answer.gap.diagnosis.name == "computation skew"
    # The stage's cost model sees the same volumes: the cost per unit moved, beyond its spread.
    model = answer.gap.model
    assert model is not None and model.beyond_spread, answer.gap.line()
    assert abs(model.volume_ms) < 0.1 * model.cost_ms, answer.gap.line()
    _assert_applicable(log, answer)
    # Compute time is a cause, not a tautology: its precision is what the run's noise allows,
    # well above chance (the share of related pairs that were slower anyway), never "weak".
    assert not any(n.startswith("weak explanation") for n in answer.notes), answer.notes
    assert answer.metrics.precision >= 0.6


def test_cli_answers_in_json_and_reports_user_errors(compute_skew, spark_event_dir, capsys):
    from perfx.cli import main

    _, poi = compute_skew
    with pytest.raises(SystemExit) as done:
        main(
            [
                "explain",
                "--log",
                str(spark_event_dir),
                "--format",
                "json",
                "--width",
                "2",
                f"WHY TASK {poi} SLOWER",
            ]
        )
    assert done.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert {"query", "pair", "despite", "because", "metrics", "gap", "notes"} <= set(data)
    assert (
        data["gap"]["diagnosis"]["name"] == "computation skew"
        and " slower: compute +" in data["gap"]["line"]
    )
    assert sum(p["delta_ms"] for p in data["gap"]["parts"]) == pytest.approx(
        data["gap"]["gap_ms"], abs=0.01
    )
    assert data["pair"][0] == poi and data["because"] and len(data["because"]) <= 2
    with pytest.raises(SystemExit) as done:
        main(["explain", "--log", str(spark_event_dir), "WHY TASK no-such-task SLOWER"])
    err = capsys.readouterr().err
    assert done.value.code == 1
    assert err.startswith("perfx: no task with id 'no-such-task'") and "Traceback" not in err


def test_data_skew_is_explained_by_input_volume_and_diagnosed(
    spark, spark_event_dir, tmp_path, warm
):
    folder = tmp_path / "data"
    _write_inputs(folder, 10 * LINES, "N")
    job_ids, odd = _run(spark, folder, "perfx-data-skew")
    log = _job_log(spark_event_dir, job_ids)
    poi = _odd_task(log, odd)
    assert poi == str(log.tasks["id"].iloc[log.tasks["duration"].idxmax()])
    answer = explain(log, f"WHY TASK {poi} SLOWER", seed=1)
    print(answer.render_text())
    assert _first_because_feature(log, answer) in (
        "input_records",
        "input_bytes",
        "records_in",
        "bytes_in",
    )
    assert answer.gap.diagnosis.name == "data skew"
    assert answer.gap.share("volume") > 0.7 and "10.0x the input records" in answer.gap.line()
    _assert_applicable(log, answer)
    assert answer.metrics.precision >= 0.8
