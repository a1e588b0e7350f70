"""A slow or busy host: a task slower than its reference because every task of its stage on
its host was, not because of its records.

The tasks of one stage run the same code on other partitions; spread over several hosts,
they show each host's speed. Where the asked task's host's *other* tasks of the stage are
(nearly: ``MOST``) all slower than the median of the stage's tasks on other hosts, and their
median lies beyond those tasks' normal spread (``costmodel``: 3.5 robust deviations and 1.5x their median), the
host is slow (older hardware, a noisy neighbour, a failing disk) or busy, and the task's
extra time is the host's. Time per unit of its cost model's volumes would be better still,
but the cost model already left this extra time unexplained by volume before it is asked
(``explain.gap.mechanism`` asks only of a cost per unit), so durations compare like with like.
"""

from __future__ import annotations

import numpy as np

from perfx.grammar.units import format_ms

from .columns import Columns
from .costmodel import NORMAL_FOLD, TRIM, stage_rows
from .diagnosis import Diagnosis

MOST = 0.75
"""Share of its host's other tasks that must be slower than the median task of the other
hosts: a host whose tasks are (nearly) all slower, not one with a few stragglers."""

MIN_HOST_TASKS = 2
"""Other tasks of the stage the asked task's host must have run (and the other hosts too):
one task is that task, not its host."""


def slow_host(cols: Columns, first: int, second: int, percent: str) -> Diagnosis | None:
    """``slow host`` where ``first``'s host ran all of its stage's tasks slower than the
    stage's other hosts did (see the module docstring); None otherwise, or where the pair
    ran on one host (then the host explains no difference)."""
    if "host" not in cols.present or "duration" not in cols.present:
        return None
    hosts = cols.derived.get("hosts")
    if hosts is None:  # once per table: every straggler of a report asks
        hosts = cols.derived["hosts"] = cols.table["host"].astype(str).to_numpy()
    host = hosts[first]
    if hosts[second] == host:
        return None
    rows = stage_rows(cols, first)
    duration = cols.numeric("duration")
    mine = rows[(hosts[rows] == host) & (rows != first)]
    others = rows[hosts[rows] != host]
    mine, others = mine[np.isfinite(duration[mine])], others[np.isfinite(duration[others])]
    if len(mine) < MIN_HOST_TASKS or len(others) < MIN_HOST_TASKS:
        return None
    theirs = duration[others]
    median = float(np.median(theirs))
    sigma = 1.4826 * float(np.median(np.abs(theirs - median)))
    high = max(median + TRIM * sigma, NORMAL_FOLD * median)
    here = float(np.median(duration[mine]))
    slower = float(np.mean(duration[mine] > median))
    if not (here > high and slower >= MOST):
        return None
    n_hosts = len(set(hosts[others]))
    return Diagnosis(
        "slow host",
        f"every other task of its stage on its host {host} was slow too: a median of "
        f"{format_ms(here)} over {len(mine)} tasks there, against {format_ms(median)} over "
        f"{len(others)} tasks on {n_hosts} other host{'s' if n_hosts != 1 else ''} ({percent}): "
        "the host was slow or busy, not the records; check its load and hardware, or keep "
        "tasks off it (spark.excludeOnFailure.enabled=true, or spark.speculation=true to "
        "copy its stragglers elsewhere)",
    )
