"""Hadoop job history files (.jhist): the three real files of Hadoop's own tests, checked
against what Hadoop's tests assert and against the raw events, plus damaged, compressed and
mixed copies of them."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import zstandard

from perfx.cli import main
from perfx.explain.engine import explain
from perfx.explain.errors import ExplainError
from perfx.logs.errors import NotALog
from perfx.logs.jhist.reader import name_summary
from perfx.logs.loader import load_log
from tests.data_files import fixture_log
from tests.logs.test_reader import lz4_stream

JHIST = fixture_log("hadoop-jhist")
SLEEP = (
    JHIST
    / "job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist"
)
TERAGEN = (
    JHIST
    / "job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist"
)
FAILED = JHIST / "job_2.4.0-FAILED.jhist"
SPARK_LOG = fixture_log("spark-events/local-1426533911241")


def raw_events(path: Path) -> list[tuple[str, dict]]:
    """(type, body) of every event line, read with the json module, not perfx."""
    events = []
    for line in path.read_text().splitlines()[2:]:
        if line.strip():
            record = json.loads(line)
            (body,) = record["event"].values()
            events.append((record["type"], body))
    return events


def by_id(table: pd.DataFrame) -> pd.DataFrame:
    return table.set_index("id")


def test_sleep_job_counts_as_hadoop_tests_assert() -> None:
    """TestJobHistoryEntities: 10 completed maps, 1 completed reduce (JOB_FINISHED), 12 tasks
    (10 MAP + 2 REDUCE: the file was hand-edited to add r_000001), user 'user', SUCCEEDED, 1 AM.
    perfx keeps both: every task logged, and the job's summary as Hadoop wrote it."""
    log = load_log(SLEEP)
    assert log.skipped == [] and log.stages.empty and log.apps.empty
    assert log.tasks["task_type"].value_counts().to_dict() == {"MAP": 10, "REDUCE": 2}
    assert (log.tasks["status"] == "SUCCESS").all()
    (job,) = log.jobs.to_dict(orient="records")
    assert job["id"] == "job_1329348432655_0001" and job["status"] == "SUCCEEDED"
    assert (job["name"], job["user"], job["queue"]) == ("Sleep job", "user", "default")
    assert (job["num_map_tasks"], job["num_reduce_tasks"]) == (10, 1)  # JOB_INITED
    assert (job["finished_maps"], job["finished_reduces"]) == (10, 1)  # JOB_FINISHED, not the tasks
    assert job["task_count"] == 12 and job["am_attempts"] == 1
    assert (job["submit_time"], job["launch_time"], job["finish_time"]) == (
        1329348443227,
        1329348448308,
        1329348468601,
    )
    assert job["duration"] == 1329348468601 - 1329348443227


def test_sleep_job_average_merge_time_is_50_ms() -> None:
    """TestJobInfo: the average merge (sortFinish - shuffleFinish) time of the reduces is 50 ms."""
    reduces = load_log(SLEEP).tasks.query("task_type == 'REDUCE'")
    assert reduces["sort_time"].tolist() == [55.0, 45.0] and reduces["sort_time"].mean() == 50.0
    assert (reduces["shuffle_time"] == reduces["shuffle_finished"] - reduces["launch_time"]).all()


@pytest.mark.parametrize("path", [SLEEP, TERAGEN], ids=["sleep", "teragen"])
def test_task_times_and_host_are_the_successful_attempts(path: Path) -> None:
    starts, ends = {}, {}
    for kind, body in raw_events(path):
        if kind.endswith("_ATTEMPT_STARTED"):
            starts[body["taskid"]] = body
        elif kind.endswith("_ATTEMPT_FINISHED") and body["taskStatus"] == "SUCCEEDED":
            ends[body["taskid"]] = body
    tasks = by_id(load_log(path).tasks)
    assert set(tasks.index) == set(ends)
    for task_id, end in ends.items():
        row = tasks.loc[task_id]
        start = starts[task_id]
        assert row["attempt_id"] == end["attemptId"] == start["attemptId"]
        assert (row["launch_time"], row["finish_time"]) == (start["startTime"], end["finishTime"])
        assert row["duration"] == end["finishTime"] - start["startTime"]
        assert (row["host"], row["tracker_name"], row["rack"]) == (
            end["hostname"],
            start["trackerName"],
            end["rackname"],
        )
        assert row["failed_attempts"] == 0 and row["killed_attempts"] == 0


