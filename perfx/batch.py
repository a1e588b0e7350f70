"""``perfx batch``: answer a file of PXQL queries (or one per straggler) against one log.

A query with ``?`` placeholders is answered once per row of a pairs file. Each answer or
failure becomes a :class:`BatchItem`; a failed query is reported as failed, never dropped,
so a report with failures can't pass for a complete one.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from perfx.explain.options import ExplainOptions

from .user_errors import user_error_types


@dataclass
class BatchItem:
    """One question of the batch and its outcome: an explanation, or the error it met."""

    query: str
    binding: tuple[str, ...] = ()
    explanation: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def not_answered(self) -> str:
        """The line that says this question went unanswered and why (its text shown as
        text: control characters from the query or the log escaped)."""
        from perfx.explain.wording import printable

        binding = f" {' '.join(self.binding)}" if self.binding else ""
        return printable(f"not answered: {self.query}{binding}: {self.error}")

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "binding": list(self.binding),
            "explanation": self.explanation.to_dict() if self.explanation is not None else None,
            "error": self.error,
        }


@dataclass(frozen=True)
class QueryText:
    """One query of a ``.pxql`` file: ``text`` as shown (comment-only lines dropped) and
    ``raw``, the part of the file between its semicolons, which starts at ``offset``: a
    syntax error is reported at its line and column in the file, not in the query."""

    text: str
    raw: str
    offset: int


def read_queries(text: str) -> list[QueryText]:
    """Split a ``.pxql`` file on ``;`` outside quotes and ``--`` comments; drop empty parts
    and comment-only ones."""
    parts: list[tuple[str, int]] = []
    current: list[str] = []
    start, quote, comment = 0, "", False
    for position, char in enumerate(text):
        if comment:
            current.append(char)
            comment = char != "\n"
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "-" and current and current[-1] == "-":
            comment = True
        elif char == ";":
            parts.append(("".join(current), start))
            current, start = [], position + 1
            continue
        current.append(char)
    parts.append(("".join(current), start))
    return [QueryText(code, raw, offset) for raw, offset in parts if (code := _code(raw))]


def _code(query: str) -> str:
    """The query without its comment-only lines (they would clutter the report's headings)."""
    return "\n".join(line for line in query.splitlines() if line.split("--", 1)[0].strip()).strip()


def read_pairs(text: str) -> list[tuple[str, ...]]:
    """Rows of a CSV of ids to bind to placeholders (a header row of non-ids is skipped)."""
    rows = [
        tuple(cell.strip() for cell in row)
        for row in csv.reader(io.StringIO(text, newline=""))
        if any(c.strip() for c in row)
    ]
    if rows and rows[0] and rows[0][0].lower() in {"first", "t1", "j1", "id", "task", "job"}:
        rows = rows[1:]
    return rows


def expand(
    queries: Sequence[str | QueryText],
    pairs: Sequence[tuple[str, ...]] | None,
    *,
    source: str | None = None,
) -> list[BatchItem]:
    """The questions of a batch, one per query and one per pair for a query with ``?``
    placeholders. A query that does not parse, or has placeholders and no pairs (``pairs``
    None: no file given; empty: a file of no row), or a row of another number of ids, is a
    failed item at once (the others are still asked); with the file's ``source`` text, its
    syntax error names the line and column in the file."""
    from perfx.grammar.errors import PxqlError
    from perfx.grammar.parser import parse

    items: list[BatchItem] = []
    for query in queries:
        located = query if isinstance(query, QueryText) else QueryText(query, query, 0)
        try:
            placeholders = parse(located.raw).placeholders
        except PxqlError as err:
            if source is not None and err.span is not None:
                span = (located.offset + err.span[0], located.offset + err.span[1])
                err = PxqlError(err.message, span=span, source=source)
            items.append(BatchItem(located.text, error=str(err)))
            continue
        if placeholders == 0:
            items.append(BatchItem(located.text))
        elif not pairs:
            items.append(
                BatchItem(
                    located.text,
                    error=f"the query has {placeholders} '?' placeholder(s) but no --pairs file "
                    "was given"
                    if pairs is None
                    else f"the query has {placeholders} '?' placeholder(s) but the --pairs "
                    "file holds no row of ids",
                )
            )
        else:
            # a row of more ids than the query has ? was bound by its first ones, unsaid (a
            # probe of the CLI)
            items.extend(
                BatchItem(located.text, tuple(pair))
                if len(pair) == placeholders
                else BatchItem(
                    located.text,
                    tuple(pair),
                    error=f"the --pairs row {', '.join(pair)} has {len(pair)} id(s) for the "
                    f"query's {placeholders} '?' placeholder(s)",
                )
                for pair in pairs
            )
    return items


def run_batch(
    session: Any,
    items: Iterable[BatchItem],
    options: ExplainOptions | None = None,
    *,
    progress: bool = False,
    run: str | None = None,
    store: str | None = None,
) -> list[BatchItem]:
    """Answer every item not already failed; user errors are caught per item, bugs are not.
    ``session`` is a :class:`perfx.session.Session`; ``options``, ``run`` and ``store`` go to
    its ``explain``."""
    from rich.progress import track

    items = list(items)
    from perfx.terminal import SafeConsole

    iterator = (
        track(items, description="explaining", transient=True, console=SafeConsole(stderr=True))
        if progress
        else items
    )
    for item in iterator:
        if not item.ok:
            continue
        try:
            item.explanation = session.explain(
                item.query, options, bind=item.binding, run=run, store=store, strict=False
            )
        except user_error_types() as err:
            item.error = str(err)
    return items


@dataclass(frozen=True)
class StragglerQuestions:
    """``WHY TASK '<id>' SLOWER`` for the longest stragglers, and how many there were."""

    queries: list[str]
    total: int

    @property
    def limited(self) -> bool:
        return len(self.queries) < self.total

    def describe(self) -> str:
        """ "the 50 longest of 862 stragglers", or "all 12 stragglers"."""
        if self.limited:
            return f"the {len(self.queries)} longest of {self.total} stragglers"
        return f"all {self.total} straggler{'s' if self.total != 1 else ''}"


def straggler_questions(log: Any, limit: int = 50) -> StragglerQuestions:
    """Questions for the ``limit`` longest stragglers of ``log`` (a Session's ``log``: its
    tasks carry the blocked-time paper's straggler flag, inverse progress rate over 1.5x the
    stage median)."""
    tasks = log.tasks
    stragglers = tasks[tasks["straggler"] == "T"] if "straggler" in tasks else tasks.iloc[0:0]
    slowest = stragglers.sort_values("duration", ascending=False).head(limit)
    return StragglerQuestions(
        [f"WHY TASK '{task_id}' SLOWER" for task_id in slowest["id"]], len(stragglers)
    )
