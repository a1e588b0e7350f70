"""The report's plots, all drawn with matplotlib and placed in the page as inline SVG.

SVG keeps the file self-contained and sharp when printed. Text is written as SVG text
(``svg.fonttype: none``, smaller than glyph outlines), which matplotlib's writer escapes;
mathtext is off, so a ``$`` in a record or key is drawn as it is. Each figure gets its own
id salt: several SVGs in one page must not share clip-path ids. Legends sit outside the axes,
so they never cover data. Plots of many tasks draw a bounded number of marks (a sample by
rank, segments merged below a pixel), so a report of 10^5 tasks stays small.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from . import colours
from .page import Html

WIDTH = 9.0
"""Figure width in inches: the page's text width."""
STRAGGLER = "#c0392b"
TASK = "#7f8c8d"
MAX_POINTS = 400
"""Task times drawn per distribution plot beyond its stragglers (a sample by rank above it)."""
MAX_OUTLINES = 1500
"""Stragglers outlined in a timeline (the longest first)."""
PIXELS = 1500
"""Timeline resolution: bars of one stage on one lane closer than 1/PIXELS of the span merge."""
LANE_ROWS = 500
"""Timeline rows: more lanes (task slots) than this are dealt to this many rows, each as
high as the lanes it covers (a 10-inch chart gives a row about a point)."""
SHAPES_PER_STAGE = 2000
"""A timeline stage's bars drawn as shapes of their own up to this many; beyond, as one path
(matplotlib writes a shape in about 0.1 ms: 10^5 tasks running at once took 25 s)."""


def load_pyplot():
    """matplotlib's pyplot on the Agg backend, imported once (about a second): the report
    imports it before it forks the children that draw (``perfx.logs.background``), which then
    inherit it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@contextmanager
def _figure(key: str, height: float, **subplots):
    plt = load_pyplot()

    style: dict[Any, Any] = {
        "svg.fonttype": "none",
        "svg.hashsalt": f"perfx-{key}",
        "text.parse_math": False,
        "font.size": 8,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }
    with plt.rc_context(style):
        figure, axes = plt.subplots(figsize=(WIDTH, height), **subplots)
        try:
            yield figure, axes
        finally:
            plt.close(figure)


def to_svg(figure) -> Html:
    """The figure as an inline ``<svg>`` element (no XML prolog, no date)."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    return Html(text[text.index("<svg") :])


def component_bars(parts: Sequence[tuple[str, float]], key: str) -> Html:
    """Task time per component (ms), the largest on top, each labelled with its share and
    drawn in its cause's colour."""
    total = sum(v for _, v in parts) or 1.0
    ordered = sorted(parts, key=lambda p: p[1])
    with _figure(key, 0.4 + 0.25 * len(ordered)) as (figure, axes):
        values = [v / 1000 for _, v in ordered]
        bars = axes.barh(
            range(len(ordered)), values, color=[colours.colour(label) for label, _ in ordered]
        )
        for n, (bar, (label, _)) in enumerate(zip(bars, ordered)):
            bar.set_gid(colours.gid(label, key, n))
        axes.set_yticks(range(len(ordered)), labels=[label for label, _ in ordered])
        for y, (_, value) in enumerate(ordered):
            axes.text(value / 1000, y, f" {100 * value / total:.1f} %", va="center", fontsize=7)
        axes.set_xlabel("task time (s, summed over tasks)")
        axes.margins(x=0.12)
        return to_svg(figure)


def rank_sample(values: np.ndarray, limit: int) -> np.ndarray:
    """Indices of at most ``limit`` values evenly spaced by rank (the smallest and the
    largest always among them): a sample with the distribution's shape."""
    order = np.argsort(values, kind="stable")
    if len(order) <= limit:
        return order
    return order[np.unique(np.linspace(0, len(order) - 1, limit).round().astype(int))]


