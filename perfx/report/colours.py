"""One colour per cause, for every chart and table of a report: the one mapping cause -> colour.

A cause is named as the page names it: a part of a task's time (``explain.gap.PARTS``' labels,
and ``compute``) or a diagnosis (``perfx explain``'s cause names: "data skew", "cold start").
The parts and the usual diagnoses have fixed colours, so that a cause keeps its colour from
one report to the next; a name not listed takes the next unused colour of the palette, once,
so that two causes never share one. Charts draw with ``colour``; tables and the legend show
``swatch``, which carries the cause's name and colour for a reader (and a test) to match.
"""

from __future__ import annotations

import re

from perfx.explain.gap import PARTS

from .page import Html, esc, tag

PALETTE = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
    "#1f3b73",
    "#a0522d",
    "#2e7d32",
    "#7b1fa2",
    "#f9a825",
    "#00838f",
    "#ad1457",
    "#558b2f",
    "#5d4037",
    "#283593",
    "#ef6c00",
    "#00695c",
    "#6a1b9a",
    "#9e9d24",
    "#4e342e",
    "#0277bd",
    "#c62828",
    "#37474f",
    "#b39ddb",
    "#80cbc4",
    "#ffab91",
    "#a5d6a7",
    "#90caf9",
    "#f48fb1",
    "#e6ee9c",
    "#bcaaa4",
)
"""Distinct colours, the strongest first."""
NO_CAUSE = "#bdbdbd"
"""The colour of "no cause stands out" and "no reference": no cause, drawn as grey."""
NOT_CAUSES = ("no cause stands out", "no reference")

KNOWN = (
    "compute",
    *(label for _, label, _ in PARTS),
    "data skew",
    "computation skew",
    "cold start",
    "off-CPU wait",
    "higher cost per unit",
    "GC pressure",
    "spill",
    "output skew",
    "shuffle fan-out",
    "result size",
    "slow host",
    "retry",
    "failed attempt",
    "executor lost",
    "speculative copy",
)
"""Causes with a fixed colour (PALETTE's, in this order)."""

_assigned: dict[str, str] = {name: PALETTE[i] for i, name in enumerate(dict.fromkeys(KNOWN))}
_assigned.update({name: NO_CAUSE for name in NOT_CAUSES})


def colour(cause: str) -> str:
    """The cause's colour (``#rrggbb``), the same wherever the page draws it."""
    found = _assigned.get(cause)
    if found is None:
        taken = set(_assigned.values())
        free = [c for c in PALETTE if c not in taken]
        found = free[0] if free else PALETTE[len(_assigned) % len(PALETTE)]
        _assigned[cause] = found
    return found


def slug(cause: str) -> str:
    """The cause as a name an SVG id can hold: ``cold-start``."""
    return re.sub(r"[^a-z0-9]+", "-", cause.lower()).strip("-") or "cause"


def gid(cause: str, key: str, n: int) -> str:
    """The id of a chart's mark of ``cause`` (``cause-<slug>--<chart>-<n>``): marks a reader
    (or a test) can match to the cause's swatch."""
    return f"cause-{slug(cause)}--{key}-{n}"


def swatch(cause: str, text: object | None = None) -> Html:
    """The cause's name (or ``text``) after a square of its colour."""
    hue = colour(cause)
    return tag(
        "span",
        tag("span", "", cls="swatch", style=f"background:{hue}"),
        cause if text is None else text,
        cls="cause",
        data_cause=cause,
        data_slug=slug(cause),
        data_colour=hue,
    )


def legend(causes: list[str]) -> Html:
    """The page's legend: every cause it colours, with its colour."""
    if not causes:
        return Html("")
    return tag(
        "p",
        "Colours of causes (the same in every chart and table): ",
        *(join_item for cause in causes for join_item in (swatch(cause), esc(" "))),
        cls="legend",
        id="legend",
    )
