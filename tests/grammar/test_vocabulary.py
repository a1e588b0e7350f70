"""PXQL's words are spelled twice, once for the grammar (pxql.lark) and once for Python code
(grammar/vocabulary.py, which the parser's errors, the printer and the REPL's completion use):
the two must agree."""

from __future__ import annotations

import re

from perfx.grammar import vocabulary
from perfx.grammar.parser import GRAMMAR

LARK = GRAMMAR.read_text(encoding="utf-8")


def _alternatives(terminal: str) -> list[str]:
    """The words of a ``NAME.2: /(?:a|b|c)(?!\\w)/i`` terminal."""
    match = re.search(rf"^{terminal}\.2: /\(\?:([a-z|]+)\)", LARK, re.M)
    assert match is not None, terminal
    return match.group(1).split("|")


def test_keywords_are_the_grammars_keyword_terminals():
    single_words = {
        name
        # guarded against a longer word, or (an entity) against the rest of an id
        for name, word in re.findall(
            r"^([A-Z]+)\.2: /([a-z]+)\(\?!(?:\\w|\[[^\]]+\])\)", LARK, re.M
        )
        if word == name.lower()
    }
    assert single_words | {"AND"} == set(vocabulary.KEYWORDS)
    assert re.search(r"^AND\.2: /and\(\?!\\w\)", LARK, re.M)


def test_reserved_words_are_the_grammars_unreserved_lookahead():
    match = re.search(r"^_UNRESERVED: /\(\?!\(\?i:([a-z|]+)\)", LARK, re.M)
    assert match is not None
    assert set(match.group(1).split("|")) == vocabulary.RESERVED


def test_pair_features_orderings_and_booleans():
    assert _alternatives("PAIR_OP") == [op.lower() for op in vocabulary.PAIR_OPS]
    assert _alternatives("ORDERING") == [o.lower() for o in vocabulary.ORDERINGS]
    assert {b.lower() for b in vocabulary.BOOLEANS} <= set(_alternatives("BOOL"))


def test_operators():
    match = re.search(r"^OP: /!=\|<=\|>=\|\[([^\]]+)\]/", LARK, re.M)
    assert match is not None
    singles = set(match.group(1))
    assert set(vocabulary.OPERATORS) == {"!=", "<=", ">="} | (singles - set("≠≤≥"))
    assert set(vocabulary.OPERATOR_SYMBOLS) == singles & set("≠≤≥")
