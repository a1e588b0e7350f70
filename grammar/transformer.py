"""From lark's parse of pxql.lark to the typed AST of ast.py, with the syntactic checks that
need nothing but the query itself.

``ToAst`` runs inside lark's LALR parser (``Lark(transformer=...)``): each rule is turned into
AST nodes the moment it is reduced, so no parse tree is built — this is what keeps a
10,000-atom query well under a second. It therefore holds no per-parse state; checks that
depend on the caller's feature list run afterwards (checks.py).

Every problem found here raises PxqlError with the span of the offending text; parse()
attaches the source text so that the error can show a caret.
"""

from __future__ import annotations

import difflib
import functools
import re
from typing import NamedTuple

from lark import Token, Transformer

from . import units
from .ast import (
    ENTITY_ID_FIELDS,
    Atom,
    Bool,
    EntityId,
    EntityKind,
    Number,
    Ordering,
    Predicate,
    Query,
    Span,
    String,
    Value,
    ValuePair,
)
from .errors import PxqlError

MAX_WIDTH = 1000
"""Widths beyond this are typos: no log has a thousand features worth predicating on."""

ID_FIELD_NAMES: dict[str, str] = {"app": "AppID", "job": "JobID", "stage": "StageID", "task": "TaskID"}
"""Entity kind -> its id field as the canonical printer writes it."""

VARIABLE_PREFIX: dict[str, EntityKind] = {"A": "app", "J": "job", "S": "stage", "T": "task"}
"""``FOR T1, T2`` with no WHERE: the variables' initial says what they range over."""

PAIR_OPS = {"issame": "isSame", "compare": "compare", "diff": "diff"}
_PAIR_SUFFIX = re.compile(r"(.+)[._](issame|compare|diff)", re.IGNORECASE)

_OPS = {"=": "=", "!=": "!=", "≠": "!=", "<": "<", "<=": "<=", "≤": "<=", ">": ">", ">=": ">=", "≥": ">="}
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t"}

SUGAR: dict[str, tuple[str, str]] = {
    "slower": ("GT", "SIM"),
    "faster": ("LT", "SIM"),
    "same": ("SIM", "GT"),
}
"""WHY ... SLOWER/FASTER/SAME -> (OBSERVED, EXPECTED) values of ``duration compare``.
SAME follows the paper's example 1 (Figure 1, query 1): the durations were similar although
the first execution was expected to be slower."""


class Located(NamedTuple):
    """A value with where it was written: values carry no span in the AST, but errors about
    them must point at them."""

    node: object
    span: Span


def token_span(token: Token) -> Span:
    return Span(token.start_pos, token.end_pos, token.line, token.column)


def join(first: Span, last: Span) -> Span:
    return Span(first.start, last.end, first.line, first.column)


def span_of(item: object) -> Span:
    if isinstance(item, Token):
        return token_span(item)
    if isinstance(item, Located):
        return item.span
    return item.span  # type: ignore[attr-defined]


def children_span(children: list) -> Span:
    return join(span_of(children[0]), span_of(children[-1]))


def error(message: str, span: Span, **kwargs) -> PxqlError:
    return PxqlError(message, span=(span.start, span.end), **kwargs)


def closest(word: str, choices: list[str], cutoff: float = 0.6) -> list[str]:
    """Did-you-mean candidates for ``word`` among ``choices``, case-insensitively."""
    by_key = {c.lower(): c for c in choices}
    return [by_key[m] for m in difflib.get_close_matches(word.lower(), list(by_key), n=3, cutoff=cutoff)]


def unquote(token: Token) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), token.value[1:-1])


class _Binding(NamedTuple):
    variable: str
    kind: EntityKind
    entity: EntityId
    span: Span


class _Where(NamedTuple):
    bindings: list[_Binding]
    span: Span


class _For(NamedTuple):
    variables: tuple[str, str]
    bindings: list[_Binding]
    span: Span


class _Clause(NamedTuple):
    name: str
    predicate: Predicate
    span: Span


class _Option(NamedTuple):
    name: str
    width: int
    span: Span


class _With(NamedTuple):
    options: list[_Option]
    span: Span


class _Reference(NamedTuple):
    entity: Located | None
    id: EntityId
    span: Span


class _Direction(NamedTuple):
    name: str
    keyword: Span
    reference: _Reference | None
    span: Span