def task_times(durations: np.ndarray, straggler: np.ndarray, key: str) -> Html:
    """A stage's task-time distribution: a box plot with the tasks as a strip over it,
    stragglers marked (all of them up to MAX_POINTS; the others sampled by rank)."""
    seconds = np.asarray(durations, dtype=float) / 1000
    straggler = np.asarray(straggler, dtype=bool)
    rng = np.random.default_rng(0)
    with _figure(key, 1.25) as (figure, axes):
        axes.boxplot(
            seconds,
            orientation="horizontal",
            widths=0.5,
            showfliers=False,
            medianprops={"color": "#222"},
            boxprops={"color": "#555"},
        )
        others = np.flatnonzero(~straggler)
        shown = others[rank_sample(seconds[others], MAX_POINTS)]
        slow = np.flatnonzero(straggler)
        slow = slow[np.argsort(-seconds[slow], kind="stable")[:MAX_POINTS]]
        for indices, color, marker, label in (
            (shown, TASK, "o", "task"),
            (slow, STRAGGLER, "D", "straggler"),
        ):
            if len(indices):
                jitter = 1 + rng.uniform(-0.18, 0.18, len(indices))
                axes.scatter(
                    seconds[indices], jitter, s=9, color=color, marker=marker, label=label, lw=0
                )
        axes.set_yticks([])
        axes.set_xlabel("task time (s)")
        axes.set_xlim(left=0)
        axes.legend(loc="lower left", bbox_to_anchor=(0, 1), ncol=2, frameon=False, fontsize=7)
        return to_svg(figure)


def timeline(
    bars: pd.DataFrame,
    outlines: pd.DataFrame,
    lanes: Sequence[tuple[str, int, int]],
    stages: Sequence[str | None],
    key: str,
) -> Html:
    """Gantt chart of tasks per executor over time. ``bars``: ``lane, start, end, stage``
    (seconds; stage indexes ``stages``), merged below a pixel, and ``height`` (lanes) where
    lanes were dealt to rows (``LANE_ROWS``); ``outlines``: ``lane, start, end`` (and
    ``height``) of stragglers; ``lanes``: (executor label, first lane, lane count)."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path

    count = max((first + n for _, first, n in lanes), default=1)
    height = min(10.0, 1.0 + 0.16 * count + 0.12 * len(stages) / 4)
    colors = _palette("tab20")
    with _figure(key, height) as (figure, axes):
        # one collection of rectangles per stage (not one per stage and lane): the same bars,
        # a fraction of matplotlib's per-collection cost on an application of many stages
        for index, label in enumerate(stages):
            mine = bars[bars["stage"] == index]
            if mine.empty:
                continue
            corners = _corners(mine, 0.1, 0.8)
            color = colors[index % len(colors)]
            if len(corners) <= SHAPES_PER_STAGE:
                axes.add_collection(PolyCollection(list(corners), facecolors=color, label=label))
                continue
            # Many bars: one filled path of them all (wound alike, their union is the fill),
            # written once instead of once per bar; added as an artist with its corners as
            # the data's limits, as add_patch would find them walking its segments in Python.
            axes.add_artist(
                PathPatch(
                    Path.make_compound_path_from_polys(corners),
                    facecolor=color,
                    edgecolor="none",
                    label=label,
                )
            )
            axes.update_datalim(corners.reshape(-1, 2))
        if len(outlines):
            axes.add_collection(
                PolyCollection(
                    list(_corners(outlines, 0.05, 0.9)),
                    facecolors="none",
                    edgecolors=STRAGGLER,
                    linewidth=1.1,
                )
            )
        axes.autoscale_view()
        axes.set_yticks(
            [first + n / 2 for _, first, n in lanes], labels=[label for label, _, _ in lanes]
        )
        for _, first, _n in lanes[1:]:
            axes.axhline(first, color="#ccc", lw=0.5)
        axes.set_ylim(count, 0)
        axes.set_xlim(left=0)
        axes.set_xlabel("time since the application started (s)")
        handles, labels = axes.get_legend_handles_labels()
        handles.append(plt.Rectangle((0, 0), 1, 1, fc="none", ec=STRAGGLER, lw=1.1))
        labels.append("straggler (outlined)")
        axes.legend(
            handles,
            labels,
            loc="upper left",
            bbox_to_anchor=(1.01, 1),
            frameon=False,
            fontsize=7,
            title="stage",
            title_fontsize=7,
        )
        return to_svg(figure)


def _corners(frame: pd.DataFrame, offset: float, height: float) -> np.ndarray:
    """The corners of each ``start``-``end`` bar of ``frame`` on its ``lane`` (from
    ``offset`` above the lane's top, ``height`` high, both in lanes: times the rows' own
    ``height`` where ``frame`` has one)."""
    start, end = frame["start"].to_numpy(float), frame["end"].to_numpy(float)
    scale = frame["height"].to_numpy(float) if "height" in frame.columns else 1.0
    low = frame["lane"].to_numpy(float) + offset * scale
    high = low + height * scale
    return np.stack(
        [np.column_stack(c) for c in ((start, low), (start, high), (end, high), (end, low))],
        axis=1,
    )


def gap_bars(parts: Sequence[tuple[str, float, float]], names: tuple[str, str], key: str) -> Html:
    """The two executions' times as stacked bars of their parts (label, first ms, second
    ms): where the gap between them is, each part in its cause's colour."""

    shown = [p for p in parts if p[1] > 0 or p[2] > 0]
    with _figure(key, 1.5) as (figure, axes):
        left = np.zeros(2)
        for index, (label, first, second) in enumerate(shown):
            values = np.array([max(first, 0.0), max(second, 0.0)]) / 1000
            bars = axes.barh(
                [0, 1], values, left=left, color=colours.colour(label), label=label, height=0.6
            )
            for n, bar in enumerate(bars):
                bar.set_gid(colours.gid(label, key, 2 * index + n))
            left += values
        axes.set_yticks([0, 1], labels=list(names))
        axes.invert_yaxis()
        axes.set_xlabel("time (s)")
        axes.legend(
            loc="upper center",
            bbox_to_anchor=(0.5, -0.45),
            ncol=min(5, max(1, len(shown))),
            frameon=False,
            fontsize=7,
        )
        return to_svg(figure)