def test_counters_of_one_task_match_the_raw_file() -> None:
    (end,) = [
        b
        for k, b in raw_events(SLEEP)
        if k == "MAP_ATTEMPT_FINISHED" and b["taskid"].endswith("m_000005")
    ]
    row = by_id(load_log(SLEEP).tasks).loc["task_1329348432655_0001_m_000005"]
    counts = {c["name"]: c["value"] for g in end["counters"]["groups"] for c in g["counts"]}
    assert len(counts) > 20
    for name, value in counts.items():
        column = "gc_time" if name == "GC_TIME_MILLIS" else name.lower()
        assert row[column] == value, name
    assert (
        row["input_size"] == counts["BYTES_READ"] == 0
    )  # the input format's bytes: a sleep job reads none
    assert row["map_finished"] == end["mapFinishTime"]
    reduce = by_id(load_log(SLEEP).tasks).loc["task_1329348432655_0001_r_000000"]
    assert reduce["input_size"] == reduce["reduce_shuffle_bytes"] and np.isnan(
        reduce["map_input_records"]
    )


def test_counter_features_have_units_roles_and_hadoop_names() -> None:
    log = load_log([SLEEP, TERAGEN])
    task = {s.name: s for s in log.registry.specs("task")}
    assert (task["gc_time"].unit, task["gc_time"].role, task["gc_time"].aliases) == (
        "ms",
        "feature",
        ("gc_time_millis",),
    )
    assert log.registry.resolve("task", "GC_TIME_MILLIS") is task["gc_time"]
    assert (
        task["hdfs_bytes_read"].unit,
        task["cpu_milliseconds"].unit,
        task["spilled_records"].unit,
    ) == ("bytes", "ms", "count")
    assert (
        task["shuffle_errors_connection"].source == "Shuffle Errors/CONNECTION"
    )  # other groups are prefixed
    assert "tera_gen_counters_checksum" in log.tasks
    assert {task[n].role for n in ("duration", "finish_time", "status", "shuffle_finished")} == {
        "outcome"
    }
    assert {task[n].role for n in ("id", "job_id", "launch_time", "attempt_id")} == {"identity"}
    assert log.registry.resolve("task", "inputsize").name == "input_size"
    job = {s.name: s for s in log.registry.specs("job")}
    assert job["millis_maps"].role == "outcome" and job["mb_millis_maps"].unit == "none"
    assert job["total_launched_maps"].role == "feature" and job["duration_skew"].role == "outcome"
    teragen = by_id(log.jobs).loc["job_1416424547277_0002"]
    assert (teragen["hdfs_bytes_written"], teragen["millis_maps"], teragen["gc_time"]) == (
        10000,
        5956,
        70,
    )


def test_teragen_has_two_maps_and_no_reduce() -> None:
    """TestJobHistoryEntities: 0 total and 0 completed reduces."""
    log = load_log(TERAGEN)
    assert log.tasks["task_type"].tolist() == ["MAP", "MAP"]
    (job,) = log.jobs.to_dict(orient="records")
    assert (job["num_map_tasks"], job["num_reduce_tasks"], job["finished_reduces"]) == (2, 0, 0)
    assert (job["name"], job["user"], job["queue"], job["status"]) == (
        "TeraGen",
        "root",
        "default",
        "SUCCEEDED",
    )
    assert job["launch_time"] == name_summary(TERAGEN.name)["launch_time"] == 1416424779349
    assert log.tasks["locality"].tolist() == ["OFF_SWITCH"] * 2 and log.tasks[
        "speculative"
    ].tolist() == ["F", "F"]


