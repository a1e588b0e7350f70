"""``perfx stragglers`` and ``perfx whatif``: text and stable JSON."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from perfx.cli import cli
from tests.data_files import fixture_log, public_log


@pytest.fixture(scope="module")
def traces():
    return str(fixture_log("ousterhout-traces"))


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_stragglers_json_lists_stages_causes_and_the_share_explained(traces):
    result = _run("stragglers", "--log", traces, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {
        "causes",
        "stragglers",
        "explained",
        "explained_share",
        "by_cause",
        "stages",
        "straggler_tasks",
    } <= set(data)
    assert (
        data["stragglers"]
        == len(data["straggler_tasks"])
        == sum(s["stragglers"] for s in data["stages"])
    )
    assert 0 < data["explained_share"] <= 1
    assert "input_read" in data["causes"] and data["by_cause"]["first_task"] > 0
    assert all(set(t["causes"]) <= set(data["causes"]) for t in data["straggler_tasks"])


def test_stragglers_text_is_a_table_per_stage(traces):
    result = _run("stragglers", "--log", traces)
    assert result.exit_code == 0
    assert (
        "Stragglers per stage" in result.output
        and "have one of the table's rule causes" in result.output
    )
    assert "1c_disk_job_log" in result.output


def test_whatif_json_has_each_scenario_per_job_and_the_model_error():
    result = _run(
        "whatif",
        "--log",
        str(fixture_log("spark-events/local-1430917381534")),
        "--without",
        "gc",
        "--without",
        "network,disk",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["scenarios"] == ["gc", "network+disk"]
    job = data["jobs"][0]
    assert job["real_ms"] == 1167 and set(job["whatif"]) == {"gc", "network+disk"}
    assert job["whatif"]["gc"]["ms"] < job["modelled_ms"]
    assert data["model_error"]["jobs"] == 1 and data["model_error"]["max"] < 0.05
    assert data["apps"][0]["app_id"] == "local-1430917381534"


@pytest.mark.slow
def test_whatif_text_shows_real_modelled_and_default_scenarios(traces):
    result = _run("whatif", "--log", traces)
    assert result.exit_code == 0
    for text in ("Real", "Modelled", "stragglers", "disk", "network", "Model error"):
        assert text in result.output


def test_whatif_refuses_unknown_names(traces):
    result = CliRunner().invoke(cli, ["whatif", "--log", traces, "--without", "gc,cpu"])
    assert result.exit_code == 2
    assert "unknown cpu" in result.output and "stragglers" in result.output


@pytest.mark.slow
def test_whatif_on_a_mapreduce_log_is_one_line_and_exit_code_1():
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "perfx.cli", "whatif", "--log", str(fixture_log("hadoop-jhist"))],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == (
        "perfx: what-if replays Spark stages, and this log's tasks have no app_id "
        "(MapReduce and tabular logs have jobs and tasks only: try perfx stragglers)"
    )


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A Spark application and a MapReduce job history in one folder."""
    folder = tmp_path_factory.mktemp("mixed")
    spark = fixture_log("spark-events/local-1430917381534")
    sleep = next((fixture_log("hadoop-jhist")).glob("job_1329348432655_0001-*.jhist"))
    (folder / spark.name).write_bytes(spark.read_bytes())
    (folder / sleep.name).write_bytes(sleep.read_bytes())
    return str(folder)


def test_stragglers_of_a_mixed_folder_judge_both_kinds_of_task(mixed):
    result = _run("stragglers", "--log", mixed, "--format", "json")
    assert result.exit_code == 0, result.output
    stages = {s["stage_key"]: s for s in json.loads(result.output)["stages"]}
    assert (
        stages["job_1329348432655_0001/MAP"]["tasks"] == 10
        and stages["job_1329348432655_0001/REDUCE"]["tasks"] == 2
    )
    assert any(key.startswith("local-1430917381534/") for key in stages)
    assert all(s["basis"] != "nan" for s in stages.values())


def test_whatif_of_a_mixed_folder_replays_the_spark_jobs(mixed):
    result = _run("whatif", "--log", mixed, "--format", "json")
    assert result.exit_code == 0, result.output
    jobs = json.loads(result.output)["jobs"]
    assert jobs and {j["app_id"] for j in jobs} == {"local-1430917381534"}


def test_whatif_names_the_jobs_that_overlapped():
    log = str(public_log("NVIDIA__spark-rapids-tools/eventlog_4nodes_8cores_dynamic_alloc.zstd"))
    data = json.loads(_run("whatif", "--log", log, "--without", "gc", "--format", "json").output)
    overlaps = {j["job_id"]: j["overlapped_with"] for j in data["jobs"]}
    assert overlaps["12"] == ["13"] and overlaps["13"] == ["12"] and overlaps["10"] == []
    text = _run("whatif", "--log", log, "--without", "gc").output
    assert "Overlapped with" in text
    assert "jobs overlapped other jobs" in text
