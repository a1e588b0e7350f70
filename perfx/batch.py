"""``perfx batch``: answer a file of PXQL queries (or one per straggler) against one log.

A query with ``?`` placeholders is answered once per row of a pairs file. Each answer or
failure becomes a :class:`BatchItem`; a failed query is reported as failed, never dropped,
so a report with failures can't pass for a complete one.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cli import user_error_types


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

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "binding": list(self.binding),
            "explanation": self.explanation.to_dict() if self.explanation is not None else None,
            "error": self.error,
        }


def split_queries(text: str) -> list[str]:
    """Split a ``.pxql`` file on ``;`` outside quotes and ``--`` comments; drop empty parts
    and comment-only lines."""
    queries, current, quote, comment = [], [], "", False
    for char in text:
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
            queries.append("".join(current))
            current = []
            continue
        current.append(char)
    queries.append("".join(current))
    return [code for q in queries if (code := _code(q))]


def _code(query: str) -> str:
    """The query without its comment-only lines (they would clutter the report's headings)."""
    return "\n".join(line for line in query.splitlines() if line.split("--", 1)[0].strip()).strip()


def read_pairs(path: str | Path) -> list[tuple[str, ...]]:
    """Rows of a CSV of ids to bind to placeholders (a header row of non-ids is skipped)."""
    with open(path, newline="") as handle:
        rows = [
            tuple(cell.strip() for cell in row)
            for row in csv.reader(handle)
            if any(c.strip() for c in row)
        ]
    if rows and rows[0] and rows[0][0].lower() in {"first", "t1", "j1", "id", "task", "job"}:
        rows = rows[1:]
    return rows


def expand(
    queries: Sequence[str], pairs: Sequence[tuple[str, ...]]
) -> list[tuple[str, tuple[str, ...]]]:
    """(query, binding) for every query; placeholder queries once per pair."""
    from perfx.grammar.parser import parse

    jobs: list[tuple[str, tuple[str, ...]]] = []
    for query in queries:
        placeholders = parse(query).placeholders
        if placeholders == 0:
            jobs.append((query, ()))
            continue
        if not pairs:
            raise ValueError(
                f"a query has {placeholders} '?' placeholder(s) but no --pairs file was given"
            )
        jobs.extend((query, tuple(pair[:placeholders])) for pair in pairs)
    return jobs


def run_batch(
    log, jobs: Iterable[tuple[str, tuple[str, ...]]], *, progress: bool = False, **options: Any
) -> list[BatchItem]:
    """Answer every (query, binding); user errors are caught per item, bugs are not."""
    from rich.progress import track

    from perfx.chain import explain

    jobs = list(jobs)
    items = []
    iterator = track(jobs, description="explaining", transient=True) if progress else jobs
    for query, binding in iterator:
        item = BatchItem(query, binding)
        try:
            item.explanation = explain(log, query, bind=binding, strict=False, **options)
        except user_error_types() as err:
            item.error = str(err)
        items.append(item)
    return items


def straggler_questions(log, limit: int = 50) -> list[str]:
    """``WHY TASK '<id>' SLOWER`` for the ``limit`` longest stragglers of the log (by the
    blocked-time paper's rule: inverse progress rate over 1.5x the stage median), in a log
    loaded by ``perfx.questions.load_for_questions``."""
    tasks = log.tasks  # straggler flags from add_straggler_features (perfx.questions)
    slowest = tasks[tasks["straggler"] == "T"].sort_values("duration", ascending=False).head(limit)
    return [f"WHY TASK '{task_id}' SLOWER" for task_id in slowest["id"]]