def test_failed_job_2_4_0() -> None:
    """TestJobHistoryParsing...WithoutCounters240 only asks that it parses: one map failed
    four times, the other map and the reduce were killed before they ran."""
    log = load_log(FAILED)
    assert log.skipped == []
    (job,) = log.jobs.to_dict(orient="records")
    assert (job["id"], job["name"], job["queue"], job["status"]) == (
        "job_1400204860297_0001",
        "Fail job",
        "unfunded",
        "FAILED",
    )
    assert (job["finished_maps"], job["finished_reduces"]) == (0, 0) and np.isnan(
        job["failed_maps"]
    )
    assert job["failure_reason"].startswith("Task failed task_1400204860297_0001_m_000000")
    tasks = by_id(log.tasks)
    failed = tasks.loc["task_1400204860297_0001_m_000000"]
    assert (failed["status"], failed["failed_attempts"], failed["attempt_id"]) == (
        "FAILED",
        4,
        "attempt_1400204860297_0001_m_000000_3",
    )  # TASK_FAILED's failedDueToAttempt
    assert failed["failure"] == "Error: java.lang.RuntimeException: Intentional map failure"
    assert (
        failed["duration"] == 1400205004187 - 1400205000985 and failed["locality"] == "NODE_LOCAL"
    )
    assert (
        failed["spilled_records"] == 0 and "hdfs_bytes_read" not in tasks
    )  # the few counters it logged
    for task_id in ("task_1400204860297_0001_m_000001", "task_1400204860297_0001_r_000000"):
        killed = tasks.loc[task_id]
        assert (killed["status"], killed["attempt_id"], killed["host"]) == ("KILLED", "", "")
        assert np.isnan(killed["duration"]) and killed["scheduled_time"] > 0


def test_failed_attempts_without_counters_load(tmp_path) -> None:
    """As Hadoop 0.23 wrote them: attempt failures without a counters field, task failures
    with null counters."""
    lines = FAILED.read_text().splitlines(keepends=True)
    out = lines[:2]  # the header and the schema
    for line in lines[2:]:
        record = json.loads(line) if line.strip() else {}
        if record.get("type") in ("MAP_ATTEMPT_FAILED", "TASK_FAILED"):
            (body,) = record["event"].values()
            if record["type"] == "TASK_FAILED":
                body["counters"] = None
            else:
                del body["counters"]
            line = json.dumps(record, separators=(",", ":")) + "\n"
        out.append(line)
    path = tmp_path / FAILED.name
    path.write_text("".join(out))
    log = load_log(path)
    assert log.skipped == []
    failed = by_id(log.tasks).loc["task_1400204860297_0001_m_000000"]
    assert (
        failed["status"] == "FAILED"
        and failed["failed_attempts"] == 4
        and "spilled_records" not in log.tasks
    )


def test_a_directory_of_histories_loads_every_job() -> None:
    log = load_log(JHIST)
    assert sorted(log.jobs["id"]) == [
        "job_1329348432655_0001",
        "job_1400204860297_0001",
        "job_1416424547277_0002",
    ]
    assert len(log.tasks) == 12 + 2 + 3 and log.tasks["id"].is_unique
    assert sorted(Path(s.path).name for s in log.skipped) == ["LICENSE", "NOTICE", "README.md"]
    assert log.jobs.set_index("id")["task_count"].to_dict() == {
        "job_1329348432655_0001": 12,
        "job_1416424547277_0002": 2,
        "job_1400204860297_0001": 3,
    }


def test_histories_among_spark_logs_load_both(tmp_path) -> None:
    shutil.copy(SPARK_LOG, tmp_path / SPARK_LOG.name)
    shutil.copy(SLEEP, tmp_path / SLEEP.name)
    log = load_log(tmp_path)
    assert log.skipped == []
    assert len(log.apps) == 1 and len(log.jobs) == 2 and len(log.tasks) == 8 + 12
    assert set(log.tasks["job_id"]) == {"0", "job_1329348432655_0001"}
    assert log.tasks["stage_key"].notna().all()  # MapReduce tasks are grouped beside Spark stages
    assert set(log.tasks["stage_key"]) >= {
        "job_1329348432655_0001/MAP",
        "job_1329348432655_0001/REDUCE",
    }
    assert log.registry.resolve("task", "executor_cpu_time") and log.registry.resolve(
        "task", "hdfs_bytes_read"
    )
    assert (
        len(load_log([tmp_path, tmp_path / SLEEP.name]).jobs) == 2
    )  # the same file twice is read once


