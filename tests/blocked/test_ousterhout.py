"""Ousterhout's text job logs load as canonical tables, and the what-if runs on them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perfx.explain.blocked.stragglers import find_stragglers
from perfx.explain.blocked.whatif import whatifs
from perfx.logs.loader import load_log
from perfx.logs.ousterhout import is_ousterhout_log, read_ousterhout_log
from tests.data_files import DATA, fixture_log


@pytest.fixture(scope="module")
def traces() -> Path:
    return fixture_log("ousterhout-traces")


@pytest.fixture(scope="module")
def log(traces):
    return read_ousterhout_log(traces)


def test_recognises_job_logs_and_their_folders(traces):
    assert is_ousterhout_log(traces)
    assert is_ousterhout_log(traces / "04_15_14_disk" / "1a_disk_job_log")
    assert not is_ousterhout_log(traces / "README.md")
    assert not is_ousterhout_log(fixture_log("spark-events"))
    assert not is_ousterhout_log(fixture_log("spark-events/local-1430917381534"))
    assert not is_ousterhout_log(DATA), "a folder with Spark event logs too is left to their reader"


def test_every_file_is_an_app_with_its_tasks(log):
    counts = log.tasks.groupby("app_id").size().to_dict()
    assert counts == {
        **{f"04_15_14_disk/1{q}_disk_job_log": 100 for q in "abc"},
        **{f"04_15_14_mem/1{q}_mem_job_log": 100 for q in "abc"},
        "job_logs/2a_1391737661_job_log": 2197,
        "job_logs/1391736456_job_log": 10,
        "test_files/test_job_log": 5,
    }
    assert log.skipped == []
    assert log.tasks["id"].is_unique and log.stages["id"].is_unique and log.jobs["id"].is_unique
    assert set(log.apps["id"]) == set(counts)


def test_units_and_fields_map_to_canonical_columns(log):
    task = log.tasks.set_index("id").loc["04_15_14_disk/1a_disk_job_log/111"]
    assert task["duration"] == 1397623962029 - 1397623958667
    assert (
        task["executor_run_time"] == 3211
        and task["deserialize_time"] == 123
        and task["gc_time"] == 0
    )
    assert task["input_read_time"] == pytest.approx(1542.008319)  # READ_BLOCKED_TIME is in ns
    assert task["input_bytes"] == 55775954 and task["input_read_method"] == "HDFS"
    assert task["scheduler_delay"] == task["duration"] - 3211 - 123
    assert task["stage_key"] == "04_15_14_disk/1a_disk_job_log/2/0" and task["job_id"] == "1"
    assert task["task_type"] == "ResultTask" and task["status"] == "SUCCESS"
    fetch = log.tasks.set_index("id").loc["job_logs/2a_1391737661_job_log/4347"]
    assert fetch["shuffle_fetch_wait_time"] == 831 and fetch["shuffle_read_bytes"] == 47274810
    assert fetch["bytes_in"] == 47274810 and fetch["shuffle_remote_blocks_fetched"] == 1625
    assert np.isnan(fetch["gc_time"]), "a time the file does not log stays unknown"


def test_registry_names_the_instrumented_input_read_time(log):
    spec = log.registry.resolve("task", "input_read_time")
    assert spec is not None and spec.unit == "ms" and spec.is_candidate
    assert {s.name for s in log.features("task")} >= {
        "duration",
        "gc_time",
        "input_read_time",
        "host",
    }


def test_stages_and_jobs_come_from_the_events_and_their_tasks(log):
    stage = log.stages.set_index("id").loc["job_logs/2a_1391737661_job_log/4/0"]
    assert stage["parent_ids"] == "5,1" and stage["num_tasks"] == 160 and stage["task_count"] == 160
    assert stage["status"] == "COMPLETE" and stage["job_id"] == "3"
    job = log.jobs.set_index("id").loc["job_logs/2a_1391737661_job_log/3"]
    assert job["status"] == "SUCCEEDED" and job["stage_ids"] == "4,5" and job["task_count"] == 2197


def test_normalised_runtimes_match_the_papers_scripts(log, traces):
    """run_tests.sh of trace-analysis: each task's runtime over its stage's median, and the
    same for the tasks that did not read their input locally."""
    tasks = log.tasks.loc[
        log.tasks["app_id"] == "test_files/test_job_log"
    ]  # in file order, as written
    normalised = tasks["duration"] / tasks["duration"].median()
    expected = [
        float(x)
        for x in (traces / "test_files" / "expected_agg_out_normalized_runtimes_hdfs")
        .read_text()
        .split()
    ]
    assert list(normalised) == pytest.approx(expected)
    non_local = normalised[tasks["locality"] != "NODE_LOCAL"]
    expected = [
        float(x)
        for x in (traces / "test_files" / "expected_agg_out_normalized_runtimes_hdfs_non_local")
        .read_text()
        .split()
    ]
    assert list(non_local) == pytest.approx(expected)


def test_bad_event_lines_are_skipped_and_counted(tmp_path, traces):
    lines = (traces / "04_15_14_mem" / "1a_mem_job_log").read_text().splitlines()
    task_line = next(i for i, line in enumerate(lines) if "TASK_TYPE" in line)
    lines[task_line] = lines[task_line].split(" FINISH_TIME")[0]  # truncated: no FINISH_TIME
    lines.insert(task_line + 1, "2014/04/16 03:36:44: what is this")  # not KEY=VALUE pairs
    lines.append(lines[task_line + 2].replace("START_TIME=", "START_TIME=x"))
    (tmp_path / "broken_job_log").write_text("\n".join(lines) + "\n")
    log = read_ousterhout_log(tmp_path / "broken_job_log")
    assert len(log.tasks) == 99
    assert [(s.line, s.reason.split(" ")[0]) for s in log.skipped] == [
        (task_line + 1, "task"),
        (task_line + 2, "not"),
        (len(lines), "START_TIME='x1397619404578'"),
    ]


def test_load_log_reads_a_folder_of_job_logs(traces):
    assert len(load_log(traces / "04_15_14_disk").tasks) == 300


def test_whatif_and_stragglers_run_on_the_papers_kind_of_data(log):
    without_disk, without_stragglers = whatifs(log, [["disk"], ["stragglers"]])
    disk_jobs = without_disk.jobs[without_disk.jobs["app_id"].str.startswith("04_15_14_disk")]
    assert (disk_jobs["improvement"] > 0.1).all(), (
        "input read is a large part of the on-disk queries"
    )
    assert without_disk.jobs["model_error"].abs().max() < 0.1
    assert (without_stragglers.jobs["improvement"] >= 0).all()
    report = find_stragglers(log.tasks)
    assert "input_read" in report.causes
    assert report.stragglers > 0 and report.explained_share > 0.5
