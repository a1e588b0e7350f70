"""Property tests: whatever the input, parse() raises nothing but PxqlError (and never its
"internal error" form); every query the strategies build prints and parses back to itself.

Derandomized, so CI sees the same 5,700 examples on every run.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfx.grammar import units
from perfx.grammar.ast import (
    Atom,
    Bool,
    EntityId,
    Number,
    Ordering,
    Predicate,
    Query,
    String,
    ValuePair,
)
from perfx.grammar.atoms import pair_op_like
from perfx.grammar.errors import PxqlError
from perfx.grammar.parser import parse
from perfx.grammar.printer import to_pxql

from .golden import FIXTURES, read_errors, read_sections

pytestmark = pytest.mark.slow  # hypothesis: hundreds of generated queries per test

SEEDS = list(read_sections(FIXTURES / "valid.pxql").values()) + [
    q for q, _ in read_errors(FIXTURES / "errors.txt").values()
]
VOCABULARY = [
    "FOR",
    "WHERE",
    "DESPITE",
    "OBSERVED",
    "EXPECTED",
    "WITH",
    "WIDTH",
    "WHY",
    "TASK",
    "JOB",
    "STAGE",
    "APP",
    "SLOWER",
    "FASTER",
    "SAME",
    "THAN",
    "AS",
    "AND",
    "and",
    "∧",
    "isSame",
    "compare",
    "diff",
    "_isSame",
    ".compare",
    "T",
    "F",
    "LT",
    "SIM",
    "GT",
    "=",
    "!=",
    "≠",
    "<",
    "<=",
    "≤",
    ">",
    ">=",
    "≥",
    "(",
    ")",
    ",",
    "?",
    "'",
    '"',
    "`",
    "--",
    "\n",
    " ",
    "T1",
    "T2",
    "T1.TaskID",
    "J2.JobID",
    "33",
    "app-1/33",
    "128MB",
    "1.5 GB",
    "300ms",
    "1e999",
    "-0",
    "x",
    "duration",
    "pig script",
    "\\",
    "\u200b",
    "é",
    "名",
    "\x00",
    "\r",
]
FAST = settings(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def examples(n: int) -> settings:
    return settings(FAST, max_examples=n)


def parses_or_fails_cleanly(text) -> None:
    try:
        parse(text)
    except PxqlError as err:
        assert not err.message.startswith("internal error"), err.message
        str(err)  # the rendering itself must not fail either


@examples(1500)
@given(st.text(max_size=200))
def test_random_unicode_text(text: str) -> None:
    parses_or_fails_cleanly(text)


@examples(300)
@given(st.binary(max_size=200))
def test_random_bytes(data: bytes) -> None:
    parses_or_fails_cleanly(data)


@examples(1500)
@given(st.lists(st.sampled_from(VOCABULARY) | st.text(max_size=3), max_size=40).map(" ".join))
def test_token_soup(text: str) -> None:
    parses_or_fails_cleanly(text)


_PIECES = re.compile(r"\s+|\w+|.", re.DOTALL)


@st.composite
def mutated_queries(draw) -> str:
    """A valid (or known-bad) query with 1-4 tokens or characters inserted, deleted,
    replaced or duplicated: most mutants are almost right, which is where parsers break."""
    pieces = _PIECES.findall(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(pieces)))
        action = draw(st.sampled_from(["insert", "delete", "replace", "duplicate", "char"]))
        new = draw(st.sampled_from(VOCABULARY) | st.characters())
        if action == "insert" or not pieces:
            pieces.insert(at, new)
        elif at < len(pieces) and action == "delete":
            del pieces[at]
        elif at < len(pieces) and action == "replace":
            pieces[at] = new
        elif at < len(pieces) and action == "duplicate":
            pieces.insert(at, pieces[at])
        elif at < len(pieces):
            piece = pieces[at]
            cut = draw(st.integers(0, len(piece)))
            pieces[at] = piece[:cut] + new[:1] + piece[cut + 1 :]
    return "".join(pieces)


@examples(2000)
@given(mutated_queries())
def test_mutated_queries(text: str) -> None:
    parses_or_fails_cleanly(text)


# ---- generated syntax trees round-trip through the printer --------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_words = st.tuples(st.sampled_from(_LETTERS), st.text(_LETTERS + "0123456789_.", max_size=8)).map(
    "".join
)
features = (
    _words | st.text(st.characters(exclude_characters="`\n"), min_size=1, max_size=12)
).filter(lambda name: pair_op_like(re.split(r"[\s_.]", name)[-1]) is None)
scalars = st.one_of(
    st.builds(lambda s: String(s), st.text(max_size=12)),
    st.builds(Bool, st.booleans()),
    st.builds(Number, st.floats(allow_nan=False, allow_infinity=False)),
    st.tuples(st.floats(-1e6, 1e6), st.sampled_from(units.UNITS)).map(
        lambda t: Number(units.normalise(repr(t[0]), t[1]), t[1], units.dimension(t[1]))
    ),
    st.tuples(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(units.UNITS)).map(
        lambda t: Number(t[0], t[1], units.dimension(t[1]))
    ),
)


@st.composite
def atoms(draw) -> Atom:
    feature = draw(features)
    pair_op = draw(st.sampled_from(["isSame", "compare", "diff", "base"]))
    equality = st.sampled_from(["=", "!="])
    if pair_op == "isSame":
        return Atom(feature, "isSame", draw(equality), Bool(draw(st.booleans())))
    if pair_op == "compare":
        return Atom(
            feature, "compare", draw(equality), Ordering(draw(st.sampled_from(["LT", "SIM", "GT"])))
        )
    if pair_op == "diff":
        return Atom(feature, "diff", draw(equality), ValuePair(draw(scalars), draw(scalars)))
    value = draw(scalars)
    ops = ["=", "!=", "<", "<=", ">", ">="] if isinstance(value, Number) else ["=", "!="]
    return Atom(feature, "base", draw(st.sampled_from(ops)), value)


predicates = st.lists(atoms(), min_size=1, max_size=4).map(lambda a: Predicate(tuple(a)))
entity_ids = st.one_of(st.just(EntityId(None)), st.text(min_size=1, max_size=12).map(EntityId))


@st.composite
def queries(draw) -> Query:
    variables = draw(
        st.lists(_words.map(lambda w: w.replace(".", "")), min_size=2, max_size=2, unique=True)
    )
    observed = draw(predicates)
    expected = draw(predicates.filter(lambda p: set(p.atoms) != set(observed.atoms)))
    # a BECAUSE of no predicate explains nothing; a DESPITE WIDTH 0 generates none
    widths, despite_widths = st.none() | st.integers(1, 1000), st.none() | st.integers(0, 1000)
    return Query(
        draw(st.sampled_from(["app", "job", "stage", "task"])),
        tuple(variables),
        draw(entity_ids),
        draw(st.none() | entity_ids),
        despite=draw(st.just(Predicate()) | predicates),
        observed=observed,
        expected=expected,
        width=draw(widths),
        despite_width=draw(despite_widths),
    )


@examples(400)
@given(queries())
def test_printed_queries_parse_back_to_themselves(query: Query) -> None:
    assert parse(to_pxql(query)) == query
