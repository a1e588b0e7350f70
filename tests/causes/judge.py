"""Which injected cause an answer names: the lead BECAUSE atom's feature, read as one of
the suite's kinds, so that a test and the benchmark's confusion table judge alike.

Records and bytes read are volume: input volume is data skew, shuffle volume is shuffle-read
skew (the records the slow task read tell which). A measured time names its own part: GC
time is GC pressure, shuffle fetch wait is shuffle-read skew, task deserialization is a cold
start, compute or CPU time is computation skew (the same records cost more).

Compute or CPU time says *where* the time went, not why (the engine credits it half for that:
``explain.perfxplain.WHERE_CREDIT``). When the history does not tell the why apart (on a
test session's log, the first task of a stage is slower than its peers only about as often
as not), such a lead stands beside the gap's diagnosis, which names the why from the pair's
own figures: a cold start, spill, GC pressure, a fetch wait or data skew. The answer's cause
is then that diagnosis; a diagnosis of computation skew leaves the lead as it is.

The diagnosis is judged too (``diagnosed``: its name, and its sentence where the name is
shared: data skew on shuffle bytes, spill with more volume, time off the JVM's CPU), and a
control (nothing injected) is right only where the diagnosis says no cause stands out."""

from __future__ import annotations

VOLUME = {"records_in", "bytes_in"}
WHERE = {"compute_time", "executor_cpu_time"}
BY_DIAGNOSIS = {
    "cold start": "cold_start",
    "task deserialization": "cold_start",
    "spill": "spill",
    "GC pressure": "gc_pressure",
    "shuffle fetch wait": "shuffle_read_skew",
    "shuffle fan-out": "shuffle_write_fanout",
    "output skew": "output_skew",
    "result size": "result_size",
    "result serialization": "result_size",
    "getting result": "result_size",
    "off-CPU wait": "python_wait",
    "no cause stands out": "control",
}
OFF_JVM = "off the JVM's CPU"
"""What a diagnosis says of extra time its JVM's CPU time did not follow: in a PySpark stage
the Python worker computing *or waiting*, which the log cannot tell apart."""
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
    "shuffle_write_records": "shuffle_write_fanout",
    "shuffle_write_bytes": "shuffle_write_fanout",
    "shuffle_write_time": "shuffle_write_fanout",
    "output_records": "output_skew",
    "output_bytes": "output_skew",
    "result_size": "result_size",
    "result_serialization_time": "result_size",
    "getting_result_time": "result_size",
}


def named_cause(answer, log) -> str:
    """The suite kind the answer leads with, or ``other: <feature>`` / ``none``."""
    if not answer.because:
        return "none"
    feature = log.registry.resolve("task", answer.because[0].atom.feature).name
    diagnosis = answer.gap.diagnosis.name if answer.gap and answer.gap.diagnosis else None
    if feature in WHERE and diagnosis in BY_DIAGNOSIS:
        return BY_DIAGNOSIS[diagnosis]
    if feature in VOLUME or (feature in WHERE and diagnosis == "data skew"):
        return _volume_kind(answer, log)
    return BY_FEATURE.get(feature, f"other: {feature}")


def _volume_kind(answer, log) -> str:
    """Data skew or shuffle-read skew: which of its inputs the slow task read more of."""
    slow = log.tasks.set_index("id").loc[answer.pair[0]]
    return (
        "shuffle_read_skew"
        if slow.get("shuffle_read_records", 0) > slow.get("input_records", 0)
        else "data_skew"
    )


def diagnosed(answer, log) -> set[str]:
    """The kinds the answer's diagnosis (its name and its sentence) names: computation skew
    said to be off the JVM's CPU names both computation skew and a Python worker's wait;
    shuffle-read skew said in bytes names PySpark's batched shuffle too (its records are
    batches); spill with more volume is said so."""
    diagnosis = answer.gap.diagnosis if answer.gap is not None else None
    if diagnosis is None:
        return set()
    if diagnosis.name == "data skew":
        kind = _volume_kind(answer, log)
        bytes_read = kind == "shuffle_read_skew" and "shuffle bytes read" in diagnosis.detail
        return {kind} | ({"batched_shuffle_bytes"} if bytes_read else set())
    if diagnosis.name == "spill":
        return {"spill_volume" if "with more volume" in diagnosis.detail else "spill"}
    if diagnosis.name == "computation skew":
        return {"computation_skew"} | ({"python_wait"} if OFF_JVM in diagnosis.detail else set())
    return {BY_DIAGNOSIS.get(diagnosis.name, f"other: {diagnosis.name}")}


def lead_right(answer, log, kind: str) -> bool:
    """Does the answer's BECAUSE lead name ``kind``? A lead saying where the time went
    (compute or CPU time) names a Python worker's wait when the diagnosis places that time
    off the JVM's CPU; a control has no lead to get right, only a diagnosis."""
    named = named_cause(answer, log)
    if kind == "python_wait" and named_cause_is_where(answer, log):
        return "python_wait" in diagnosed(answer, log)
    if kind == "control":
        return "control" in diagnosed(answer, log)
    return named == SAME_LEAD.get(kind, kind)


SAME_LEAD = {"spill_volume": "spill", "batched_shuffle_bytes": "shuffle_read_skew"}
"""Kinds whose lead feature is another kind's (spill, shuffle read): their diagnosis tells
them apart."""


def named_cause_is_where(answer, log) -> bool:
    return bool(answer.because) and (
        log.registry.resolve("task", answer.because[0].atom.feature).name in WHERE
    )
