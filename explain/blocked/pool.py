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
from heapq import heappop, heappush, heapreplace

LOCALITY_WAIT_MS = 3000.0
"""Spark's default ``spark.locality.wait``: how long a task waits for a slot where its data is."""


class SlotPool:
    """Slots with their free times, kept in one heap per executor and one across executors.

    An executor joins when the replay reaches its first task (``place``): dynamic allocation
    asked for it because that task's stage was waiting, so it joins and leaves as long after
    the stage became ready as it really did. A slot's entries go stale when it is taken (its
    version moves on); stale entries are dropped when they reach the top of a heap, and the
    taken entry, where it is a heap's top, is replaced there by the slot's next."""

    def __init__(self, counts: list[int], opens: list[float], closes: list[float]):
        """``counts[e]`` slots for executor ``e``, which really ran its first task at
        ``opens[e]`` and released its last slot at ``closes[e]``."""
        self.counts, self.opens, self.real_closes = counts, opens, closes
        self.executor_of: list[int] = []
        self.closes: list[float] = [math.nan] * len(counts)
        self.version: list[int] = []
        self.mine: list[list] = [[] for _ in counts]
        self.anywhere: list = []
        self.alone = len(counts) == 1
        """One executor (local mode): no slot of another to move to, so ``anywhere`` is not
        kept (its top would be the executor's own slot or a later one, never a locality
        wait sooner)."""

    def _join(self, executor: int, shift: float) -> None:
        """``executor``'s slots open ``shift`` after it really started; from its real end
        plus ``shift`` on it is gone."""
        self.closes[executor] = self.real_closes[executor] + shift
        opens = self.opens[executor] + shift
        for _ in range(self.counts[executor]):
            slot = len(self.version)
            self.executor_of.append(executor)
            self.version.append(0)
            entry = (opens, slot, 0)
            heappush(self.mine[executor], entry)
            if not self.alone:
                heappush(self.anywhere, entry)

    def place(
        self, executor: int, ready: float, submitted: float, held: float, busy: float, lag: float
    ) -> float:
        """Runs a task of ``executor`` whose stage, really submitted at ``submitted``, is
        ready at ``ready``: on the slot that frees first (the module docstring), from then
        on, after its ``held`` delay, for ``busy`` ms. Returns its finish; the slot frees
        ``lag`` before it (the driver's hand-off).

        Written out in one body, the heaps' tops found inline and ``max(x, ready)`` spelled
        ``ready if ready > x else x`` (the same value, NaN included): this runs once per
        attempt of every what-if scenario, 10^6 times in a report of 10^5 tasks, and a
        Python call costs as much as the work."""
        closes, version = self.closes, self.version
        if closes[executor] != closes[executor]:  # NaN: not joined yet
            self._join(executor, ready - submitted)
        mine = self.mine[executor]
        own = None
        while mine:  # the executor's slot that frees first
            entry = mine[0]
            if entry[2] == version[entry[1]]:
                own = entry
                break
            heappop(mine)
        anywhere, executor_of = self.anywhere, self.executor_of
        other = None
        while (
            anywhere
        ):  # ... and any executor's (empty when alone) that is still there when it could start
            entry = anywhere[0]
            free = entry[0]
            if (
                entry[2] == version[entry[1]]
                and not (ready if ready > free else free) >= closes[executor_of[entry[1]]]
            ):
                other = entry
                break
            heappop(anywhere)
        if own is None:
            if other is None:
                raise ValueError(f"executor {executor} has no slot: the replay cannot place a task")
            own = other
        elif other is not None:
            free, mine_free = other[0], own[0]
            if (ready if ready > free else free) + LOCALITY_WAIT_MS < (
                ready if ready > mine_free else mine_free
            ):
                own = other
        free, slot = own[0], own[1]
        finish = (ready if ready > free else free) + held + busy
        release = finish - lag
        version[slot] += 1
        entry = (release, slot, version[slot])
        own_heap = self.mine[executor_of[slot]]
        if own_heap[0] is own:  # the slot's entry on top: replaced, not left stale to pop
            heapreplace(own_heap, entry)
        else:
            heappush(own_heap, entry)
        if not self.alone:
            if anywhere and anywhere[0] is own:
                heapreplace(anywhere, entry)
            else:
                heappush(anywhere, entry)
        return finish