def latency_heatmap(labels: Sequence[str], latency: np.ndarray, key: str) -> Html:
    """PerfDebug's view of a traced run's outputs: one row per output record, its latency
    and its latency without its most expensive input record (``latency``: n x 2, ms), each
    cell coloured by its value and labelled with it. Drawn as vector cells (no embedded
    bitmap, hence no colour bar: the labels carry the values)."""
    latency = np.asarray(latency, dtype=float)
    peak = float(latency.max()) if latency.size else 0.0
    with _figure(key, 0.7 + 0.24 * len(labels)) as (figure, axes):
        axes.pcolormesh(latency / 1000, cmap="YlOrRd", vmin=0, vmax=max(peak / 1000, 1e-9))
        axes.set_xticks([0.5, 1.5], labels=["latency", "without its slowest input"])
        axes.set_yticks(np.arange(len(labels)) + 0.5, labels=list(labels))
        axes.invert_yaxis()
        axes.xaxis.tick_top()
        for (row, column), value in np.ndenumerate(latency):
            axes.text(
                column + 0.5,
                row + 0.5,
                f"{value:,.0f} ms",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if value > 0.6 * peak else "#222",
            )
        return to_svg(figure)


def figures_chart(steps: Sequence[dict], key: str) -> Html | None:
    """Bars of cumulative precision and generality after each BECAUSE predicate."""
    if not steps:
        return None
    labels = [item["predicate"] for item in steps]
    precision = [item.get("precision") or 0.0 for item in steps]
    generality = [item.get("generality") or 0.0 for item in steps]
    with _figure(key, 0.6 + 0.4 * len(labels)) as (figure, axes):
        positions = np.arange(len(labels))
        axes.barh(positions - 0.2, precision, height=0.4, label="precision", color="#3b6ea5")
        axes.barh(positions + 0.2, generality, height=0.4, label="generality", color="#e8a33d")
        axes.set_yticks(positions, labels=labels)
        axes.invert_yaxis()
        axes.set_xlim(0, 1)
        axes.set_xlabel("cumulative, after each BECAUSE predicate")
        axes.legend(loc="lower left", bbox_to_anchor=(0, 1), ncol=2, frameon=False)
        return to_svg(figure)


def _palette(name: str) -> list[tuple[float, float, float, float]]:
    """The colours of a qualitative matplotlib colormap, in order."""
    import matplotlib

    cmap = matplotlib.colormaps[name]
    return [cmap(i) for i in range(cmap.N)]
