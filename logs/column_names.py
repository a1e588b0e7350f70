"""What a column's name says about it, for logs whose columns are not known in advance
(tabular logs, Hadoop counters, host metrics): its snake_case spelling, its unit, its role
(identity and outcome columns never become explanations), whether it measures input volume
and whether it makes executions comparable (context a generated DESPITE may use)."""

from __future__ import annotations

import re

from .registry import Role, Unit

TIMESTAMPS = {"launch_time", "start_time", "submit_time", "timestamp"}
"""Columns that name the moment an execution began: identity (they tell executions apart
but explain nothing)."""
OUTCOMES = {"duration", "finish_time", "end_time", "status"}
"""Columns that restate the outcome: never proposed as explanations."""


def is_input_volume(name: str) -> bool:
    """Does the column's name say how much input an execution read (``input_size``,
    ``hdfs_bytes_read``, ``map_input_records``, ``reduce_shuffle_bytes``)?"""
    return (
        name.startswith("input_")
        or name.endswith(("_bytes_read", "_input_records", "_input_groups"))
        or name in ("reduce_shuffle_bytes", "split_raw_bytes")
    )


def infer_context(name: str, numeric: bool) -> bool:
    """Does the column make executions comparable — what a generated DESPITE may say: the
    job and its settings (``num_*``, ``*_factor``, ``block_size``), the input volume, and
    the nominal placement and naming columns (host, tracker, locality, script, task type)?
    Host metrics and the execution's own measurements (bytes written, CPU, memory) are not."""
    if name.startswith("host_") and name != "host":
        return False
    if name == "job_id" or is_input_volume(name):
        return True
    if not numeric:
        return infer_role(name) == "feature"
    return name.startswith("num_") or name.endswith(("_factor", "block_size"))


def infer_role(name: str) -> Role:
    if name == "id" or name.endswith("_id") or name in TIMESTAMPS or name.endswith("_timestamp"):
        return "identity"
    if name in OUTCOMES or name.endswith("_finished") or name.endswith("_finish_time"):
        return "outcome"
    return "feature"


def infer_unit(name: str) -> Unit:
    """The unit a column's name makes obvious: sizes (``*bytes*``, ``*_size``, Ganglia
    ``mem_*``/``disk_*``/``swap_*``, which the reader expects in bytes), times (``duration``,
    ``*_time``, ``*_ms``, ``*_milliseconds``), counts (``*records*``, ``num_*``, ``*_count``,
    ``pkts_*``, ``proc_*``), percentages and ratios (``cpu_*`` but ``cpu_milliseconds``,
    ``*_factor``, ``*_fraction``); ``none`` otherwise."""
    if "bytes" in name or name.endswith("_size") or re.match(r"(mem|disk|swap)_", name):
        return "bytes"
    if name == "duration" or name.endswith(("_time", "_ms", "_milliseconds")):
        return "ms"
    if (
        "records" in name
        or name.startswith(("num_", "pkts_", "proc_"))
        or name.endswith(("_count", "_tasks", "_groups"))
    ):
        return "count"
    if name.startswith("cpu_") or name.endswith(("_factor", "_fraction", "_ratio", "_used")):
        return "ratio"
    return "none"


def snake_case(name: str) -> str:
    """``HDFS_BYTES_READ`` -> ``hdfs_bytes_read``, ``jobID`` -> ``job_id``, ``Job Id`` -> ``job_id``."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", str(name).strip())
    return re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower()
