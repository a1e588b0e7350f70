"""``perfx.open(spark)``: a running SparkSession read through its UI's REST API, right after
the slow job, with no event log: a skewed job's slowest task is explained as skew."""

from __future__ import annotations

import pytest

import perfx

pytestmark = pytest.mark.spark

GROUP = "perfx-live-skew"


def _skewed_job(spark) -> None:
    """A shuffle in which one key holds 80 % of the rows: the task of its partition reads
    far more rows, and takes far longer, than its 15 peers, which read about as many rows
    each (the job of docs/live_session.ipynb): the pairs of peers that took about as long
    are what PerfXplain learns from, and 3 peers could leave none."""
    sc = spark.sparkContext
    sc.setJobGroup(GROUP, "a skewed shuffle")
    try:
        rows = spark.range(0, 2_000_000, numPartitions=8).selectExpr(
            "IF(id % 10 < 8, 0, id) AS k", "id AS v"
        )
        hashed = rows.repartition(16, "k").selectExpr("sha2(CAST(v AS STRING), 256) AS h")
        hashed.write.format("noop").mode("overwrite").save()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)


def test_a_live_session_explains_its_skewed_task(spark):
    _skewed_job(spark)
    session = perfx.open(spark)
    log = session.raw
    assert log.apps["app_id"].tolist() == [spark.sparkContext.applicationId]
    assert log.apps["completed"].tolist() == ["F"]  # still running
    jobs = log.jobs[log.jobs["job_group"] == GROUP]
    assert len(jobs) and (jobs["status"] == "SUCCEEDED").all()
    tasks = log.tasks[log.tasks["job_id"].isin(jobs["job_id"])]
    reducers = tasks[tasks["shuffle_read_records"] > 0]
    assert reducers["stage_key"].nunique() == 1 and len(reducers) == 16
    # the hot key's task (in a fresh JVM the stage's first tasks may take as long, cold)
    heavy = reducers.loc[reducers["shuffle_read_records"].idxmax()]

    answer = session.explain(f"WHY TASK {heavy['task_id']} SLOWER")
    diagnosis = answer.gap.diagnosis
    assert diagnosis is not None and diagnosis.name == "data skew", str(answer)
    assert "skew" in str(answer)


def test_a_session_without_ui_says_so():
    class NoUi:
        class sparkContext:
            uiWebUrl = None
            applicationId = "local-1"

        def sql(self):  # a SparkSession has one
            raise NotImplementedError

    with pytest.raises(perfx.LogError, match=r"spark\.ui\.enabled=false"):
        perfx.open(NoUi())