def test_truncated_history_counts_the_cut_line(tmp_path) -> None:
    """A file cut inside its last event (JOB_FINISHED) keeps every task; the done file's name
    still says how the job ended. Under another name the job is still RUNNING."""
    data = SLEEP.read_bytes()
    cut = data[: data.rindex(b'"totalCounters"')]
    for name, status in ((SLEEP.name, "SUCCEEDED"), ("job_1329348432655_0001_1.jhist", "RUNNING")):
        path = tmp_path / name
        path.write_bytes(cut)
        log = load_log(path)
        assert [(s.line, s.reason) for s in log.skipped] == [(55, "truncated last line")]
        assert len(log.tasks) == 12 and (log.tasks["status"] == "SUCCESS").all()
        (job,) = log.jobs.to_dict(orient="records")
        assert job["id"] == "job_1329348432655_0001" and job["status"] == status
        if status == "SUCCEEDED":
            assert (job["finish_time"], job["finished_reduces"]) == (1329348468601, 1)
        else:
            assert np.isnan(job["finish_time"]) and np.isnan(job["duration"])


def test_a_history_cut_before_its_job_ended_says_where_it_ends(tmp_path, capsys) -> None:
    """The Sleep job's history cut after its 10th, 30th and next-to-last line: the log names
    the file, that line and the type of the event on it; `perfx logs` lists it and
    `perfx stragglers`' answer carries it in its one-line note; the whole file is not cut
    off."""
    lines = SLEEP.read_text().splitlines(keepends=True)
    assert load_log(SLEEP).cut_off == []
    events = {n: json.loads(line)["type"] for n, line in enumerate(lines, 1) if n > 2}
    for n in (10, 30, len(lines) - 1):
        path = tmp_path / f"job_1329348432655_0001_{n}.jhist"
        path.write_text("".join(lines[:n]))
        log = load_log(path)
        assert [(c.path, c.line, c.last_event) for c in log.cut_off] == [(str(path), n, events[n])]
        assert log.skipped == []
    with pytest.raises(SystemExit):
        main(["logs", str(path), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["cut_off"] == [
        {"path": str(path), "line": n, "last_event": events[n], "execution": "job"}
    ]
    assert (
        data["summary"]["cut_off"] == 1
        and "1 file ends before its job did" in (data["summary"]["text"])
    )
    with pytest.raises(SystemExit):
        main(["stragglers", "--log", str(path)])
    out = " ".join(capsys.readouterr().out.split())
    assert f"ends at line {n} ({events[n]}) before its job did" in out


def test_bad_lines_are_skipped_with_their_reason(tmp_path) -> None:
    lines = TERAGEN.read_text().splitlines(keepends=True)
    lines.insert(5, '{"type":"JOB_FROZEN","event":{"x":{}}}\n')
    lines.insert(
        5,
        '{"type":"TASK_STARTED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskStarted":{}}}\n',
    )
    lines.insert(5, "{not json}\n")
    path = tmp_path / "teragen.jhist"
    path.write_text("".join(lines))
    log = load_log(path)
    assert [(s.line, s.reason.split(":")[0]) for s in log.skipped] == [
        (6, "not JSON"),
        (7, "TASK_STARTED without usable 'startTime'"),
        (8, "unknown event 'JOB_FROZEN'"),
    ]
    assert len(log.tasks) == 2
    shutil.copy(TERAGEN, tmp_path / "copy.jhist")
    assert [s.reason for s in load_log(tmp_path).skipped][-1].startswith(
        "duplicate of job job_1416424547277_0002"
    )


@pytest.mark.parametrize("event", ["TASK_STARTED", "MAP_ATTEMPT_STARTED", "JOB_INITED"])
def test_an_event_whose_id_is_null_is_skipped(tmp_path, event) -> None:
    """A null passes the type check as an absent optional field; an id cannot be absent: a
    task keyed by None ended every command in an internal error (sorting it among ids)."""
    field = {"TASK_STARTED": "taskid", "MAP_ATTEMPT_STARTED": "attemptId", "JOB_INITED": "jobid"}
    lines = TERAGEN.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(f'{{"type":"{event}"'))
    record = json.loads(lines[at])
    (body,) = record["event"].values()
    body[field[event]] = None
    lines[at] = json.dumps(record, separators=(",", ":")) + "\n"
    path = tmp_path / "teragen.jhist"
    path.write_text("".join(lines))
    log = load_log(path, cache=False)
    assert [(s.line, s.reason) for s in log.skipped] == [
        (at + 1, f"{event} without usable '{field[event]}'")
    ]
    assert len(log.tasks) == 2 and log.tasks["id"].notna().all()


def test_a_jobs_maps_and_its_reduces_are_separate_stages() -> None:
    """stage_key = job_id/task_type: a map's reference is another map of its job, never a
    reduce. Grouped by job, m_000000's reference was r_000000 (3605 ms, the median of the
    faster tasks, 3 maps and 2 reduces)."""
    log = load_log(SLEEP)
    job = "job_1329348432655_0001"
    assert log.tasks["stage_key"].value_counts().to_dict() == {f"{job}/MAP": 10, f"{job}/REDUCE": 2}
    stage_key = log.registry.resolve("task", "stage_key")
    assert (stage_key.kind, stage_key.role) == (
        "nominal",
        "identity",
    ) and "Spark stage" in stage_key.description
    answer = explain(log, "WHY TASK task_1329348432655_0001_m_000000 SLOWER")
    assert answer.pair == ("task_1329348432655_0001_m_000000", "task_1329348432655_0001_m_000007")
    assert "the task of the same stage closest to the median duration" in answer.notes[0]
    with pytest.raises(
        ExplainError, match="no task of the same stage as task task_1329348432655_0001_m_000009 "
    ):
        explain(
            log, "WHY TASK task_1329348432655_0001_m_000009 SLOWER"
        )  # the fastest map: no map to compare


def without_job_events(text: str) -> str:
    """A job history whose job events (hence its job id) are gone: only its name can say
    which job it is."""
    return "".join(
        line
        for line in text.splitlines(keepends=True)
        if not line.lstrip().startswith('{"type":"JOB_')
    )


def test_the_complete_copy_of_a_job_is_kept_whatever_the_order(tmp_path) -> None:
    """A staging copy cut off before JOB_FINISHED sorts before the done file: the done file,
    which has the job's end, is read, and the staging copy reported as its duplicate (its cut
    line is not listed: the file was not used)."""
    data = SLEEP.read_bytes()
    staging, done = tmp_path / "0-staging", tmp_path / "done"
    staging.mkdir(), done.mkdir()
    (staging / "job_1329348432655_0001_1.jhist").write_bytes(
        data[: data.rindex(b'"totalCounters"')]
    )
    shutil.copy(SLEEP, done / SLEEP.name)
    log = load_log(tmp_path)
    (job,) = log.jobs.to_dict(orient="records")
    assert (
        job["status"] == "SUCCEEDED"
        and job["hdfs_bytes_read"] == 480
        and job["source"] == str(done / SLEEP.name)
    )
    assert [(Path(s.path).parent.name, s.line, s.reason) for s in log.skipped] == [
        ("0-staging", 0, f"duplicate of job job_1329348432655_0001, read from {done / SLEEP.name}")
    ]
    assert len(log.tasks) == 12
    # a copy with fewer tasks loses even when it ends: the one with more tasks is kept
    (staging / "job_1329348432655_0001_1.jhist").unlink()
    lines = SLEEP.read_text().splitlines(keepends=True)
    fewer = [line for line in lines if "m_000009" not in line]
    (staging / "job_1329348432655_0001_1.jhist").write_text("".join(fewer))
    log = load_log(tmp_path)
    assert len(log.tasks) == 12 and Path(log.skipped[0].path).parent.name == "0-staging"


def test_a_staging_copy_is_known_by_its_name(tmp_path) -> None:
    """Staging files are named ``job_<id>_<AM attempt>.jhist``: without job events, the copy
    is still the job, not a job 'job_1329348432655_0001_1'."""
    staging = tmp_path / "job_1329348432655_0001_1.jhist"
    staging.write_text(without_job_events(SLEEP.read_text()))
    assert load_log(staging).jobs["id"].tolist() == ["job_1329348432655_0001"]
    shutil.copy(SLEEP, tmp_path / SLEEP.name)
    log = load_log(tmp_path)
    assert log.jobs["id"].tolist() == ["job_1329348432655_0001"] and log.jobs[
        "status"
    ].tolist() == ["SUCCEEDED"]
    assert [(Path(s.path).name, s.reason.split(",")[0]) for s in log.skipped] == [
        (staging.name, "duplicate of job job_1329348432655_0001")
    ]


def test_name_summary_reads_queues_with_dots() -> None:
    """Fair Scheduler queues are ``root.<...>``: a dotted queue, with and without a launch time."""
    name = "job_1_0001-10-alice-wordcount-20-3-1-SUCCEEDED-root.users.alice"
    assert name_summary(name + "-5.jhist") == {
        "id": "job_1_0001",
        "submit_time": 10,
        "user": "alice",
        "name": "wordcount",
        "finish_time": 20,
        "status": "SUCCEEDED",
        "queue": "root.users.alice",
        "finished_maps": 3,
        "finished_reduces": 1,
        "launch_time": 5,
    }
    assert name_summary(name + ".jhist")["queue"] == "root.users.alice"
    assert "launch_time" not in name_summary(name + ".jhist")
    assert name_summary(TERAGEN.name)["queue"] == "default"


def _rewrite(path: Path, change) -> str:
    """The file's text with ``change(type, body)`` applied to every event."""
    lines = path.read_text().splitlines(keepends=True)
    out = lines[:2]
    for line in lines[2:]:
        if line.strip():
            record = json.loads(line)
            (body,) = record["event"].values()
            change(record["type"], body)
            if record != json.loads(line):  # other lines stay as they were written
                line = json.dumps(record, separators=(",", ":")) + "\n"
        out.append(line)
    return "".join(out)


M5 = "task_1329348432655_0001_m_000005"


def _break_counters(kind: str, body: dict) -> None:
    if kind == "TASK_FINISHED" and body["taskid"] == M5:
        del body["counters"]["groups"][-1]["counts"][0]["value"]


def _drop_finish(kind: str, body: dict) -> None:
    if kind == "TASK_FINISHED" and body["taskid"] == M5:
        del body["finishTime"]
        body["taskid"] = "task_1329348432655_0001_m_000099"  # a task not met before


def _drop_map_finish(kind: str, body: dict) -> None:
    if kind == "MAP_ATTEMPT_FINISHED" and body["taskid"] == M5:
        del body["mapFinishTime"]


def _break_attempt_counters(kind: str, body: dict) -> None:
    if kind == "MAP_ATTEMPT_FINISHED" and body["taskid"] == M5:
        body["counters"]["groups"][0]["counts"][0]["value"] = None


def _break_job_counters(kind: str, body: dict) -> None:
    if kind == "JOB_FINISHED":
        body["totalCounters"]["groups"][0]["counts"][0]["value"] = "many"


@pytest.mark.parametrize(
    "change,kind",
    [
        (_break_counters, "TASK_FINISHED"),
        (_drop_finish, "TASK_FINISHED"),
        (_drop_map_finish, "MAP_ATTEMPT_FINISHED"),
        (_break_attempt_counters, "MAP_ATTEMPT_FINISHED"),
        (_break_job_counters, "JOB_FINISHED"),
    ],
    ids=[
        "task-counters",
        "new-task-without-finish",
        "attempt-without-map-finish",
        "attempt-counters",
        "job-counters",
    ],
)
def test_a_skipped_event_changes_nothing(tmp_path, change, kind) -> None:
    """An event that cannot be used is skipped whole: the tables are those of the file
    without that line (no status or finish time set, no task created, no counter name kept)."""
    broken = _rewrite(SLEEP, change)
    bad = [
        n
        for n, (old, new) in enumerate(zip(SLEEP.read_text().splitlines(), broken.splitlines()), 1)
        if old != new
    ]
    assert len(bad) == 1
    (tmp_path / "broken.jhist").write_text(broken)
    without = broken.splitlines(keepends=True)
    without[bad[0] - 1] = "\n"
    (tmp_path / "without").mkdir()
    (tmp_path / "without" / "broken.jhist").write_text("".join(without))
    log, expected = (
        load_log(tmp_path / "broken.jhist"),
        load_log(tmp_path / "without" / "broken.jhist"),
    )
    assert [(s.line, s.reason.split(" without")[0]) for s in log.skipped] == [(bad[0], kind)]
    pd.testing.assert_frame_equal(log.tasks, expected.tasks)
    pd.testing.assert_frame_equal(
        log.jobs.drop(columns="source"), expected.jobs.drop(columns="source")
    )
    assert log.registry.specs("task") == expected.registry.specs("task")


def _teragen_input(
    tmp_path: Path, drop_groups: tuple[str, ...], rename: dict[str, str | None]
) -> list[float]:
    """TeraGen's map input sizes once counter groups are dropped and counters renamed (None: dropped)."""

    def change(kind: str, body: dict) -> None:
        groups = [
            g
            for g in (body.get("counters") or {"groups": []})["groups"]
            if g["name"] not in drop_groups
        ]
        for group in groups:
            renamed = [dict(c, name=rename.get(c["name"], c["name"])) for c in group["counts"]]
            group["counts"] = [c for c in renamed if c["name"] is not None]
        if body.get("counters"):
            body["counters"]["groups"] = groups

    path = tmp_path / f"teragen{len(list(tmp_path.iterdir()))}.jhist"
    path.write_text(_rewrite(TERAGEN, change))
    return load_log(path).tasks["input_size"].tolist()


def test_map_input_size_prefers_the_input_formats_bytes(tmp_path) -> None:
    """TeraGen's maps generate their data: the input format read 0 bytes, HDFS 79 (the split
    metadata), local files 0. Without FileInputFormatCounter: HDFS, then S3A, then FILE."""
    maps = {
        c["name"]: c["value"]
        for k, b in raw_events(TERAGEN)
        if k == "MAP_ATTEMPT_FINISHED"
        for g in b["counters"]["groups"]
        for c in g["counts"]
    }
    assert (maps["BYTES_READ"], maps["HDFS_BYTES_READ"], maps["FILE_BYTES_READ"]) == (0, 79, 0)
    assert load_log(TERAGEN).tasks["input_size"].tolist() == [0, 0]
    no_format = ("org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter",)
    assert _teragen_input(tmp_path, no_format, {}) == [79, 79]
    assert _teragen_input(tmp_path, no_format, {"HDFS_BYTES_READ": "S3A_BYTES_READ"}) == [79, 79]
    assert _teragen_input(tmp_path, no_format, {"HDFS_BYTES_READ": None}) == [
        0,
        0,
    ]  # FILE_BYTES_READ
    spec = load_log(TERAGEN).registry.resolve("task", "input_size")
    assert spec.source.startswith("BYTES_READ, HDFS_BYTES_READ, S3A_BYTES_READ, FILE_BYTES_READ")


def test_compressed_copies_load_identically(tmp_path) -> None:
    plain = load_log(SLEEP)
    for name, data in (
        (SLEEP.name + ".zst", zstandard.ZstdCompressor().compress(SLEEP.read_bytes())),
        ("sleep.lz4", lz4_stream(SLEEP.read_bytes())),
        (SLEEP.name + ".gz", gzip.compress(SLEEP.read_bytes())),
    ):
        (tmp_path / name).write_bytes(data)
        log = load_log(tmp_path / name)
        assert log.skipped == []
        pd.testing.assert_frame_equal(log.tasks, plain.tasks)
        pd.testing.assert_frame_equal(
            log.jobs.drop(columns="source"), plain.jobs.drop(columns="source")
        )
    for name, data in (
        ("broken.jhist", lz4_stream(SLEEP.read_bytes())[:-300]),
        ("broken.gz", gzip.compress(SLEEP.read_bytes())[:-300]),
    ):
        (tmp_path / name).write_bytes(data)
        log = load_log(tmp_path / name)
        assert [s.reason.split(" after")[0] for s in log.skipped] == [
            "compressed stream broken off"
        ]
        assert len(log.tasks) == 12 and log.jobs["status"].tolist() == ["RUNNING"]


def test_cli_logs_features_and_explain_on_a_history(capsys) -> None:
    def run(*args: str) -> str:
        with pytest.raises(SystemExit) as exit_info:
            main(list(args))
        assert exit_info.value.code == 0
        return capsys.readouterr().out

    summary = json.loads(run("logs", str(SLEEP), "--format", "json"))
    assert (summary["jobs"], summary["tasks"], summary["skipped"]["count"]) == (1, 12, 0)
    rows = json.loads(run("logs", str(FAILED), "--entity", "task", "--format", "json"))
    assert [r["status"] for r in rows] == ["FAILED", "KILLED", "KILLED"]
    features = {
        f["name"]: f
        for f in json.loads(run("features", "--log", str(SLEEP), "--format", "json"))["features"]
    }
    assert features["task_type"]["role"] == "feature" and features["shuffle_time"]["unit"] == "ms"
    slow, fast = "task_1329348432655_0001_m_000000", "task_1329348432655_0001_m_000009"
    answer = json.loads(
        run(
            "explain",
            "--log",
            str(SLEEP),
            "--format",
            "json",
            f"WHY TASK {slow} SLOWER THAN TASK {fast}",
        )
    )
    assert answer["pair"] == [slow, fast]
    query = (
        f"FOR T1, T2 WHERE T1.TaskID = {slow} AND T2.TaskID = {fast} DESPITE task_type isSame = T "
        "OBSERVED duration compare = GT EXPECTED duration compare = SIM"
    )
    answer = json.loads(run("explain", "--log", str(JHIST), "--format", "json", query))
    assert answer["pair"] == [slow, fast] and "DESPITE task_type isSame = T" in answer["query"]


def test_name_summary_unescapes_the_job_name() -> None:
    assert name_summary(SLEEP.name) == {
        "id": "job_1329348432655_0001",
        "submit_time": 1329348443227,
        "user": "user",
        "name": "Sleep job",
        "finish_time": 1329348468601,
        "status": "SUCCEEDED",
        "queue": "default",
        "finished_maps": 10,
        "finished_reduces": 1,
    }
    assert name_summary("job_1_0001-1-u-a%2Db+c-2-3-0-KILLED-q.jhist")["name"] == "a-b c"
    assert name_summary(FAILED.name) == {}


def test_a_jhist_that_is_not_a_history_is_not_a_log(tmp_path) -> None:
    path = tmp_path / "job_1.jhist"
    path.write_text("hello\n")
    with pytest.raises(NotALog, match="not a Hadoop job history file"):
        load_log(path)
    binary = tmp_path / "job_2.jhist"  # Hadoop 3's default format
    binary.write_bytes(
        b"Avro-Binary\n" + SLEEP.read_bytes().splitlines(keepends=True)[1] + b"\x02\x00"
    )
    with pytest.raises(NotALog, match=r"binary Avro job history.*jhist.format=json"):
        load_log(binary)
    binary.unlink()
    shutil.copy(SPARK_LOG, tmp_path / SPARK_LOG.name)
    log = load_log(tmp_path)  # in a folder it is passed over and reported
    assert [(Path(s.path).name, s.reason.split(" (")[0]) for s in log.skipped] == [
        ("job_1.jhist", "not a Hadoop job history file")
    ]


@pytest.mark.parametrize("path", [SLEEP, TERAGEN], ids=["sleep", "teragen"])
def test_host_load_is_derived_from_the_attempts_times(path: Path) -> None:
    log = load_log(path)
    tasks = log.tasks
    start, end = tasks["launch_time"].to_numpy(float), tasks["finish_time"].to_numpy(float)
    host = tasks["host"].to_numpy()
    for k in range(len(tasks)):
        others = (host == host[k]) & (np.arange(len(tasks)) != k)
        shared = np.clip(
            np.minimum(end[others], end[k]) - np.maximum(start[others], start[k]), 0, None
        )
        assert tasks["concurrent_tasks_host"].iloc[k] == (shared > 0).sum()
        assert tasks["mean_concurrent_tasks_host"].iloc[k] == pytest.approx(
            shared.sum() / (end[k] - start[k])
        )
    assert {"concurrent_tasks_host", "mean_concurrent_tasks_host"} <= {
        s.name for s in log.features("task")
    }


def test_a_table_a_history_does_not_have_is_said_not_printed_empty(capsys) -> None:
    """A job history has jobs and tasks, no application or stage table: asked for those,
    ``perfx logs`` and ``perfx features`` say which tables it has (they printed an empty
    line, and an empty list of features, exit 0)."""
    for args in (
        ["logs", str(SLEEP), "--entity", "app"],
        ["features", "--log", str(SLEEP), "--entity", "stage"],
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(args)
        printed = capsys.readouterr()
        assert (exit_info.value.code, printed.out) == (1, "")
        entity = args[-1]
        assert printed.err == (
            f"perfx: the logs hold no {entity} table; they hold job and task tables\n"
        )
