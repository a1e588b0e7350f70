"""Timing several ways of doing one thing side by side on a noisy, shared machine."""

from __future__ import annotations

import time
from collections.abc import Callable


def in_turn(actions: dict[str, Callable[[], object]], repeats: int) -> dict[str, list[float]]:
    """Name -> the seconds each of ``repeats`` calls of its action took, the actions called in
    turn (one round of each, then the next), so that the machine's load weighs on each alike."""
    times: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(repeats):
        for name, action in actions.items():
            started = time.perf_counter()
            action()
            times[name].append(time.perf_counter() - started)
    return times