class ToAst(Transformer):
    """lark callbacks, one per rule of pxql.lark, building ast.py nodes."""

    # ---- atoms and predicates ------------------------------------------------------------

    def scalar(self, children: list[Token]) -> Located:
        try:
            return Located(_scalar(children), children_span(children))
        except units.NumberError as err:
            raise error(str(err), children_span(children)) from None

    def atom(self, children: list) -> Atom:
        """``feature [pair feature] op value``, flattened by the grammar into one list of
        tokens (and, inside a pair, two Located scalars). This runs once per atom of a
        possibly huge query, so spans other than the atom's and its feature's are only
        computed when there is an error to report."""
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
        first = children[0]
        return Atom(
            name,
            pair_op,  # type: ignore[arg-type]
            op,  # type: ignore[arg-type]
            value,
            span=Span(first.start_pos, children[-1].end_pos, first.line, first.column),
            feature_span=Span(first.start_pos, children[op_at - 1].end_pos, first.line, first.column),
        )

    def predicate(self, children: list) -> Predicate:
        atoms = tuple(c for c in children if isinstance(c, Atom))
        return Predicate(atoms, span=join(atoms[0].span, atoms[-1].span))  # type: ignore[arg-type]

    def despite(self, children: list) -> _Clause:
        return _Clause("despite", children[1], children_span(children))

    def observed(self, children: list) -> _Clause:
        return _Clause("observed", children[1], children_span(children))

    def expected(self, children: list) -> _Clause:
        return _Clause("expected", children[1], children_span(children))

    # ---- WITH options --------------------------------------------------------------------

    def width(self, children: list[Token]) -> _Option:
        return _Option("width", _width(children[-1]), children_span(children))

    def despite_width(self, children: list[Token]) -> _Option:
        return _Option("despite_width", _width(children[-1]), children_span(children))

    def with_clause(self, children: list) -> _With:
        return _With([c for c in children if isinstance(c, _Option)], children_span(children))

    # ---- the FOR clause ------------------------------------------------------------------

    def entity_id(self, children: list[Token]) -> EntityId:
        token = children[0]
        span = token_span(token)
        if token.type == "QMARK":
            return EntityId(None, span=span)
        text = unquote(token) if token.type == "STRING" else token.value
        if not text:
            raise error("an id cannot be empty (use ? for one bound later)", span)
        return EntityId(text, span=span)

    def binding(self, children: list) -> _Binding:
        qualified, _eq, entity = children
        variable, field_name = qualified.value.split(".")
        kind = ENTITY_ID_FIELDS.get(field_name.lower())
        if kind is None:
            field_start = qualified.start_pos + len(variable) + 1
            field_span = Span(field_start, qualified.end_pos, qualified.line, qualified.column + len(variable) + 1)
            raise error(
                f"unknown id field '{field_name}'",
                field_span,
                suggestions=closest(field_name, list(ID_FIELD_NAMES.values())),
                expected=list(ID_FIELD_NAMES.values()),
            )
        return _Binding(variable, kind, entity, join(token_span(qualified), entity.span))  # type: ignore[arg-type]

    def where(self, children: list) -> _Where:
        return _Where([c for c in children if isinstance(c, _Binding)], children_span(children))

    def for_clause(self, children: list) -> _For:
        first, second = children[1], children[3]
        if first.value == second.value:
            raise error(f"the two variables must differ, but both are called '{first.value}'", token_span(second))
        bindings = children[4].bindings if len(children) > 4 else []
        return _For((first.value, second.value), bindings, children_span(children))

    # ---- whole queries -------------------------------------------------------------------

    def query(self, children: list) -> Query:
        for_clause = children[0] if isinstance(children[0], _For) else None
        clauses = {c.name: c for c in children if isinstance(c, _Clause)}
        options = [o for c in children if isinstance(c, _With) for o in c.options]
        observed, expected = clauses["observed"], clauses["expected"]
        if set(observed.predicate.atoms) == set(expected.predicate.atoms):
            raise error(
                "EXPECTED says the same as OBSERVED: no pair can satisfy one and not the other",
                expected.span,
            )
        entity, variables, first, second = _resolve_for(for_clause)
        despite = clauses.get("despite")
        return Query(
            entity,
            variables,
            first,
            second,
            despite=despite.predicate if despite else Predicate(),
            observed=observed.predicate,
            expected=expected.predicate,
            span=children_span(children),
            **_options(options),
        )

    def entity(self, children: list[Token]) -> Located:
        return Located(children[0].value.lower(), token_span(children[0]))

    def reference(self, children: list) -> _Reference:
        return _Reference(children[0] if len(children) == 2 else None, children[-1], children_span(children))

    def slower(self, children: list) -> _Direction:
        return _direction("slower", children)

    def faster(self, children: list) -> _Direction:
        return _direction("faster", children)

    def same(self, children: list) -> _Direction:
        return _direction("same", children)

    def why(self, children: list) -> Query:
        entity, first, direction = children[1], children[2], children[3]
        kind: EntityKind = entity.node
        second = None
        if direction.reference is not None:
            ref_entity, second, _ = direction.reference
            if ref_entity is not None and ref_entity.node != kind:
                raise error(
                    f"cannot compare a {kind} with a {ref_entity.node}: write {kind.upper()} here",
                    ref_entity.span,
                )
        despite = next((c.predicate for c in children if isinstance(c, _Clause)), Predicate())
        options = [o for c in children if isinstance(c, _With) for o in c.options]
        observed_value, expected_value = SUGAR[direction.name]
        prefix = kind[0].upper()
        return Query(
            kind,
            (f"{prefix}1", f"{prefix}2"),
            first,
            second,
            despite=despite,
            observed=_duration_compare(observed_value, direction.keyword),
            expected=_duration_compare(expected_value, direction.keyword),
            span=children_span(children),
            **_options(options),
        )


