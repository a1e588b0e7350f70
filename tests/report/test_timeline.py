"""The timeline's bars where a log has more task slots (lanes) than the chart has rows
(``timeline.binned``): each row's bars of a stage are the union of its lanes' bars, merged
below the tolerance, as a plain interval union computes it; a chart of few lanes is drawn
lane by lane as before."""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfx.report import plots
from perfx.report.build import render_report
from perfx.report.timeline import binned
from perfx.session import open as open_session
from tests.blocked.build import logs_with_a_task_from_years_before


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


def test_an_attempt_launched_outside_its_app_is_not_drawn_and_is_said(tmp_path):
    """A task from five years before its app would stretch the timeline over the years: it
    is left out (as the what-if leaves it), the chart spans the app's seconds, and its
    caption says so."""
    damaged, without = logs_with_a_task_from_years_before(tmp_path)
    page = render_report(open_session([str(damaged)]), limit=0).html
    caption = page[page.index('<section id="timeline">') :]
    caption = caption[caption.index("<figcaption>") : caption.index("</figcaption>")]
    plain = render_report(open_session([str(without)]), limit=0).html
    span = plain[plain.index("executors over ") :].split(" s;")[0]
    assert span in caption and "1 task attempt left out of the timeline: it launched" in caption
