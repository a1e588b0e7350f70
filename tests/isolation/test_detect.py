"""Skew detection on the event log of a real run: the task holding a movie with far more
ratings than the others is flagged, and ``perfx skew`` recommends the traced re-run."""

from __future__ import annotations

import json
import time

import pandas as pd
import pytest
from click.testing import CliRunner

from perfx.isolation.detect import skewed_tasks

pytestmark = pytest.mark.spark


def test_flags_the_partition_of_the_expensive_record(spark, spark_event_dir, tmp_path):
    from perfx.logs.loader import load_log

    path = tmp_path / "numbers.txt"
    path.write_text("".join(f"{i}\n" for i in range(4000)))

    def cost(line):  # one record costs two seconds: computation skew in a Python UDF
        if line == "1234":
            time.sleep(2)
        return int(line) % 7, 1

    sc = spark.sparkContext
    lines = sc.textFile(str(path), 4)
    hot = lines.mapPartitionsWithIndex(lambda i, it: [i] if "1234" in it else []).collect()
    sc.setJobGroup("perfx-skew-test", "skew detection test")
    lines.map(cost).reduceByKey(lambda a, b: a + b).collect()
    sc.setJobGroup("", "")
    tracker = sc.statusTracker()
    stages = {
        s
        for job in tracker.getJobIdsForGroup("perfx-skew-test")
        for s in tracker.getJobInfo(job).stageIds
    }

    log = load_log([spark_event_dir])
    flagged = skewed_tasks(log.tasks)
    ours = flagged[(flagged.app_id == sc.applicationId) & flagged.stage_id.isin(stages)]
    assert ours.partition_id.iloc[0] == hot[0]  # flagged, and the most skewed of its stage
    assert "x the stage's median time per byte read" in ours.reasons.iloc[0][0]

    result = CliRunner().invoke(
        __import__("perfx.cli", fromlist=["cli"]).cli,
        ["skew", "--log", str(spark_event_dir), "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["rerun"].startswith("perfx isolate")
    assert any(
        s["stage_id"] in stages and s["skewed_tasks"][0]["partition"] == hot[0]
        for s in report["stages"]
    )


def _tasks(**columns):
    base = {
        "app_id": "a",
        "stage_id": 1,
        "stage_key": "a/1/0",
        "task_id": range(5),
        "partition_id": range(5),
        "duration": [100.0] * 5,
        "records_in": [100] * 5,
        "bytes_in": [1e6] * 5,
        "gc_time": [5.0] * 5,
        "result_serialization_time": [0.0] * 5,
        "deserialize_time": [1.0] * 5,
    }
    return pd.DataFrame({**base, **columns})


def test_gc_far_above_the_stage_is_flagged():
    flagged = skewed_tasks(_tasks(gc_time=[5.0, 5.0, 60.0, 5.0, 5.0]))
    assert flagged.task_id.tolist() == [2] and flagged.reasons[0] == [
        "GC 60 ms (stage median 5 ms)"
    ]


def test_even_stage_is_not_flagged():
    assert skewed_tasks(_tasks()).empty


def test_rates_are_per_byte_read_else_per_record():
    """The basis of logs.progress, the stragglers' own: bytes when every task of the stage
    read some, else records."""
    slow = _tasks(duration=[100.0, 100.0, 100.0, 100.0, 400.0], bytes_in=[1e6] * 4 + [4e6])
    assert skewed_tasks(slow).empty  # four times the time for four times the bytes
    no_bytes = _tasks(duration=[100.0, 100.0, 100.0, 100.0, 400.0], bytes_in=[0.0] * 5)
    flagged = skewed_tasks(no_bytes)
    assert flagged.task_id.tolist() == [4] and flagged.rate_ratio[0] == pytest.approx(4.0)
    assert flagged.reasons[0] == ["4.0x the stage's median time per record"]
