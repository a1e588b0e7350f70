"""Which injected cause an answer names: the lead BECAUSE atom's feature, read as one of
the suite's kinds, so that a test and the benchmark's confusion table judge alike.

Records and bytes read are volume: input volume is data skew, shuffle volume is shuffle-read
skew (the records the slow task read tell which). A measured time names its own part: GC
time is GC pressure, shuffle fetch wait is shuffle-read skew, task deserialization is a cold
start, compute or CPU time is computation skew (the same records cost more)."""

from __future__ import annotations

VOLUME = {"records_in", "bytes_in"}
BY_FEATURE = {
    "input_records": "data_skew",
    "input_bytes": "data_skew",
    "shuffle_read_records": "shuffle_read_skew",
    "shuffle_read_bytes": "shuffle_read_skew",
    "shuffle_remote_bytes_read": "shuffle_read_skew",
    "shuffle_local_bytes_read": "shuffle_read_skew",
    "shuffle_remote_blocks_fetched": "shuffle_read_skew",
    "shuffle_local_blocks_fetched": "shuffle_read_skew",
    "shuffle_fetch_wait_time": "shuffle_read_skew",
    "blocked_network_time": "shuffle_read_skew",
    "gc_time": "gc_pressure",
    "peak_execution_memory": "gc_pressure",
    "memory_bytes_spilled": "spill",
    "disk_bytes_spilled": "spill",
    "first_task_on_executor": "cold_start",
    "deserialize_time": "cold_start",
    "deserialize_cpu_time": "cold_start",
    "compute_time": "computation_skew",
    "executor_cpu_time": "computation_skew",
}


def named_cause(answer, log) -> str:
    """The suite kind the answer leads with, or ``other: <feature>`` / ``none``."""
    if not answer.because:
        return "none"
    feature = log.registry.resolve("task", answer.because[0].atom.feature).name
    if feature in VOLUME:
        tasks = log.tasks.set_index("id")
        slow = tasks.loc[answer.pair[0]]
        return (
            "shuffle_read_skew"
            if slow.get("shuffle_read_records", 0) > slow.get("input_records", 0)
            else "data_skew"
        )
    return BY_FEATURE.get(feature, f"other: {feature}")
