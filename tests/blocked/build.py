"""Constructed task tables for the blocked-time tests: a stage whose tasks run in waves on a
few executors, each task made of known blocked-time components plus compute."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from perfx.explain.blocked.components import CAUSES
from perfx.logs.model import Log

BASE_MS = 5.0
"""Time every task spends on each blocked-time component."""


def task(duration: float, **overrides) -> dict:
    """One task: ``duration`` ms in all, BASE_MS on each component, 100 bytes in, 50 out."""
    row = {columns[0]: BASE_MS for columns in CAUSES.values()}
    row.update(
        duration=float(duration),
        bytes_in=100.0,
        shuffle_write_bytes=50.0,
        output_bytes=0.0,
        status="SUCCESS",
    )
    row.update(overrides)
    return row


def stage(
    rows: list[dict],
    executors: int = 2,
    gap: float = 1000.0,
    stage_id: int = 0,
    app: str = "app",
    job: str = "0",
    start: float = 0.0,
) -> pd.DataFrame:
    """Tasks of one stage in waves of ``executors`` tasks (one slot per executor), each wave
    launched ``gap`` ms after the previous one, unless a row sets its own launch time."""
    frame = pd.DataFrame(rows)
    n = len(frame)
    defaults = pd.DataFrame(
        {
            "launch_time": [start + (i // executors) * gap for i in range(n)],
            "executor_id": [f"e{i % executors}" for i in range(n)],
        }
    )
    for column in defaults:
        frame[column] = (
            frame[column].fillna(defaults[column]) if column in frame else defaults[column]
        )
    frame["finish_time"] = frame["launch_time"] + frame["duration"]
    frame["host"] = frame["executor_id"]
    frame["app_id"] = app
    frame["job_id"] = job
    frame["stage_id"] = stage_id
    frame["stage_key"] = f"{app}/{stage_id}/0"
    frame["task_id"] = range(n)
    frame["id"] = [f"{app}/{stage_id}/{i}" for i in range(n)]
    return frame


def log_of(*stages: pd.DataFrame, jobs: pd.DataFrame | None = None) -> Log:
    tasks = pd.concat(stages, ignore_index=True)
    tasks["id"] = tasks["stage_key"] + "#" + tasks["task_id"].astype(str)
    return Log(tasks=tasks, jobs=jobs if jobs is not None else pd.DataFrame())


FIVE_YEARS_MS = 5 * 365 * 24 * 3600 * 1000


def logs_with_a_task_from_years_before(folder: Path) -> tuple[Path, Path]:
    """A real small log with its first TaskEnd's times moved five years back (as a public
    log holds a task pasted in from another), and the same log without that task's lines:
    (damaged, without), written in ``folder``."""
    from tests.data_files import fixture_log

    lines = fixture_log("spark-events/local-1430917381534").read_bytes().splitlines(keepends=True)
    end = next(i for i, line in enumerate(lines) if b'"SparkListenerTaskEnd"' in line)
    event = json.loads(lines[end])
    info = event["Task Info"]
    info["Launch Time"] -= FIVE_YEARS_MS
    info["Finish Time"] -= FIVE_YEARS_MS
    damaged, without = folder / "damaged", folder / "without"
    damaged.write_bytes(
        b"".join([*lines[:end], json.dumps(event).encode() + b"\n", *lines[end + 1 :]])
    )
    task = f'"Task ID":{info["Task ID"]},'.encode()
    without.write_bytes(b"".join(line for line in lines if task not in line))
    return damaged, without
