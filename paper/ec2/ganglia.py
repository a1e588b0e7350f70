"""Ganglia-style metrics of every instance every 5 s, sampled from the simulated activity.

Each metric is computed the way gmond gets it from the kernel, so it carries the same lags
and smoothing the paper's data did: ``cpu_*`` and network rates are averages over the last
interval, the load averages are the kernel's exponentially damped run-queue length updated
every 5 s (1, 5 and 15 minute constants), ``proc_run`` and ``proc_total`` are instantaneous
counts, memory and disk follow the page cache and the data written. Memory and disk are in
bytes (gmond reports KB; the tabular reader expects bytes).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.signal import lfilter

from perfx.logs.hostmetrics import step_mean

from .cluster import ACTIVITY, Activity
from .work import MB, Hardware

INTERVAL_S = 5.0
METRICS = (
    "boottime",
    "bytes_in",
    "bytes_out",
    "cpu_aidle",
    "cpu_idle",
    "cpu_system",
    "cpu_user",
    "cpu_wio",
    "disk_free",
    "load_fifteen",
    "load_five",
    "load_one",
    "mem_buffers",
    "mem_cached",
    "mem_free",
    "part_max_used",
    "pkts_in",
    "pkts_out",
    "proc_run",
    "proc_total",
)
DISK_TOTAL = 420e9
OS_BYTES = 620 * MB


def sample(
    activity: Activity,
    hosts: list[str],
    boot: np.ndarray,
    start: float,
    end: float,
    hw: Hardware,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """One row per instance per 5 s between ``start`` and ``end`` (epoch s)."""
    rows = np.asarray(activity.rows, dtype=float)
    frames = []
    for h, host in enumerate(hosts):
        mine = rows[rows[:, 1] == h]
        mine = mine[np.argsort(mine[:, 0], kind="stable")]
        offset = rng.uniform(0, INTERVAL_S)
        ticks = np.arange(start + offset, end, INTERVAL_S)
        frames.append(_host_metrics(mine, ticks, host, boot[h], hw, rng))
    return pd.concat(frames, ignore_index=True)


def _host_metrics(
    steps: np.ndarray,
    ticks: np.ndarray,
    host: str,
    boot: float,
    hw: Hardware,
    rng: np.random.Generator,
) -> pd.DataFrame:
    times = steps[:, 0]
    column = {name: steps[:, 2 + i] for i, name in enumerate(ACTIVITY)}
    n = len(ticks)

    def average(name: str) -> np.ndarray:
        return step_mean(times, column[name], ticks - INTERVAL_S, ticks)

    def now(name: str) -> np.ndarray:
        return column[name][
            np.clip(np.searchsorted(times, ticks, side="right") - 1, 0, len(times) - 1)
        ]

    busy = average("cpu") / hw.cores
    disk = average("disk_mb_s")
    net_in, net_out = average("net_in_mb_s"), average("net_out_mb_s")
    user = np.clip(100 * busy * 0.86 + rng.normal(0, 0.4, n), 0, 100)
    system = np.clip(
        100 * busy * 0.09 + 0.03 * (disk + net_in + net_out) + rng.normal(0, 0.2, n), 0, 100
    )
    wio = np.clip(
        100 * np.minimum(disk / hw.disk_mb_s, 1) * 0.3 * (1 - busy) + rng.normal(0, 0.1, n), 0, 100
    )
    idle = np.clip(100 - user - system - wio, 0, 100)
    before = ticks[0] - boot
    aidle = (96.0 * before + np.cumsum(idle) * INTERVAL_S) / (
        before + INTERVAL_S * np.arange(1, n + 1)
    )

    runnable = now("runnable")
    loads = {}
    for name, minutes in (("load_one", 1), ("load_five", 5), ("load_fifteen", 15)):
        decay = np.exp(-INTERVAL_S / (60 * minutes))
        loads[name] = lfilter([1 - decay], [1, -decay], runnable, zi=[decay * 0.05])[0]

    jvms = now("jvms")
    disk_moved = np.cumsum(disk) * INTERVAL_S * MB
    buffers = 38 * MB + 0.002 * disk_moved
    jvm_bytes = jvms * hw.task_jvm_bytes
    # Once the page cache fills memory, the kernel keeps free memory between its low and
    # high watermarks (kswapd reclaims in batches), so mem_free then wanders in that band.
    watermark = rng.uniform(120, 260, n) * MB
    cached = np.minimum(
        hw.mem_total - OS_BYTES - jvm_bytes - buffers - watermark, 450 * MB + 0.8 * disk_moved
    )
    used = DISK_TOTAL * 0.012 + 0.3 * disk_moved
    bytes_in = net_in * MB + 2600 + rng.normal(0, 150, n).clip(-2000)
    bytes_out = net_out * MB + 3100 + rng.normal(0, 150, n).clip(-2000)
    return pd.DataFrame(
        {
            "host": host,
            "timestamp": np.round(ticks, 3),
            "boottime": np.full(n, round(boot), dtype=np.int64),
            "bytes_in": np.round(bytes_in, 1),
            "bytes_out": np.round(bytes_out, 1),
            "cpu_aidle": np.round(aidle, 2),
            "cpu_idle": np.round(idle, 1),
            "cpu_system": np.round(system, 1),
            "cpu_user": np.round(user, 1),
            "cpu_wio": np.round(wio, 1),
            "disk_free": np.round(DISK_TOTAL - used).astype(np.int64),
            "load_fifteen": np.round(loads["load_fifteen"], 2),
            "load_five": np.round(loads["load_five"], 2),
            "load_one": np.round(loads["load_one"], 2),
            "mem_buffers": np.round(buffers).astype(np.int64),
            "mem_cached": np.round(cached).astype(np.int64),
            "mem_free": np.round(hw.mem_total - OS_BYTES - jvm_bytes - buffers - cached).astype(
                np.int64
            ),
            "part_max_used": np.round(100 * used / DISK_TOTAL, 1),
            "pkts_in": np.round(bytes_in / 1448 + 11, 1),
            "pkts_out": np.round(bytes_out / 1448 + 13, 1),
            "proc_run": rng.poisson(runnable),
            "proc_total": 96 + 4 * jvms.astype(int) + rng.integers(0, 3, n),
        }
    )
