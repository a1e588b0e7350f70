"""An application's slots during a replay, chosen as Spark's delay scheduling chooses them.

A task stays on the executor it really ran on: the scheduler sent it there for its data
(locality), and the measured delays belong to that executor. It takes that executor's slot
that frees first, unless a slot of another executor would let it start more than Spark's
locality wait earlier: Spark gives up on locality after that long and so does the replay.
That is how a what-if moves tasks to slots freed sooner (the paper's Figure 2) without
moving them where Spark would not have. A slot is offered to other executors' tasks only
while its executor was still there (before its real last finish: it was excluded, lost or
released by dynamic allocation after that).
"""

from __future__ import annotations

import math
from heapq import heappop, heappush

LOCALITY_WAIT_MS = 3000.0
"""Spark's default ``spark.locality.wait``: how long a task waits for a slot where its data is."""


class SlotPool:
    """Slots with their free times, kept in one heap per executor and one across executors.

    An executor joins when the replay reaches its first task (``join``): dynamic allocation
    asked for it because that task's stage was waiting, so it joins and leaves as long after
    the stage became ready as it really did. A slot's entries go stale when it is taken or
    given back (its version moves on); stale entries are dropped when they reach the top of
    a heap."""

    def __init__(self, counts: list[int]):
        self.counts = counts
        self.executor_of: list[int] = []
        self.free: list[float] = []
        self.closes: list[float] = [math.nan] * len(counts)
        self.version: list[int] = []
        self.mine: list[list] = [[] for _ in counts]
        self.anywhere: list = []

    def joined(self, executor: int) -> bool:
        return not math.isnan(self.closes[executor])

    def join(self, executor: int, opens: float, closes: float) -> None:
        """``executor``'s slots open at ``opens``; from ``closes`` on it is gone."""
        self.closes[executor] = closes
        for _ in range(self.counts[executor]):
            self.executor_of.append(executor)
            self.free.append(opens)
            self.version.append(0)
            self._offer(len(self.free) - 1)

    def _offer(self, slot: int) -> None:
        entry = (self.free[slot], slot, self.version[slot])
        heappush(self.mine[self.executor_of[slot]], entry)
        heappush(self.anywhere, entry)

    def _top(self, heap: list, ready: float | None = None) -> tuple[float, int] | None:
        """The slot that frees first in ``heap``; with ``ready``, only among slots whose
        executor is still there when a task ready then could start on them (an executor
        that left stays gone, as tasks come in launch order)."""
        # names bound once: this runs twice per task replayed, 10^6 times a report
        version = self.version
        if ready is None:
            while heap:
                free, slot, seen = heap[0]
                if seen == version[slot]:
                    return free, slot
                heappop(heap)
            return None
        closes, executor_of = self.closes, self.executor_of
        while heap:
            free, slot, seen = heap[0]
            if seen == version[slot] and not max(free, ready) >= closes[executor_of[slot]]:
                return free, slot
            heappop(heap)
        return None

    def take(self, executor: int, ready: float) -> tuple[float, int]:
        """A slot for a task of ``executor`` whose stage is ready at ``ready``: its free time
        and id. The slot is busy until ``give_back``."""
        own = self._top(self.mine[executor])
        other = self._top(self.anywhere, ready)
        if own is None or (
            other is not None and max(other[0], ready) + LOCALITY_WAIT_MS < max(own[0], ready)
        ):
            own = other
        if own is None:
            raise ValueError(f"executor {executor} has no slot: the replay cannot place a task")
        free, slot = own
        self.version[slot] += 1
        return free, slot

    def give_back(self, slot: int, free: float) -> None:
        self.free[slot] = free
        self.version[slot] += 1
        self._offer(slot)
