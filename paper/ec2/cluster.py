"""One Hadoop job on a cluster of instances: slot scheduling at TaskTracker heartbeats and
contention for each instance's cores, disk and network.

This is where task durations come from. A task progresses through its work (seconds on an
idle instance) at rate ``1 / slowdown`` of its instance, where the slowdown is how far the
instance is oversubscribed on its busiest resource: cores (task JVM threads plus the daemons
over two cores), disk or network. Two map tasks sharing an instance slow each other down; the
last task of a job on an instance often runs alone for part or all of its run and is faster —
nothing marks it, it simply has the instance to itself. Tasks are handed out only when a
TaskTracker heartbeats (every 3 s) with a free slot, data-local splits first, no more per
tracker than the cluster's load allows (Hadoop 1's default scheduler); reduces start once
every map has finished.

Besides the tasks' times, the run leaves each instance's activity as a step function (what
ran and how busy each resource was after every change), which ``ganglia``
samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .work import Hardware, TaskWork

ACTIVITY = ("cpu", "disk_mb_s", "net_in_mb_s", "net_out_mb_s", "runnable", "jvms")
"""Per-instance activity after each change: cores in use, disk and network throughput,
threads wanting to run (what the load average counts) and task JVMs alive."""


@dataclass
class Activity:
    """Step functions of every instance's activity: rows (time s, host index, *ACTIVITY)."""

    rows: list[tuple[float, ...]] = field(default_factory=list)

    def record(self, t: float, host: int, values: tuple[float, ...]) -> None:
        self.rows.append((t, host, *values))


@dataclass
class TaskRun:
    """When and where a task ran, and when each of its phases ended."""

    work: TaskWork
    host: int
    local: bool
    launch: float
    finish: float = math.nan
    phase_ends: list[float] = field(default_factory=list)


def run_job(
    maps: list[TaskWork],
    reduces: list[TaskWork],
    speed: np.ndarray,
    phase: np.ndarray,
    start: float,
    hw: Hardware,
    activity: Activity,
) -> list[TaskRun]:
    """Simulate the job from ``start`` (s) on instances with relative slowness ``speed`` and
    heartbeat offsets ``phase``; returns every task's run and appends to ``activity``."""
    hosts = len(speed)
    pending_maps = list(maps)
    pending_reduces: list[TaskWork] = []
    waiting_reduces = list(reduces)
    running: dict[int, list[TaskRun]] = {h: [] for h in range(hosts)}
    remaining: dict[int, float] = {}
    progress: dict[int, list[tuple[float, float]]] = {}
    runs: list[TaskRun] = []
    slowdown = np.ones(hosts)
    t = start
    for h in range(hosts):
        activity.record(t, h, _idle(hw))

    def next_heartbeat(h: int) -> float:
        return phase[h] + hw.heartbeat_s * (math.floor((t - phase[h]) / hw.heartbeat_s) + 1)

    def refresh(h: int) -> None:
        tasks = running[h]
        cpu = sum(r.work.cpu for r in tasks) + (hw.daemon_cpu if tasks else hw.idle_daemon_cpu)
        disk = sum(_rate(r.work.disk_mb, r) for r in tasks) / hw.disk_mb_s
        net_in = (
            sum(
                _rate(r.work.net_in_mb + (0 if r.local else r.work.input_bytes / 2**20), r)
                for r in tasks
            )
            / hw.net_mb_s
        )
        net_out = sum(_rate(r.work.net_out_mb, r) for r in tasks) / hw.net_mb_s
        load = max(1.0, cpu / hw.cores, disk, net_in, net_out)
        slowdown[h] = load * speed[h]
        if not tasks:
            activity.record(t, h, _idle(hw))
            return
        activity.record(
            t,
            h,
            (
                min(hw.cores, cpu / load),
                disk * hw.disk_mb_s / load,
                net_in * hw.net_mb_s / load,
                net_out * hw.net_mb_s / load,
                cpu + min(disk, 1.0) * 0.5,
                float(len(tasks)),
            ),
        )

    while pending_maps or waiting_reduces or pending_reduces or any(running.values()):
        done_at = min(
            (t + remaining[id(r)] * slowdown[h] for h in running for r in running[h]),
            default=math.inf,
        )
        candidates = [
            h
            for h in range(hosts)
            if (_free(running[h], "m", hw) and pending_maps)
            or (_free(running[h], "r", hw) and pending_reduces)
        ]
        beat_at, beat_host = min(
            ((next_heartbeat(h), h) for h in candidates), default=(math.inf, -1)
        )
        now = min(done_at, beat_at)
        for h in running:
            for r in running[h]:
                remaining[id(r)] -= (now - t) / slowdown[h]
        t = now
        for h in running:
            for r in running[h]:
                if len(r.work.phases) > 1:
                    progress[id(r)].append((t, r.work.work_s - remaining[id(r)]))
        if done_at <= beat_at:
            for h in range(hosts):
                finished = [r for r in running[h] if remaining[id(r)] <= 1e-6 * r.work.work_s]
                if not finished:
                    continue
                for r in finished:
                    r.finish = t
                    r.phase_ends = _phase_ends(r, progress[id(r)])
                    running[h].remove(r)
                refresh(h)
            if not pending_maps and not any(
                r.work.kind == "m" for h in running for r in running[h]
            ):
                pending_reduces += waiting_reduces
                waiting_reduces = []
            continue
        h = beat_host
        for kind, queue in (("m", pending_maps), ("r", pending_reduces)):
            capacity = _capacity(kind, queue, running, hosts, hw)
            while queue and _free(running[h], kind, hw, capacity):
                work = _pick(queue, h)
                run = TaskRun(work, h, local=kind == "r" or h in work.replicas, launch=t)
                running[h].append(run)
                runs.append(run)
                remaining[id(run)] = work.work_s
                progress[id(run)] = [(t, 0.0)]
        refresh(h)
    return runs


