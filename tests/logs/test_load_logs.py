"""Every shared Spark event log loads, and its counts agree with the READMEs' tables (which
their authors got by decoding the files independently). Broken logs report what was skipped."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from perfx.logs.formats import not_a_log
from perfx.logs.loader import load_log
from tests.data_files import fixture_log

EVENTS = fixture_log("spark-events")
RAPIDS = fixture_log("spark-rapids-tools-events")


def _first_int(cell: str) -> int:
    return int(re.search(r"\d+", cell.replace(",", "")).group())


def _table_rows(readme: Path) -> list[list[str]]:
    rows = []
    for line in readme.read_text().splitlines():
        if line.startswith("| `"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def spark_event_cases() -> list[tuple[Path, dict]]:
    """spark-events/README.md: file | bytes | ver | app | jobs | stage att. | tasks | AppEnd."""
    cases = []
    for cells in _table_rows(EVENTS / "README.md"):
        if len(cells) != 9:
            continue
        version = cells[2].split(" (")[0]
        cases.append(
            (
                EVENTS / cells[0].strip("`"),
                {
                    "version": "" if version.startswith("none") else version,
                    "job_starts": _first_int(cells[4]),
                    "stage_attempts": _first_int(cells[5]),
                    "task_ends": _first_int(cells[6]),
                    "not_success": int(m.group(1)) if (m := re.search(r"\((\d+)", cells[6])) else 0,
                    "completed": cells[7].strip("*") == "yes",
                },
            )
        )
    return cases


def rapids_cases() -> list[tuple[Path, dict]]:
    """spark-rapids-tools-events/README.md: path | codec | Spark | app | jobs (start / end) |
    stage att. | TaskEnd | AppEnd; ``{1..4}`` in a path stands for four files."""
    cases = []
    for cells in _table_rows(RAPIDS / "README.md"):
        starts, ends = (int(x) for x in re.findall(r"\d+", cells[4])[:2])
        expected = {
            "version": cells[2],
            "job_starts": starts,
            "job_ends": ends,
            "stage_attempts": _first_int(cells[5]),
            "task_ends": _first_int(cells[6]),
            "completed": cells[7].strip("*") == "yes",
        }
        path = cells[0].strip("`").rstrip("/")
        if brace := re.search(r"\{(\d+)\.\.(\d+)\}", path):
            for n in range(int(brace.group(1)), int(brace.group(2)) + 1):
                cases.append(
                    (RAPIDS / (path[: brace.start()] + str(n) + path[brace.end() :]), expected)
                )
        else:
            cases.append((RAPIDS / path, expected))
    return cases


@cache
def load(path: Path):
    return load_log(path)


def _check_counts(log, expected: dict) -> None:
    assert len(log.apps) == 1
    app = log.apps.iloc[0]
    assert app["spark_version"] == expected["version"]
    assert (app["completed"] == "T") == expected["completed"]
    submitted = log.stages[~log.stages["status"].isin(("PENDING", "SKIPPED"))]
    assert len(submitted) == expected["stage_attempts"]
    ended = log.tasks[log.tasks["status"] != "UNKNOWN"]
    assert len(ended) + int(log.tasks["resubmitted"].sum()) == expected["task_ends"]
    assert log.tasks["id"].is_unique and log.stages["id"].is_unique and log.jobs["id"].is_unique


@pytest.mark.parametrize(
    "path, expected", spark_event_cases(), ids=lambda v: v.name if isinstance(v, Path) else ""
)
def test_spark_fixture_counts(path: Path, expected: dict) -> None:
    log = load(path)
    _check_counts(log, expected)
    assert len(log.jobs) == expected["job_starts"]
    ended = log.tasks[log.tasks["status"] != "UNKNOWN"]
    assert int((ended["end_reason"] != "Success").sum()) == expected["not_success"]
    assert log.skipped == []


@pytest.mark.parametrize(
    "path, expected", rapids_cases(), ids=lambda v: v.name if isinstance(v, Path) else ""
)
def test_rapids_log_counts(path: Path, expected: dict) -> None:
    log = load(path)
    _check_counts(log, expected)
    assert len(log.jobs) == max(expected["job_starts"], expected["job_ends"])
    assert int((log.jobs["status"] == "RUNNING").sum()) == max(
        0, expected["job_starts"] - expected["job_ends"]
    )


def test_every_readme_log_is_covered() -> None:
    assert len(spark_event_cases()) == 23
    assert len(rapids_cases()) == 9


def test_malformed_line_is_skipped_and_reported() -> None:
    log = load(RAPIDS / "malformed_json_eventlog.zstd")
    assert [(Path(s.path).name, s.line) for s in log.skipped] == [
        ("malformed_json_eventlog.zstd", 4)
    ]
    assert log.skipped[0].reason.startswith("not JSON")
    assert len(log.tasks) == 217


def test_rolling_log_reads_parts_in_order() -> None:
    log = load(RAPIDS / "eventlog_v2_local-1623876083964")
    assert len(log.tasks) == 2801
    assert log.apps["app_id"].tolist() == ["local-1623876083964"]
    assert (log.tasks["status"] == "SUCCESS").all()


def test_resubmitted_and_failed_task_ends() -> None:
    """8630 TaskEnds: 8577 Success, 50 Resubmitted (a second end of a finished task), 2
    FetchFailed, 1 ExecutorLostFailure; 53 ends carry no metrics."""
    log = load(RAPIDS / "tasks_executors_fail_compressed_eventlog.zstd")
    tasks = log.tasks
    assert len(tasks) == 8630 - 50
    assert tasks["resubmitted"].sum() == 50
    assert tasks["end_reason"].value_counts().to_dict() == {
        "Success": 8577,
        "FetchFailed": 2,
        "ExecutorLostFailure": 1,
    }
    assert tasks["executor_run_time"].isna().sum() == 53 - 50
    assert (tasks.loc[tasks["end_reason"] != "Success", "failure"] != "").all()
    assert log.jobs["status"].value_counts().to_dict() == {"SUCCEEDED": 79, "FAILED": 1}


def test_multiple_attempts_get_attempt_in_ids() -> None:
    log = load_log(RAPIDS / "multiple_attempts")
    assert sorted(log.apps["id"]) == [f"application_1724877841851_0016/{n}" for n in range(1, 5)]
    assert len(log.tasks) == 4 * 107 and log.tasks["id"].is_unique
    assert log.tasks["id"].iloc[0].startswith("application_1724877841851_0016/1/")
    assert log.stages["id"].str.count("/").eq(3).all()


def test_whole_directories_load_with_duplicates_reported() -> None:
    """The broken set holds the same two attempts twice (complete and incomplete copies): the
    second copy of each is reported, not loaded twice."""
    log = load_log([EVENTS, RAPIDS])
    assert log.tasks["id"].is_unique and log.apps["id"].is_unique
    duplicates = [s for s in log.skipped if s.reason.startswith("duplicate of")]
    assert len(duplicates) == 2
    not_logs = {Path(s.path).name for s in log.skipped if s.reason == not_a_log()}
    assert {"README.md", "LICENSE", "stage_task_list_expectation.json"} <= not_logs
    assert len(log.apps) == 21 + 9


def test_old_and_new_field_names_map_to_the_same_columns() -> None:
    """Spark 1.2 (no CPU time, no Local Bytes Read), 2.2 and 3.x logs fill the same columns;
    nanosecond fields become ms."""
    old = load(EVENTS / "local-1430917381534")
    new = load(EVENTS / "app-20200706201101-0003")
    assert list(old.tasks.columns) == list(new.tasks.columns)
    assert (old.tasks["executor_cpu_time"] == 0).all()
    cpu = new.tasks["executor_cpu_time"]
    assert cpu.gt(0).all() and cpu.lt(new.tasks["duration"] + 1).all()
    writes = old.tasks.loc[old.tasks["shuffle_write_bytes"] > 0, "shuffle_write_time"]
    assert writes.lt(old.tasks.loc[writes.index, "duration"]).all()


def test_speculative_copies_are_marked() -> None:
    log = load(EVENTS / "application_1628109047826_1317105")
    assert (log.tasks["speculative"] == "T").sum() == 1


def test_of_two_copies_of_an_attempt_the_complete_one_is_read(tmp_path) -> None:
    """An in-progress copy cut short beside the finished log, whichever the folder lists
    first: the finished one is read, the other reported as its duplicate."""
    original = EVENTS / "local-1430917381534"
    lines = original.read_bytes().splitlines(keepends=True)
    whole = load_log(original, cache=False)
    for cut_name, whole_name in (("a-cut.inprogress", "b-whole"), ("b-cut.inprogress", "a-whole")):
        folder = tmp_path / cut_name
        folder.mkdir()
        (folder / cut_name).write_bytes(b"".join(lines[: len(lines) // 2]))
        (folder / whole_name).write_bytes(b"".join(lines))
        log = load_log(folder, cache=False)
        assert len(log.tasks) == len(whole.tasks) and not log.cut_off
        duplicates = [(Path(s.path).name, s.reason) for s in log.skipped if s.line == 0]
        assert duplicates == [
            (
                cut_name,
                f"duplicate of {whole.apps['app_id'].iloc[0]} already read from {folder / whole_name}",
            )
        ]
