"""One count of stages for MapReduce in every command: a job's map tasks and its reduce
tasks are its two stages (stage_key job_id/MAP, job_id/REDUCE), in ``perfx logs`` as in
``perfx stragglers``. Public job histories from tests/data/public."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfx.cli import cli
from perfx.logs.loader import load_log
from tests.data_files import PUBLIC

SUCCEEDED = sorted((PUBLIC / "linkedin__dr-elephant").glob("*.jhist"))
"""Two QuasiMonteCarlo jobs, one map and one reduce each, both succeeded."""
FAILED = sorted((PUBLIC / "mpw0563__hadoop").glob("*.jhist"))
"""Failed jobs: a map that failed, and the attempts killed with the job."""


def run(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("path", SUCCEEDED, ids=lambda p: p.name[:22])
def test_logs_counts_the_stages_stragglers_reports(path: Path) -> None:
    job = path.name.split("-")[0]
    stragglers = run("stragglers", "--log", str(path))
    assert [s["stage_key"] for s in stragglers["stages"]] == [f"{job}/MAP", f"{job}/REDUCE"]
    assert run("logs", str(path))["stages"] == 2


def test_failed_jobs_count_the_stages_their_tasks_ran_in() -> None:
    """The job whose only task, a map, failed had one stage; the others' maps failed and
    their reduces were killed: two each."""
    assert [run("logs", str(p))["stages"] for p in FAILED] == [2, 1, 2]
    assert run("logs", *map(str, FAILED))["stages"] == 5
    assert run("logs", *map(str, FAILED))["stages"] == load_log(FAILED).tasks["stage_key"].nunique()


def test_spark_and_mapreduce_stages_add_up() -> None:
    spark = PUBLIC / "qubole__sparklens" / "local-1532512550423"
    alone = run("logs", str(spark))["stages"]
    assert alone == len(load_log(spark).stages)
    assert run("logs", str(spark), *map(str, SUCCEEDED))["stages"] == alone + 2 * len(SUCCEEDED)
