"""What a Pig job asks of the cluster: its tasks, each with the work it does (seconds on an
idle instance), the resources it keeps busy while it runs, and its Hadoop counters.

Nothing here knows how long a task *will* take: that depends on what else runs on its
instance (``cluster``). The numbers are those of the paper's setup — the Excite
query log of the Pig tutorial (≈46 bytes a line) on m1.large-like instances — and are the
same for every configuration; the effects of the evaluation come from how they combine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

MB = 1 << 20
RECORD_BYTES = 46.3
"""Mean length of a line of the Excite log (user id, timestamp, query)."""
DISTINCT_USERS = 4.5e6
"""Users in the 30x/60x concatenated Excite log as the group-by key space seen by a combiner."""
SORT_BUFFER = 100 * MB * 0.8
"""io.sort.mb x io.sort.spill.percent: map output beyond this spills to another file."""


@dataclass(frozen=True)
class Hardware:
    """An m1.large-like instance: two cores, two map and two reduce slots, one disk, one NIC."""

    cores: float = 2.0
    map_slots: int = 2
    reduce_slots: int = 2
    disk_mb_s: float = 60.0
    net_mb_s: float = 60.0
    task_threads: float = 1.35
    """Cores a task JVM keeps busy at full speed: its main thread plus GC, spill and I/O threads."""
    daemon_cpu: float = 0.15
    """Cores used by the TaskTracker and DataNode while the instance runs tasks."""
    idle_daemon_cpu: float = 0.03
    heartbeat_s: float = 3.0
    jvm_start_s: float = 1.5
    jitter: float = 0.05
    """Per-task lognormal variation of the work (GC, JIT, page-cache luck): sigma of its log."""
    mem_total: float = 7.5 * 1024 * MB
    task_jvm_bytes: float = 300 * MB


@dataclass(frozen=True)
class Script:
    """Per-MB costs of a Pig script's map and reduce work (seconds of one core)."""

    name: str
    map_cpu_s_per_mb: float
    keep_fraction: float | None
    """Filter: fraction of input lines kept (map-only job). None for a grouping script."""
    reduce_cpu_s_per_mb: float = 0.0


SCRIPTS = {
    "simple-filter": Script("simple-filter", map_cpu_s_per_mb=0.28, keep_fraction=0.88),
    "simple-groupby": Script(
        "simple-groupby", map_cpu_s_per_mb=0.40, keep_fraction=None, reduce_cpu_s_per_mb=0.30
    ),
}


@dataclass
class TaskWork:
    """One task before it runs. ``work_s`` is its duration alone on an idle nominal instance;
    ``cpu``, ``disk``, ``net_in``, ``net_out`` are the cores / fractions of the disk and NIC it
    keeps busy at full speed. ``phases`` are (name, seconds of work) in order."""

    kind: str
    index: int
    work_s: float
    cpu: float
    disk_mb: float
    net_in_mb: float
    net_out_mb: float
    input_bytes: float
    counters: dict[str, float]
    replicas: tuple[int, ...] = ()
    phases: list[tuple[str, float]] = field(default_factory=list)


def splits(input_bytes: float, block_bytes: float) -> list[float]:
    """HDFS blocks of the input file: one map task each."""
    full, rest = divmod(input_bytes, block_bytes)
    return [block_bytes] * int(full) + ([rest] if rest > 0 else [])


def map_tasks(
    script: Script,
    input_bytes: float,
    block_bytes: float,
    io_sort_factor: int,
    instances: int,
    hw: Hardware,
    rng: np.random.Generator,
) -> list[TaskWork]:
    replication = min(3, instances)
    tasks = []
    for index, size in enumerate(splits(input_bytes, block_bytes)):
        mb = size / MB
        records = round(size / RECORD_BYTES)
        cpu_s = mb * script.map_cpu_s_per_mb
        counters = {"HDFS_BYTES_READ": size, "MAP_INPUT_RECORDS": records, "SPLIT_RAW_BYTES": 120}
        if script.keep_fraction is not None:
            out_records = round(records * script.keep_fraction)
            out_bytes = out_records * RECORD_BYTES
            disk_mb = mb + out_bytes / MB
            net_out = out_bytes / MB * (replication - 1)
            counters |= {
                "MAP_OUTPUT_RECORDS": out_records,
                "HDFS_BYTES_WRITTEN": out_bytes,
                "FILE_BYTES_WRITTEN": 22_000,
                "SPILLED_RECORDS": 0,
            }
        else:
            raw_bytes = records * 28.0
            combined = round(DISTINCT_USERS * (1 - math.exp(-records / DISTINCT_USERS)))
            out_bytes = combined * 22.0
            spills = max(1, math.ceil(raw_bytes / SORT_BUFFER))
            passes = math.ceil(math.log(spills) / math.log(io_sort_factor)) if spills > 1 else 0
            cpu_s += raw_bytes / MB * 0.05 + passes * out_bytes / MB * 0.03
            written = out_bytes * (1 + passes)
            disk_mb = mb + (written + out_bytes * passes) / MB
            net_out = 0.0
            counters |= {
                "MAP_OUTPUT_RECORDS": records,
                "MAP_OUTPUT_BYTES": raw_bytes,
                "MAP_OUTPUT_MATERIALIZED_BYTES": out_bytes,
                "COMBINE_INPUT_RECORDS": records,
                "COMBINE_OUTPUT_RECORDS": combined,
                "SPILLED_RECORDS": combined * (1 + passes),
                "FILE_BYTES_WRITTEN": written,
                "FILE_BYTES_READ": out_bytes * passes,
            }
        work = (hw.jvm_start_s + cpu_s) * rng.lognormal(0.0, hw.jitter)
        counters |= _jvm_counters(cpu_s, hw, rng)
        replicas = tuple(int(h) for h in rng.choice(instances, size=replication, replace=False))
        tasks.append(
            TaskWork(
                "m",
                index,
                work,
                hw.task_threads,
                disk_mb,
                0.0,
                net_out,
                size,
                counters,
                replicas,
                [("map", work)],
            )
        )
    return tasks