def _scalar(tokens: list[Token]) -> Number | String | Bool:
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
    return _scalar(items[start:])


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
            raise error(f"'{name}' needs a feature before it (e.g. 'duration {name}')", token_span(first))
    return name, pair_op


def _direction(name: str, children: list) -> _Direction:
    keyword = token_span(children[0])
    reference = children[-1] if len(children) > 1 else None
    return _Direction(name, keyword, reference, children_span(children))


def _duration_compare(value: str, span: Span) -> Predicate:
    """The sugar's OBSERVED/EXPECTED clause, positioned at the SLOWER/FASTER/SAME keyword so
    that a later check rejecting it points at the word the user wrote."""
    atom = Atom("duration", "compare", "=", Ordering(value), span=span, feature_span=span)  # type: ignore[arg-type]
    return Predicate((atom,), span=span)


def _width(token: Token) -> int:
    text = token.value.lstrip("+")
    if not text.isdigit():
        raise error(f"a width is a whole number of predicates (0 or more), not {token.value}", token_span(token))
    if len(text) > 4 or int(text) > MAX_WIDTH:
        raise error(f"width {text} is too large (at most {MAX_WIDTH})", token_span(token))
    return int(text)


def _options(options: list[_Option]) -> dict[str, int]:
    chosen: dict[str, int] = {}
    for option in options:
        if option.name in chosen:
            words = "WIDTH" if option.name == "width" else "DESPITE WIDTH"
            raise error(f"{words} is given twice", option.span)
        chosen[option.name] = option.width
    return chosen


def _resolve_for(for_clause: _For | None) -> tuple[EntityKind, tuple[str, str], EntityId, EntityId | None]:
    """(entity kind, variables, first id, second id) from the FOR clause.

    * no FOR clause (as in the paper's Figure 1): jobs J1, J2, both ``?``;
    * ``FOR T1, T2`` without WHERE (as in section 6.2): both ``?``, the kind from the
      variables' initial (A, J, S, T);
    * with WHERE: the kind from the id fields; an unbound second variable means that perfx
      picks the reference execution (second is None)."""
    if for_clause is None:
        return "job", ("J1", "J2"), EntityId(None), EntityId(None)
    variables = for_clause.variables
    if not for_clause.bindings:
        kinds = {VARIABLE_PREFIX.get(v[:1].upper()) for v in variables}
        kind = kinds.pop() if len(kinds) == 1 else None
        if kind is None:
            a, b = variables
            raise error(
                f"cannot tell whether {a} and {b} are apps, jobs, stages or tasks: "
                f"add WHERE {a}.TaskID = ? AND {b}.TaskID = ? (or JobID, StageID, AppID)",
                for_clause.span,
            )
        return kind, variables, EntityId(None), EntityId(None)
    bound: dict[str, _Binding] = {}
    for binding in for_clause.bindings:
        if binding.variable not in variables:
            raise error(
                f"unknown variable '{binding.variable}': the FOR clause names {variables[0]} and {variables[1]}",
                binding.span,
                suggestions=closest(binding.variable, list(variables), cutoff=0.3),
            )
        if binding.variable in bound:
            raise error(f"{binding.variable} is bound twice", binding.span)
        first_kind = next(iter(bound.values())).kind if bound else binding.kind
        if binding.kind != first_kind:
            raise error(
                f"{binding.variable} is bound to a {binding.kind} id but the other variable to a {first_kind} id",
                binding.span,
            )
        bound[binding.variable] = binding
    first, second = variables
    if first not in bound:
        raise error(
            f"{first} is not bound: add {first}.{ID_FIELD_NAMES[bound[second].kind]} = <id> (or ?)",
            for_clause.span,
        )
    kind = bound[first].kind
    return kind, variables, bound[first].entity, bound[second].entity if second in bound else None


_VALUE_TYPES = {"isSame": Bool, "compare": Ordering, "diff": ValuePair}
_VALUE_CHOICES = {"isSame": ["T", "F"], "compare": ["LT", "SIM", "GT"]}
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
                f"'{name} {pair_op}' takes {_VALUE_WORDS[pair_op]}, not {_describe(value)}", "value", suggestions
            )
        if op != "=" and op != "!=":
            return _Misfit(f"'{name} {pair_op}' can only be compared with = or !=, not {op}", "op", [])
        return None
    if isinstance(value, (Ordering, ValuePair)):
        suggestion = _misspelled_pair_op(name)
        if suggestion is not None:
            return _Misfit(f"unknown pair feature '{_last_word(name)}'", "last_word", [suggestion])
        hint = "compare" if isinstance(value, Ordering) else "diff"
        return _Misfit(f"{_describe(value)} is a value of '{hint}': write '{name} {hint} {op} ...'", "value", [])
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
