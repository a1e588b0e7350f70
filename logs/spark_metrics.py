"""Spark's task metrics, spelled once: each metric's column in perfx's task table and where a
TaskEnd's ``Task Metrics`` object keeps it.

The event readers (eventlog/events.py's orjson path and eventlog/fastend.py's msgspec
structs) read the fields in this order, and the feature registry takes each metric's
provenance (``source``) from here, so a metric is added or renamed in one place.
"""

from __future__ import annotations

from typing import NamedTuple

TOP = ""
"""The group of the fields directly in ``Task Metrics``."""
SHUFFLE_READ = "Shuffle Read Metrics"
SHUFFLE_WRITE = "Shuffle Write Metrics"
INPUT = "Input Metrics"
OUTPUT = "Output Metrics"
GROUPS = (SHUFFLE_READ, SHUFFLE_WRITE, INPUT, OUTPUT)
"""The nested metric objects, in the order their fields follow the top-level ones."""


class TaskMetric(NamedTuple):
    column: str
    group: str
    field: str
    recent: bool = False
    """Absent from the logs of some Spark 3.x releases (before 3.4): read with Spark's default
    (0) even on the fast path. Recent fields come last in their group."""

    @property
    def source(self) -> str:
        """``Group/Field`` as the feature registry shows where a feature comes from."""
        return f"{self.group}/{self.field}" if self.group else self.field


TASK_METRICS: tuple[TaskMetric, ...] = (
    TaskMetric("deserialize_time", TOP, "Executor Deserialize Time"),
    TaskMetric("deserialize_cpu_time", TOP, "Executor Deserialize CPU Time"),
    TaskMetric("executor_run_time", TOP, "Executor Run Time"),
    TaskMetric("executor_cpu_time", TOP, "Executor CPU Time"),
    TaskMetric("peak_execution_memory", TOP, "Peak Execution Memory"),
    TaskMetric("result_size", TOP, "Result Size"),
    TaskMetric("gc_time", TOP, "JVM GC Time"),
    TaskMetric("result_serialization_time", TOP, "Result Serialization Time"),
    TaskMetric("memory_bytes_spilled", TOP, "Memory Bytes Spilled"),
    TaskMetric("disk_bytes_spilled", TOP, "Disk Bytes Spilled"),
    TaskMetric("shuffle_remote_blocks_fetched", SHUFFLE_READ, "Remote Blocks Fetched"),
    TaskMetric("shuffle_local_blocks_fetched", SHUFFLE_READ, "Local Blocks Fetched"),
    TaskMetric("shuffle_fetch_wait_time", SHUFFLE_READ, "Fetch Wait Time"),
    TaskMetric("shuffle_remote_bytes_read", SHUFFLE_READ, "Remote Bytes Read"),
    TaskMetric("shuffle_remote_bytes_read_to_disk", SHUFFLE_READ, "Remote Bytes Read To Disk"),
    TaskMetric("shuffle_local_bytes_read", SHUFFLE_READ, "Local Bytes Read"),
    TaskMetric("shuffle_read_records", SHUFFLE_READ, "Total Records Read"),
    TaskMetric("shuffle_remote_reqs_duration", SHUFFLE_READ, "Remote Requests Duration", True),
    TaskMetric("shuffle_write_bytes", SHUFFLE_WRITE, "Shuffle Bytes Written"),
    TaskMetric("shuffle_write_time", SHUFFLE_WRITE, "Shuffle Write Time"),
    TaskMetric("shuffle_write_records", SHUFFLE_WRITE, "Shuffle Records Written"),
    TaskMetric("input_bytes", INPUT, "Bytes Read"),
    TaskMetric("input_records", INPUT, "Records Read"),
    TaskMetric("output_bytes", OUTPUT, "Bytes Written"),
    TaskMetric("output_records", OUTPUT, "Records Written"),
)
"""Every metric, top-level fields first, then each group's in ``GROUPS`` order: the order of
the values the readers return."""

COLUMNS = tuple(metric.column for metric in TASK_METRICS)
SOURCE = {metric.column: metric.source for metric in TASK_METRICS}


def in_group(group: str) -> tuple[TaskMetric, ...]:
    """The metrics of one group (``TOP`` or one of ``GROUPS``), in table order."""
    return tuple(metric for metric in TASK_METRICS if metric.group == group)
