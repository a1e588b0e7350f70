"""PXQL syntax highlighting for the REPL: which style each stretch of a query being typed has.

``styled`` is plain logic over strings (tested without a terminal); ``PxqlLexer`` hands its
fragments to prompt_toolkit. Like perfx.suggest it does not parse (a query being typed is
almost never valid): it tokenizes with the same token pattern and names words with PXQL's
vocabulary, so an id after ``TASK`` or a feature name after a clause is told from a keyword
the way the grammar tells them (unreserved keywords such as ``TASK`` are keywords only in
their place).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.lexers import Lexer

from perfx.grammar.vocabulary import (
    BOOLEANS,
    ENTITY_KEYWORDS,
    OPERATOR_SYMBOLS,
    OPERATORS,
    ORDERINGS,
    PAIR_OPS,
    RESERVED,
)

STYLES = {
    "keyword": "ansiblue bold",
    "feature": "ansicyan",
    "pair-op": "ansimagenta",
    "operator": "ansiyellow",
    "string": "ansigreen",
    "number": "ansigreen",
    "value": "ansigreen",
    "comment": "ansibrightblack italic",
    "special": "ansimagenta bold",
    "text": "",
}
"""prompt_toolkit style of each kind of token (``class:pxql.KIND``)."""

_TOKEN = re.compile(
    r"""(?P<space>\s+)|(?P<comment>--[^\n]*)|(?P<string>'(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?)"""
    r"""|(?P<op><=|>=|!=|[=<>≠≤≥∧(),?.])|(?P<word>[^\s=<>!≠≤≥∧(),.'"]+)"""
)
_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?(?:[a-zA-Z%]+)?")
_ENTITIES = {word.lower() for word in ENTITY_KEYWORDS}
_PAIR_OPS = {op.lower() for op in PAIR_OPS}
_VALUES = {v.lower() for v in (*ORDERINGS, *BOOLEANS)}
_OPERATORS = set(OPERATORS) | set(OPERATOR_SYMBOLS) | {"∧"}
_ID_BEFORE = {"why", "than", "as"}
"""An entity keyword after these is followed by an id, not a keyword."""


def styled(text: str) -> list[tuple[str, str]]:
    """``(kind, text)`` pieces that together are ``text``; kinds are the keys of STYLES."""
    if text.lstrip().startswith("\\"):
        command, space, rest = text.partition(" ")
        return [("special", command)] + ([("text", space + rest)] if space else [])
    pieces: list[tuple[str, str]] = []
    words: list[str] = []  # the tokens so far (spaces and comments aside), lower case
    at = 0
    for found in _TOKEN.finditer(text):
        if found.start() > at:
            pieces.append(("text", text[at : found.start()]))
        at = found.end()
        kind, token = found.lastgroup or "text", found.group()
        if kind == "word":
            kind = _word_kind(token, words)
        elif kind == "op":
            kind = "operator" if token in _OPERATORS else "text"
        elif kind == "space":
            kind = "text"
        if kind not in ("text", "comment") or token.strip():
            words.append(token.lower())
        pieces.append((kind, token))
    if at < len(text):
        pieces.append(("text", text[at:]))
    return pieces


def _word_kind(word: str, before: list[str]) -> str:
    low = word.lower()
    previous = before[-1] if before else ""
    if low in _ENTITIES:
        # TASK after WHY/THAN/AS, or a bare entity keyword at the start, is a keyword;
        # elsewhere (a feature named like one) it is a feature
        return "keyword" if previous in _ID_BEFORE or previous == "" else "feature"
    if previous in _ENTITIES and len(before) > 1 and before[-2] in _ID_BEFORE:
        return "number" if _NUMBER.fullmatch(word) else "value"  # the id
    if low in RESERVED or (low == "width" and previous in {"with", "despite"}):
        return "keyword"
    if low in _PAIR_OPS:
        return "pair-op"
    if _NUMBER.fullmatch(word):
        return "number"
    if low in _VALUES and previous in _OPERATORS:
        return "value"
    return "feature"


class PxqlLexer(Lexer):
    """prompt_toolkit's view of ``styled``: one line's fragments at a time."""

    def lex_document(self, document: Document) -> Callable[[int], StyleAndTextTuples]:
        lines = document.lines

        def line(number: int) -> StyleAndTextTuples:
            if number >= len(lines):
                return []
            return [(f"class:pxql.{kind}", piece) for kind, piece in styled(lines[number])]

        return line


def style():
    """The REPL's prompt_toolkit Style for the classes PxqlLexer gives."""
    from prompt_toolkit.styles import Style

    return Style.from_dict({f"pxql.{kind}": value for kind, value in STYLES.items() if value})
