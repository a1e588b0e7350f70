"""Clause-level rules: the FOR clause's variables and bindings, the WITH options, and the
expansion of the WHY sugar into OBSERVED/EXPECTED clauses."""

from __future__ import annotations

from typing import Literal, NamedTuple, TypedDict

from lark import Token

from .ast import ID_FIELD_NAMES, Atom, EntityId, EntityKind, Ordering, Predicate, Span
from .names import closest
from .tokens import error, token_span

MAX_WIDTH = 1000
"""Widths beyond this are typos: no log has a thousand features worth predicating on."""


VARIABLE_PREFIX: dict[str, EntityKind] = {"A": "app", "J": "job", "S": "stage", "T": "task"}
"""``FOR T1, T2`` with no WHERE: the variables' initial says what they range over."""

SUGAR: dict[str, tuple[str, str]] = {
    "slower": ("GT", "SIM"),
    "faster": ("LT", "SIM"),
    "same": ("SIM", "GT"),
}
"""WHY ... SLOWER/FASTER/SAME -> (OBSERVED, EXPECTED) values of ``duration compare``.
SAME follows the paper's example 1 (Figure 1, query 1): the durations were similar although
the first execution was expected to be slower."""


class Binding(NamedTuple):
    """``T1.TaskID = 33`` in a WHERE clause."""

    variable: str
    kind: EntityKind
    entity: EntityId
    span: Span


class Option(NamedTuple):
    """``WIDTH 3`` or ``DESPITE WIDTH 2`` in a WITH clause."""

    name: Literal["width", "despite_width"]
    width: int
    span: Span


def duration_compare(value: str, span: Span) -> Predicate:
    """The sugar's OBSERVED/EXPECTED clause, positioned at the SLOWER/FASTER/SAME keyword so
    that a later check rejecting it points at the word the user wrote."""
    atom = Atom("duration", "compare", "=", Ordering(value), span=span, feature_span=span)  # type: ignore[arg-type]
    return Predicate((atom,), span=span)


def width(token: Token, least: int) -> int:
    """The n of ``WIDTH n`` (``least`` 1: a BECAUSE of no predicate explains nothing) or of
    ``DESPITE WIDTH n`` (``least`` 0: generate no DESPITE): a whole number up to MAX_WIDTH."""
    text = token.value.lstrip("+")
    if not text.isdigit() or int(text) < least:
        raise error(
            f"a width is a whole number of predicates ({least} or more), not {token.value}",
            token_span(token),
        )
    if len(text) > 4 or int(text) > MAX_WIDTH:
        raise error(f"width {text} is too large (at most {MAX_WIDTH})", token_span(token))
    return int(text)


class Widths(TypedDict, total=False):
    """The Query keyword arguments the WITH options set."""

    width: int
    despite_width: int


def options(chosen_options: list[Option]) -> Widths:
    """Query keyword arguments (width, despite_width) from the WITH options, each at most once."""
    chosen = Widths()
    for option in chosen_options:
        if option.name in chosen:
            words = "WIDTH" if option.name == "width" else "DESPITE WIDTH"
            raise error(f"{words} is given twice", option.span)
        if option.name == "width":
            chosen["width"] = option.width
        else:
            chosen["despite_width"] = option.width
    return chosen


def resolve_for(
    variables: tuple[str, str], bindings: list[Binding], span: Span
) -> tuple[EntityKind, EntityId, EntityId | None]:
    """(entity kind, first id, second id) of ``FOR variables [WHERE bindings]``.

    * ``FOR T1, T2`` without WHERE (as in the paper's section 6.2): both ``?``, the kind
      from the variables' initial (A, J, S, T);
    * with WHERE: the kind from the id fields; an unbound second variable means that perfx
      picks the reference execution (second is None).

    (With no FOR clause at all, as in the paper's Figure 1, a query is about jobs J1, J2,
    both ``?``: see transformer.py.)"""
    if not bindings:
        kinds = {VARIABLE_PREFIX.get(v[:1].upper()) for v in variables}
        kind = kinds.pop() if len(kinds) == 1 else None
        if kind is None:
            a, b = variables
            raise error(
                f"cannot tell whether {a} and {b} are apps, jobs, stages or tasks: "
                f"add WHERE {a}.TaskID = ? AND {b}.TaskID = ? (or JobID, StageID, AppID)",
                span,
            )
        return kind, EntityId(None), EntityId(None)
    bound: dict[str, Binding] = {}
    for binding in bindings:
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
            span,
        )
    return bound[first].kind, bound[first].entity, bound[second].entity if second in bound else None
