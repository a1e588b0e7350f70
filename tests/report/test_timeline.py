"""The timeline's bars where a log has more task slots (lanes) than the chart has rows
(``timeline.binned``): each row's bars of a stage are the union of its lanes' bars, merged
below the tolerance, as a plain interval union computes it; a chart of few lanes is drawn
lane by lane as before."""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfx.report import plots
from perfx.report.timeline import binned


def _union(intervals: list[tuple[float, float]], tolerance: float) -> list[tuple[float, float]]:
    merged: list[list[float]] = []
    for start, end in sorted(intervals):
        if merged and start - merged[-1][1] <= tolerance:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def test_a_row_of_lanes_draws_the_union_of_their_bars():
    rng = np.random.default_rng(7)
    lanes, n, tolerance = 3 * plots.LANE_ROWS + 17, 20_000, 0.05
    start = rng.uniform(0, 100, n).round(2)
    frame = pd.DataFrame(
        {
            "lane": rng.integers(0, lanes, n),
            "start": start,
            "end": start + rng.exponential(20.0, n).round(2),
            "stage": rng.integers(0, 4, n),
        }
    )
    bars = binned(frame, lanes, tolerance)
    per_row = lanes / plots.LANE_ROWS
    assert (bars["height"] == per_row).all()
    row = np.floor(bars["lane"] / per_row + 1e-9).astype(int)
    assert row.between(0, plots.LANE_ROWS - 1).all()
    got = {
        key: sorted(zip(group["start"], group["end"]))
        for key, group in bars.assign(row=row).groupby(["row", "stage"])
    }
    frame = frame.assign(row=np.floor(frame["lane"] / per_row).astype(int))
    expected = {
        key: _union(list(zip(group["start"], group["end"])), tolerance)
        for key, group in frame.groupby(["row", "stage"])
    }
    assert got == expected
    assert len(bars) < len(frame) / 2  # overlapping lanes of a row draw as one bar
