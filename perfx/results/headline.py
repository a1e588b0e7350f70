"""Answer first (issue 24): the one-paragraph summary every command prints on top, and the
rule that limits its tables to the rows with the most time at stake.

A command's result puts a :class:`Headline` first in its rendering and in its JSON
(``"summary": {"text": ..., <every value the text quotes>}``); its tables show the first
``ROWS`` rows by time at stake, then one line saying how many more there are and that
``--all`` shows them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rich.text import Text

from perfx.terminal import safe_text

ROWS = 40
"""Rows a table shows without ``--all``: more than a screen is not read."""

T = TypeVar("T")


@dataclass(frozen=True)
class Headline:
    """The answer in one paragraph, and the values it quotes (for JSON users, who should
    not have to parse the sentence)."""

    text: str
    values: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, **self.values}

    def __rich__(self) -> Text:
        return safe_text(self.text, style="bold")


def limited(rows: Sequence[T], limit: int | None) -> tuple[list[T], int]:
    """The rows a table shows (the first ``limit``; all with None) and how many it hides."""
    if limit is None or len(rows) <= limit:
        return list(rows), 0
    return list(rows[:limit]), len(rows) - limit


def more(hidden: int, noun: str, which: str = "with less time at stake") -> Text:
    """The line under a table that hides rows (``noun`` singular: ``1 more stage``)."""
    return safe_text(f"... and {count(hidden, 'more ' + noun)} {which} (--all shows them)")


def id_order(value: Any) -> tuple:
    """A sort key that orders ids as people count: numbers as numbers (job 2 before job 10),
    and the digit runs inside text ids too (``app_2`` before ``app_10``)."""
    text = str(value)
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def duration(ms: float | None) -> str:
    """A time at stake as people say it: ms, s, min or h."""
    if ms is None:
        return "-"
    seconds = ms / 1000
    if seconds < 1:
        return f"{ms:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def count(n: int, noun: str) -> str:
    """``1 task``, ``2 tasks``: a count with its noun agreeing."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def listing(counts: Sequence[tuple[str, Any]], top: int = 3) -> str:
    """``a 3, b 2 and c 1``: the first ``top`` of (name, figure) pairs, and how many more
    there are (``a 3, b 2, c 1 and 2 more``): a list cut short says so."""
    shown = [f"{name} {figure}" for name, figure in counts[:top]]
    if len(counts) > top:
        return ", ".join(shown) + f" and {len(counts) - top:,} more"
    if len(shown) <= 1:
        return "".join(shown)
    return ", ".join(shown[:-1]) + " and " + shown[-1]
