"""One atom — ``feature [pair feature] op value`` — and what each pair feature accepts.

The grammar hands an atom over as one flat list of tokens (pxql.lark explains why); this
module reads the feature name and pair feature off it, builds the value, and checks the
combination against Table 1 of the paper: isSame takes T/F, compare LT/SIM/GT, diff a pair
``(a, b)``; only numbers are ordered. It runs once per atom of what may be a 10,000-atom
query, so spans beyond the atom's own are computed only when there is an error to report.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from lark import Token

from . import units, vocabulary
from .ast import Atom, Bool, Number, Ordering, Span, String, Value, ValuePair
from .errors import PxqlError
from .names import closest
from .tokens import children_span, error, token_span, unquote

PAIR_OPS = {op.lower(): op for op in vocabulary.PAIR_OPS}
"""Pair features as written in any case -> as the AST spells them."""

_PAIR_SUFFIX = re.compile(r"(.+)[._](issame|compare|diff)", re.IGNORECASE)
_OPS = {
    "=": "=",
    "!=": "!=",
    "≠": "!=",
    "<": "<",
    "<=": "<=",
    "≤": "<=",
    ">": ">",
    ">=": ">=",
    "≥": ">=",
}


def build_atom(children: list) -> Atom:
    """The Atom for the grammar's ``atom`` rule: name tokens, [PAIR_OP], OP, value tokens
    (and, inside a pair, two Located scalars)."""
    op_at = 1
    while children[op_at].type != "OP":
        op_at += 1
    name, pair_op = _feature(children, op_at)
    op = _OPS[children[op_at].value]
    try:
        value = _value(children, op_at + 1)
    except units.NumberError as err:
        raise error(str(err), children_span(children[op_at + 1 :])) from None
    misfit = _misfit(name, pair_op, op, value)
    if misfit is not None:
        raise _misfit_error(misfit, children, op_at)
    first, written = children[0], children[op_at + 1]
    return Atom(
        name,
        pair_op,  # type: ignore[arg-type]
        op,  # type: ignore[arg-type]
        value,
        span=Span(first.start_pos, children[-1].end_pos, first.line, first.column),
        feature_span=Span(first.start_pos, children[op_at - 1].end_pos, first.line, first.column),
        value_span=Span(written.start_pos, children[-1].end_pos, written.line, written.column),
    )


def scalar(tokens: list[Token]) -> Number | String | Bool:
    """NUMBER [UNIT] | STRING | BAREWORD | BOOL. Raises units.NumberError (no span known)."""
    token = tokens[0]
    kind = token.type
    if kind == "NUMBER":
        if len(tokens) == 1:
            return Number(units.normalise(token.value, None))
        unit = units.canonical_unit(tokens[1].value)
        return Number(units.normalise(token.value, unit), unit, units.dimension(unit))
    if kind == "STRING":
        return String(unquote(token))
    if kind == "BAREWORD":
        return String(token.value)
    return Bool(token.value.lower() in ("t", "true"))


def _value(items: list, start: int) -> Value:
    """The value of an atom from ``items[start:]``: a scalar, LT/SIM/GT, or ``(a, b)``."""
    first = items[start]
    if first.type == "ORDERING":
        return Ordering(first.value.upper())
    if first.type == "LPAR":
        return ValuePair(items[start + 1].node, items[start + 3].node)
    return scalar(items[start:])


def _feature(items: list[Token], op_at: int) -> tuple[str, str]:
    """(feature, pair_op) from the tokens before the operator: ``pig script isSame`` ->
    (pig_script, isSame), ``input_bytes_compare`` -> (input_bytes, compare), ``f.diff`` ->
    (f, diff), ``inputsize`` -> (inputsize, base)."""
    end = op_at
    pair_op = "base"
    if items[end - 1].type == "PAIR_OP":
        pair_op = PAIR_OPS[items[end - 1].value.lower()]
        end -= 1
    first = items[0]
    if first.type == "QUOTED_NAME":
        return first.value[1:-1], pair_op
    name = first.value if end == 1 else "_".join(t.value for t in items[:end])
    if pair_op == "base":
        if "_" in name or "." in name:
            suffix = _PAIR_SUFFIX.fullmatch(name)
            if suffix is not None:
                return suffix.group(1), PAIR_OPS[suffix.group(2).lower()]
        elif name.lower() in PAIR_OPS:
            raise error(
                f"'{name}' needs a feature before it (e.g. 'duration {name}')", token_span(first)
            )
    return name, pair_op


_VALUE_TYPES = {"isSame": Bool, "compare": Ordering, "diff": ValuePair}
_VALUE_CHOICES = {"isSame": list(vocabulary.BOOLEANS), "compare": list(vocabulary.ORDERINGS)}
_VALUE_WORDS = {
    "isSame": "T or F",
    "compare": "LT, SIM or GT",
    "diff": "a pair of values (a, b)",
}


class _Misfit(NamedTuple):
    """What is wrong with an atom, and which part of it to underline."""

    message: str
    where: str  # "value", "op" or "last_word"
    suggestions: list[str]


def _misfit(name: str, pair_op: str, op: str, value: Value) -> _Misfit | None:
    """The value and operator each pair feature takes (Table 1 of the paper): isSame is T/F,
    compare is LT/SIM/GT, diff is a pair; only numbers are ordered."""
    wanted = _VALUE_TYPES.get(pair_op)
    if wanted is not None:
        if type(value) is not wanted:
            suggestions: list[str] = []
            if isinstance(value, String) and pair_op in _VALUE_CHOICES:
                suggestions = closest(value.value, _VALUE_CHOICES[pair_op], cutoff=0.5)
            return _Misfit(
                f"'{name} {pair_op}' takes {_VALUE_WORDS[pair_op]}, not {_describe(value)}",
                "value",
                suggestions,
            )
        if op != "=" and op != "!=":
            return _Misfit(
                f"'{name} {pair_op}' can only be compared with = or !=, not {op}", "op", []
            )
        return None
    if isinstance(value, (Ordering, ValuePair)):
        suggestion = _misspelled_pair_op(name)
        if suggestion is not None:
            return _Misfit(f"unknown pair feature '{_last_word(name)}'", "last_word", [suggestion])
        hint = "compare" if isinstance(value, Ordering) else "diff"
        return _Misfit(
            f"{_describe(value)} is a value of '{hint}': write '{name} {hint} {op} ...'",
            "value",
            [],
        )
    if op != "=" and op != "!=" and not isinstance(value, Number):
        return _Misfit(f"{op} needs a number, not {_describe(value)}", "value", [])
    return None


def _misfit_error(misfit: _Misfit, items: list, op_at: int) -> PxqlError:
    if misfit.where == "op":
        span = token_span(items[op_at])
    elif misfit.where == "value":
        span = children_span(items[op_at + 1 :])
    else:
        last = items[op_at - 1]
        cut = max(last.value.rfind("_"), last.value.rfind(".")) + 1
        span = Span(last.start_pos + cut, last.end_pos, last.line, last.column + cut)
    expected = list(PAIR_OPS.values()) if misfit.where == "last_word" else []
    return error(misfit.message, span, suggestions=misfit.suggestions, expected=expected)


def _last_word(name: str) -> str:
    return name.replace(".", "_").rsplit("_", 1)[-1]


@functools.lru_cache(maxsize=4096)
def pair_op_like(word: str) -> str | None:
    """'comare' -> 'compare': the pair feature a misspelled last word of a feature name was
    probably meant to be, or None for a word that is a plausible part of a feature name."""
    if word.lower() in PAIR_OPS or not word.isalpha() or not 3 <= len(word) <= 11:
        return None
    found = closest(word, list(PAIR_OPS.values()), cutoff=0.75)
    return found[0] if found else None


def _misspelled_pair_op(name: str) -> str | None:
    """A base feature given LT/SIM/GT or (a, b) whose last word looks like a pair feature is
    a misspelled pair feature, as the paper's own ``duration comare = SIM``."""
    if "_" not in name and "." not in name:
        return None
    return pair_op_like(_last_word(name))


def _describe(value: Value) -> str:
    if isinstance(value, Number):
        return "a number"
    if isinstance(value, String):
        return f"'{value.value}'"
    if isinstance(value, Bool):
        return "T" if value.value else "F"
    if isinstance(value, Ordering):
        return value.value
    return "a pair of values"
