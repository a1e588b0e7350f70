"""The words of PXQL, each spelled once for Python code: what the parser's errors offer, the
printer keeps out of bare names, and the REPL completes. pxql.lark spells the same words
for the grammar (tests/grammar checks that the two agree)."""

from __future__ import annotations

ENTITY_KEYWORDS = ("TASK", "JOB", "STAGE", "APP")
CLAUSES = ("DESPITE", "OBSERVED", "EXPECTED")
DIRECTIONS = ("SLOWER", "FASTER", "SAME")
"""What follows ``WHY TASK 33``."""
KEYWORDS = (
    "FOR",
    "WHERE",
    *CLAUSES,
    "WITH",
    "WIDTH",
    "WHY",
    *DIRECTIONS,
    "THAN",
    "AS",
    *ENTITY_KEYWORDS,
    "AND",
)
UNRESERVED_KEYWORDS = (*ENTITY_KEYWORDS, "WIDTH")
"""Keywords that may also be a feature name or a bare id (only in their place are they
keywords)."""
RESERVED = frozenset(word.lower() for word in KEYWORDS if word not in UNRESERVED_KEYWORDS)
"""Words that never lex as a feature name or a bare id (pxql.lark's _UNRESERVED)."""

PAIR_OPS = ("isSame", "compare", "diff")
OPERATORS = ("=", "!=", "<", "<=", ">", ">=")
OPERATOR_SYMBOLS = ("≠", "≤", "≥")
"""The same operators as ``OPERATORS``' !=, <=, >=, as the paper prints them."""
ORDERINGS = ("LT", "SIM", "GT")
BOOLEANS = ("T", "F")