def _free(tasks: list[TaskRun], kind: str, hw: Hardware, capacity: int | None = None) -> bool:
    slots = (hw.map_slots if kind == "m" else hw.reduce_slots) if capacity is None else capacity
    return sum(1 for r in tasks if r.work.kind == kind) < slots


def _capacity(
    kind: str, queue: list[TaskWork], running: dict[int, list[TaskRun]], hosts: int, hw: Hardware
) -> int:
    """Slots of this kind a tracker may fill at a heartbeat, as Hadoop 1's default
    JobQueueTaskScheduler computes it: the cluster's remaining load of that kind over its
    capacity, times the tracker's slots, rounded up — so a job with fewer tasks than slots
    is spread one task per instance instead of packing instances two by two."""
    slots = hw.map_slots if kind == "m" else hw.reduce_slots
    remaining = len(queue) + sum(
        1 for tasks in running.values() for r in tasks if r.work.kind == kind
    )
    return min(slots, math.ceil(remaining / (hosts * slots) * slots))


def _pick(queue: list[TaskWork], host: int) -> TaskWork:
    """The first pending split with a replica on ``host`` (data-local), else the first one."""
    for i, work in enumerate(queue):
        if host in work.replicas or not work.replicas:
            return queue.pop(i)
    return queue.pop(0)


def _rate(mb: float, run: TaskRun) -> float:
    """MB/s a task moves at full speed when ``mb`` is spread over its work."""
    return mb / run.work.work_s


def _phase_ends(run: TaskRun, history: list[tuple[float, float]]) -> list[float]:
    """Times at which the task's cumulative work crossed each phase boundary."""
    if len(run.work.phases) == 1:
        return [run.finish]
    times, done = zip(*history)
    bounds = np.cumsum([seconds for _, seconds in run.work.phases])
    return [float(x) for x in np.interp(bounds, done, times)]


def _idle(hw: Hardware) -> tuple[float, ...]:
    return (hw.idle_daemon_cpu, 0.0, 0.0, 0.0, hw.idle_daemon_cpu, 0.0)