def reduce_tasks(
    maps: list[TaskWork],
    reduces: int,
    io_sort_factor: int,
    instances: int,
    hw: Hardware,
    rng: np.random.Generator,
) -> list[TaskWork]:
    """The group-by's reducers: each fetches its share of every map's combined output
    (the remote part over the network), merges the segments (``io.sort.factor`` at a time)
    and counts the queries of its users."""
    replication = min(3, instances)
    total_out = sum(m.counters["MAP_OUTPUT_MATERIALIZED_BYTES"] for m in maps)
    total_records = sum(m.counters["COMBINE_OUTPUT_RECORDS"] for m in maps)
    all_records = sum(m.counters["MAP_INPUT_RECORDS"] for m in maps)
    groups = DISTINCT_USERS * (1 - math.exp(-all_records / DISTINCT_USERS))
    passes = max(0, math.ceil(math.log(max(len(maps), 2)) / math.log(io_sort_factor)) - 1)
    tasks = []
    for index, share in enumerate(rng.dirichlet(np.full(reduces, 200.0))):
        in_bytes, in_mb = total_out * share, total_out * share / MB
        remote_mb = in_mb * (instances - 1) / instances
        shuffle_s = remote_mb / hw.net_mb_s + 0.03 * len(maps)
        sort_s = passes * 2 * in_mb / hw.disk_mb_s + in_mb * 0.02
        reduce_s = in_mb * SCRIPTS["simple-groupby"].reduce_cpu_s_per_mb
        out_bytes = groups * share * 14.0
        noise = rng.lognormal(0.0, hw.jitter)
        phases = [
            ("shuffle", (hw.jvm_start_s + shuffle_s) * noise),
            ("sort", sort_s * noise),
            ("reduce", reduce_s * noise),
        ]
        work = sum(p for _, p in phases)
        busy = (hw.jvm_start_s + reduce_s + 0.3 * sort_s) * noise
        cpu = (hw.task_threads * busy + 0.2 * shuffle_s * noise) / work
        counters = {
            "REDUCE_SHUFFLE_BYTES": in_bytes,
            "REDUCE_INPUT_RECORDS": round(total_records * share),
            "REDUCE_INPUT_GROUPS": round(groups * share),
            "REDUCE_OUTPUT_RECORDS": round(groups * share),
            "HDFS_BYTES_WRITTEN": out_bytes,
            "FILE_BYTES_READ": in_bytes * (1 + passes),
            "FILE_BYTES_WRITTEN": in_bytes * (1 + passes),
            "SPILLED_RECORDS": round(total_records * share) * (1 + passes),
        }
        counters |= _jvm_counters(busy, hw, rng)
        tasks.append(
            TaskWork(
                "r",
                index,
                work,
                cpu,
                in_mb * (1 + 2 * passes) + out_bytes / MB,
                remote_mb,
                out_bytes / MB * (replication - 1),
                in_bytes,
                counters,
                (),
                phases,
            )
        )
    return tasks


def _jvm_counters(cpu_s: float, hw: Hardware, rng: np.random.Generator) -> dict[str, float]:
    heap = float(rng.uniform(150, 200)) * MB
    return {
        "CPU_MILLISECONDS": round(cpu_s * hw.task_threads * 1000),
        "COMMITTED_HEAP_BYTES": round(heap),
        "PHYSICAL_MEMORY_BYTES": round(heap + rng.uniform(60, 110) * MB),
        "VIRTUAL_MEMORY_BYTES": round(heap + rng.uniform(700, 760) * MB),
    }
