"""What may come next at the cursor of a half-typed PXQL query.

This is the suggestion logic of the REPL, kept apart from prompt_toolkit (perfx.completer turns
suggestions into completions) so that it can be tested on plain strings. It does not parse:
a query being typed is almost never valid, so it looks only at the last few tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from perfx.grammar.vocabulary import (
    BOOLEANS,
    CLAUSES,
    DIRECTIONS,
    ENTITY_KEYWORDS,
    OPERATOR_SYMBOLS,
    OPERATORS,
    ORDERINGS,
    PAIR_OPS,
)

SuggestionKind = Literal["keyword", "feature", "value", "special", "id"]

_TOKEN = re.compile(
    r"""\s*(?:(?P<string>'[^']*'?|"[^"]*"?)|(?P<op><=|>=|!=|[=<>≠≤≥∧(),?])|(?P<word>[^\s=<>!≠≤≥∧(),'"]+))"""
)

_CONJUNCTIONS = {"and", "∧"}


@dataclass(frozen=True)
class Suggestion:
    """One kind of thing that fits at the cursor: literal ``options`` for keywords and values,
    or a category (``feature``, ``special``, ``id``) that the completer fills from its own
    lists (for ``id``, ``options`` holds the entity whose ids fit)."""

    kind: SuggestionKind
    options: tuple[str, ...] = ()


def _tokens(text: str) -> list[str]:
    return [m.group(m.lastgroup) for m in _TOKEN.finditer(text) if m.lastgroup]


def _after_value() -> list[Suggestion]:
    return [Suggestion("keyword", ("AND", *CLAUSES, "WITH"))]


def suggest(text_before_cursor: str) -> list[Suggestion]:
    """Suggestions for the word being typed at the end of ``text_before_cursor``."""
    stripped = text_before_cursor.lstrip()
    if stripped.startswith("\\"):
        return [Suggestion("special")] if " " not in stripped else []
    tokens = _tokens(text_before_cursor)
    if (
        tokens
        and not text_before_cursor[-1:].isspace()
        and tokens[-1] not in OPERATORS + ("(", ",", "∧")
    ):
        tokens = tokens[:-1]  # the word under the cursor is what we complete
    if not tokens:
        return [Suggestion("keyword", ("WHY", "FOR")), Suggestion("special")]
    last = tokens[-1]
    low = last.lower()
    before = tokens[-2].lower() if len(tokens) > 1 else ""

    if low == "why" or low in {"than", "as"}:
        return [Suggestion("keyword", ENTITY_KEYWORDS)]
    if last.upper() in ENTITY_KEYWORDS and before in {"why", "than", "as"}:
        return [Suggestion("id", (low,))]  # an id of that entity comes next
    if (
        before in {"task", "job", "stage", "app"}
        and len(tokens) > 2
        and tokens[-3].lower() == "why"
    ):
        return [Suggestion("keyword", DIRECTIONS)]
    if low in {"slower", "faster"}:
        return [Suggestion("keyword", ("THAN", "DESPITE", "WITH"))]
    if low == "same":
        return [Suggestion("keyword", ("AS",))]
    if low == "with":
        return [Suggestion("keyword", ("WIDTH", "DESPITE"))]
    if low == "despite" and before == "with":
        return [Suggestion("keyword", ("WIDTH",))]
    if low in {c.lower() for c in CLAUSES} or low in _CONJUNCTIONS:
        return [Suggestion("feature")]
    if before in {c.lower() for c in CLAUSES} or before in _CONJUNCTIONS:
        # `feature` was just typed: a pair-feature suffix or an operator follows.
        return [Suggestion("keyword", PAIR_OPS), Suggestion("keyword", OPERATORS)]
    if low in {p.lower() for p in PAIR_OPS}:
        return [Suggestion("keyword", OPERATORS)]
    if last in OPERATORS or last in OPERATOR_SYMBOLS:
        if before == "compare":
            return [Suggestion("value", ORDERINGS)]
        if before == "issame":
            return [Suggestion("value", BOOLEANS)]
        return []
    return _after_value()


_ENTITY = re.compile(
    r"\bWHY\s+(?P<why>TASK|STAGE|JOB|APP)\b|\b(?P<id>TASK|STAGE|JOB|APP)ID\b", re.IGNORECASE
)


def query_entity(text: str) -> str | None:
    """The entity a half-typed query is about (``task`` for ``WHY TASK 3 ...`` or a full form
    naming ``T1.TaskID``), or None while it does not say: completion then offers only that
    entity's features (a TASK query is not offered the stage aggregate ``gc_time_sum``)."""
    found = _ENTITY.search(text)
    if found is None:
        return None
    return (found["why"] or found["id"]).lower()
