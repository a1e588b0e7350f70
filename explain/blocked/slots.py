"""What the real schedule says about an application's slots: how many each executor had, when
an attempt gave its slot back, and how long each attempt waited although a slot was free.

The replay (``replay``) takes these as measured inputs and schedules new durations through
them; nothing here depends on the durations being replayed.
"""

from __future__ import annotations

import heapq

import numpy as np
import pandas as pd


def slot_release(t: pd.DataFrame) -> np.ndarray:
    """When an attempt gave its slot back: its finish minus its scheduler delay (the driver's
    hand-off lag is part of that delay), but at most half its duration, so that attempts made
    mostly of scheduler delay still count as running at the same time."""
    launch = pd.to_numeric(t["launch_time"], errors="coerce").to_numpy(float)
    finish = pd.to_numeric(t["finish_time"], errors="coerce").to_numpy(float)
    if "scheduler_delay" not in t.columns:
        return finish
    delay = pd.to_numeric(t["scheduler_delay"], errors="coerce").fillna(0).to_numpy(float)
    return finish - np.minimum(delay, (finish - launch) / 2)


def executor_slots(group: pd.Series, launch: np.ndarray, busy_end: np.ndarray) -> pd.Series:
    """Per group label: the most intervals [launch, busy_end) open at once (an interval that
    ends at the instant another begins does not overlap it)."""
    labels = group.to_numpy()
    events = pd.DataFrame(
        {
            "group": np.concatenate([labels, labels]),
            "time": np.concatenate([launch, busy_end]),
            "delta": np.concatenate([np.ones(len(labels), int), -np.ones(len(labels), int)]),
        }
    ).sort_values(["group", "time", "delta"], kind="stable")
    events["running"] = events.groupby("group")["delta"].cumsum()
    return events.groupby("group")["running"].max().clip(lower=1)


def held_delays(
    executor: np.ndarray,
    launch: np.ndarray,
    release: np.ndarray,
    ready: np.ndarray,
    slots: dict,
) -> np.ndarray:
    """Per attempt (arrays in launch order): how long after both its stage was ready and a slot
    of its executor was free it really launched — locality wait, or the driver's lag in
    offering the slot. An executor's ``slots[executor]`` slots open at its first launch; each
    attempt takes the one free longest, as the replay does, and holds it until its release."""
    free: dict = {}
    held = np.zeros(len(launch))
    for i in range(len(launch)):
        heap = free.get(executor[i])
        if heap is None:
            heap = free[executor[i]] = [launch[i]] * int(slots[executor[i]])
        slot_free = heapq.heappop(heap)
        held[i] = max(0.0, launch[i] - max(ready[i], slot_free))
        heapq.heappush(heap, release[i])
    return held
