"""Next steps that fit (issue 30, item 6): perfx isolate is suggested only where Python code
handled the records that cost the time, on real logs whose SQL plans say how their jobs ran:
RAPIDS plans on the GPU (nds_q66_gpu), plans of JVM operators alone (nds_q88 on Photon, and
nds_q72 on Dataproc run from PySpark, whose waits are no Python worker's) and plans with pandas UDFs (pandas_execs, run from a Python shell whose
stages' call sites look like Scala's)."""

from __future__ import annotations

import pytest

from perfx.explain.cause import task_cause
from perfx.explain.gap import ISOLATE
from perfx.logs.eventlog import sqlplan
from perfx.session import open as open_session
from tests.data_files import public_log

RAPIDS = public_log("NVIDIA__spark-rapids-tools")
SKEW = ("computation skew", "data skew")


def _slowest(name: str):
    """(log, [(task row, diagnosis)]) for the slowest task of each stage whose slowest took
    more than 1.5x its stage's median."""
    log = open_session([str(RAPIDS / name)]).log
    tasks = log.tasks[log.tasks["status"] == "SUCCESS"]
    stage = tasks.groupby("stage_key")["duration"]
    slow = tasks[
        (stage.transform("size") >= 3) & (tasks["duration"] > 1.5 * stage.transform("median"))
    ]
    slow = slow.sort_values("duration", ascending=False).groupby("stage_key").head(1)
    return log, [(task, task_cause(log, str(task["id"]))) for _, task in slow.iterrows()]


def _skewed(name: str):
    """``_slowest``'s tasks diagnosed as skew."""
    log, slowest = _slowest(name)
    return log, [(t, d) for t, d in slowest if d is not None and d.name in SKEW]


def _engine(log, task) -> str:
    jobs = log.jobs.set_index("id")["plan_engine"]
    return jobs.get(f"{task['app_key']}/{task['job_id']}", "")


@pytest.mark.parametrize(
    "name, engine, why",
    [
        ("nds_q66_gpu.zstd", sqlplan.GPU, "ran on the GPU (RAPIDS)"),
        ("nds_q88_photon_db_13_3.zstd", sqlplan.JVM, "runs no Python code"),
    ],
)
def test_no_isolation_where_no_python_code_handled_the_records(name, engine, why):
    log, skewed = _skewed(name)
    checked = [(t, d) for t, d in skewed if _engine(log, t) == engine]
    assert checked, "the log has a skewed task of that engine"
    for _, diagnosis in checked:
        assert diagnosis.next_step == ""
        assert f"perfx isolate re-runs PySpark programs, and its SQL plan {why}" in diagnosis.detail


@pytest.mark.parametrize("name", ["nds_q72_dataproc_2_2.zstd", "nds_q88_photon_db_13_3.zstd"])
def test_time_a_jvm_plan_spent_off_the_cpu_is_a_wait_not_the_python_workers(name):
    """Stages of plans of JVM operators alone, run from PySpark (nds_q72's stages are named
    after its Python script's lines): extra time the JVM's CPU did not follow was said to be
    spent "in the Python worker", as computation skew, while the same diagnosis said the plan
    runs no Python code. It is a wait; the plan, not the call site, says where code ran."""
    log, slowest = _slowest(name)
    said = [d for task, d in slowest if _engine(log, task) == sqlplan.JVM]
    waits = [d for d in said if d is not None and d.name == "off-CPU wait"]
    assert waits and all("waiting on I/O, locks or a busy host" in d.detail for d in waits)
    assert not any(d is not None and "Python worker" in d.detail for d in said)


def test_isolation_where_a_plans_python_udfs_handled_them():
    log, skewed = _skewed("pandas_execs_eventlog.zstd")
    assert skewed
    for task, diagnosis in skewed:
        assert _engine(log, task) == sqlplan.PYTHON
        assert diagnosis.next_step == ISOLATE
        assert "in the Python worker" in diagnosis.detail and "Scala" not in diagnosis.detail


@pytest.mark.slow
def test_the_jobs_table_says_each_plans_engine_and_first_input():
    engines = {}
    for name in ("nds_q66_gpu.zstd", "nds_q88_photon_db_13_3.zstd", "python_udf_eventlog"):
        jobs = open_session([str(RAPIDS / name)]).log.jobs
        engines[name] = set(jobs["plan_engine"]) - {""}
        planned = jobs[jobs["plan_engine"] != ""]
        assert (planned["plan_input"] != "").any()
    assert engines == {
        "nds_q66_gpu.zstd": {sqlplan.GPU},
        "nds_q88_photon_db_13_3.zstd": {sqlplan.JVM},
        "python_udf_eventlog": {sqlplan.PYTHON},
    }


@pytest.mark.parametrize(
    "plan, engine, scanned",
    [
        (
            "+- GpuProject [a#1]\n   +- GpuFileGpuScan parquet [a#1] Location: "
            "InMemoryFileIndex[gs://bucket/web_sales], PartitionFilters: []",
            sqlplan.GPU,
            "gs://bucket/web_sales",
        ),
        (
            "+- BatchEvalPython [f(x#2)#7], [pythonUDF0#9]\n +- FileScan parquet [x#2] "
            "Location: InMemoryFileIndex(1 paths)[file:/data/in.parquet]",
            sqlplan.PYTHON,
            "file:/data/in.parquet",
        ),
        ("*(1) Project [a#1]\n+- *(1) Range (0, 10, step=1, splits=2)", sqlplan.JVM, ""),
        # a Python UDTF's plan as Spark 4.3 logs it (Spark's own UDTF example, traced)
        (
            "+- Project (3)\n   +- ArrowEvalPythonUDTF (2)\n      +- Scan ExistingRDD (1)",
            sqlplan.PYTHON,
            "",
        ),
        ("+- BatchEvalPythonUDTF [split_words(text#0)#3], [word#4]", sqlplan.PYTHON, ""),
    ],
)
def test_a_plan_names_its_engine_and_first_input(plan, engine, scanned):
    assert sqlplan.engine(plan) == engine
    assert sqlplan.first_input(plan) == scanned


def test_the_isolate_command_names_the_input_the_python_plan_scanned():
    from perfx.chain import isolate_command

    log = open_session([str(RAPIDS / "python_udf_eventlog")]).log
    app = str(log.apps["app_id"].iloc[0])
    assert isolate_command(log, app).endswith(
        "--input /home/rishic/Code/myforks/cuaether-agent/tmp/data/input.parquet"
    )
