"""From lark's parse of pxql.lark to the typed AST of ast.py.

``ToAst`` runs inside lark's LALR parser (``Lark(transformer=...)``): each rule becomes AST
nodes the moment it is reduced, so no parse tree is built — this is what keeps a 10,000-atom
query well under a second. It holds no per-parse state; the checks that depend on the
caller's feature list run afterwards (checks.py). The rules' logic lives beside it: atoms.py
(one atom and its syntactic checks), clauses.py (FOR bindings, WITH options, WHY sugar).

Every problem found raises PxqlError with the span of the offending text; parse() attaches
the source text so that the error can show a caret.
"""

from __future__ import annotations

from typing import NamedTuple

from lark import Token, Transformer

from . import units
from .ast import (
    ENTITY_ID_FIELDS,
    ID_FIELD_NAMES,
    Atom,
    EntityId,
    EntityKind,
    Predicate,
    Query,
    Span,
)
from .atoms import build_atom, scalar
from .clauses import (
    SUGAR,
    Binding,
    Option,
    duration_compare,
    options,
    resolve_for,
    width,
)
from .names import closest
from .tokens import Located, children_span, error, join, token_span, unquote


class _Where(NamedTuple):
    bindings: list[Binding]
    span: Span


class _For(NamedTuple):
    entity: EntityKind
    variables: tuple[str, str]
    first: EntityId
    second: EntityId | None
    span: Span


class _Clause(NamedTuple):
    name: str
    predicate: Predicate
    span: Span


class _With(NamedTuple):
    options: list[Option]
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
            return Located(scalar(children), children_span(children))
        except units.NumberError as err:
            raise error(str(err), children_span(children)) from None

    def atom(self, children: list) -> Atom:
        return build_atom(children)

    def atoms(self, children: list) -> list[Atom]:
        if len(children) == 1:
            return children
        children[0].append(children[2])
        return children[0]

    def predicate(self, children: list) -> Predicate:
        atoms = tuple(children[0])
        return Predicate(atoms, span=join(atoms[0].span, atoms[-1].span))

    def despite(self, children: list) -> _Clause:
        return _Clause("despite", children[1], children_span(children))

    def observed(self, children: list) -> _Clause:
        return _Clause("observed", children[1], children_span(children))

    def expected(self, children: list) -> _Clause:
        return _Clause("expected", children[1], children_span(children))

    # ---- WITH options --------------------------------------------------------------------

    def width(self, children: list[Token]) -> Option:
        return Option("width", width(children[-1], least=1), children_span(children))

    def despite_width(self, children: list[Token]) -> Option:
        return Option("despite_width", width(children[-1], least=0), children_span(children))

    def with_clause(self, children: list) -> _With:
        return _With([c for c in children if isinstance(c, Option)], children_span(children))

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

    def binding(self, children: list) -> Binding:
        qualified, _eq, entity = children
        variable, field_name = qualified.value.split(".")
        kind = ENTITY_ID_FIELDS.get(field_name.lower())
        if kind is None:
            offset = len(variable) + 1
            raise error(
                f"unknown id field '{field_name}'",
                Span(
                    qualified.start_pos + offset,
                    qualified.end_pos,
                    qualified.line,
                    qualified.column + offset,
                ),
                suggestions=closest(field_name, list(ID_FIELD_NAMES.values())),
                expected=list(ID_FIELD_NAMES.values()),
            )
        return Binding(variable, kind, entity, join(token_span(qualified), entity.span))

    def where(self, children: list) -> _Where:
        return _Where([c for c in children if isinstance(c, Binding)], children_span(children))

    def for_clause(self, children: list) -> _For:
        first, second = children[1], children[3]
        if first.value == second.value:
            raise error(
                f"the two variables must differ, but both are called '{first.value}'",
                token_span(second),
            )
        variables = (first.value, second.value)
        span = children_span(children)
        bindings = children[4].bindings if len(children) > 4 else []
        kind, first_id, second_id = resolve_for(variables, bindings, span)
        return _For(kind, variables, first_id, second_id, span)

    # ---- whole queries -------------------------------------------------------------------

    def query(self, children: list) -> Query:
        found = children[0] if isinstance(children[0], _For) else None
        clauses = {c.name: c for c in children if isinstance(c, _Clause)}
        chosen = [o for c in children if isinstance(c, _With) for o in c.options]
        observed, expected = clauses["observed"], clauses["expected"]
        if set(observed.predicate.atoms) == set(expected.predicate.atoms):
            raise error(
                "EXPECTED says the same as OBSERVED: no pair can satisfy one and not the other",
                expected.span,
            )
        if found is None:  # as in the paper's Figure 1: a question about two jobs, bound later
            found = _For(
                "job", ("J1", "J2"), EntityId(None), EntityId(None), children_span(children)
            )
        despite = clauses.get("despite")
        return Query(
            found.entity,
            found.variables,
            found.first,
            found.second,
            despite=despite.predicate if despite else Predicate(),
            observed=observed.predicate,
            expected=expected.predicate,
            span=children_span(children),
            **options(chosen),
        )

    # ---- the WHY sugar -------------------------------------------------------------------

    def entity(self, children: list[Token]) -> Located:
        return Located(children[0].value.lower(), token_span(children[0]))

    def reference(self, children: list) -> _Reference:
        return _Reference(
            children[0] if len(children) == 2 else None, children[-1], children_span(children)
        )

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
        chosen = [o for c in children if isinstance(c, _With) for o in c.options]
        observed_value, expected_value = SUGAR[direction.name]
        prefix = kind[0].upper()
        return Query(
            kind,
            (f"{prefix}1", f"{prefix}2"),
            first,
            second,
            despite=despite,
            observed=duration_compare(observed_value, direction.keyword),
            expected=duration_compare(expected_value, direction.keyword),
            span=children_span(children),
            **options(chosen),
        )


def _direction(name: str, children: list) -> _Direction:
    reference = children[-1] if len(children) > 1 else None
    return _Direction(name, token_span(children[0]), reference, children_span(children))
