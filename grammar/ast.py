"""The typed PXQL syntax tree: what the parser yields and what the explanation engine consumes.

Every node is a frozen dataclass so that a parsed query can be hashed, cached and compared.
Source spans are kept for error messages but excluded from equality, so that
``parse(to_pxql(q)) == q`` holds even though the printed text differs from the original.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

EntityKind = Literal["app", "job", "stage", "task"]
PairOp = Literal["isSame", "compare", "diff", "base"]
CompareOp = Literal["=", "!=", "<", "<=", ">", ">="]
OrderingValue = Literal["LT", "SIM", "GT"]

ID_FIELD_NAMES: dict[EntityKind, str] = {
    "app": "AppID",
    "job": "JobID",
    "stage": "StageID",
    "task": "TaskID",
}
"""Entity kind -> its id field as the canonical printer writes it."""
ENTITY_ID_FIELDS: dict[str, EntityKind] = {
    field.lower(): kind for kind, field in ID_FIELD_NAMES.items()
}
"""Id field (lower-cased, as written in ``T1.TaskID``) -> the entity kind it names."""


@dataclass(frozen=True)
class Span:
    """Where a node stands in the query text: 0-based offsets, 1-based line and column."""

    start: int
    end: int
    line: int
    column: int


def _span() -> Any:
    """A source position: not part of a node's value (two queries that differ only in spacing
    are equal) nor of its repr."""
    return field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Number:
    """A numeric literal. ``value`` is normalised (ms for time, bytes for size);
    ``unit`` is the unit as the user wrote it (``"MB"``, ``"2s"`` -> ``"s"``), or None."""

    value: float
    unit: str | None = None
    dimension: Literal["time", "size"] | None = None


@dataclass(frozen=True)
class String:
    value: str


@dataclass(frozen=True)
class Bool:
    """``T`` / ``F`` (also ``true`` / ``false``)."""

    value: bool


@dataclass(frozen=True)
class Ordering:
    """``LT`` / ``SIM`` / ``GT``: the value of a ``compare`` pair feature."""

    value: OrderingValue


@dataclass(frozen=True)
class ValuePair:
    """``(a, b)``: the value of a ``diff`` pair feature on a nominal feature."""

    first: Scalar
    second: Scalar


Scalar = Number | String | Bool
Value = Number | String | Bool | Ordering | ValuePair


@dataclass(frozen=True)
class Atom:
    """``feature pair_op op value``, e.g. ``inputsize compare = SIM``.

    ``feature`` is the name as written (resolved against the log's feature registry later);
    ``pair_op`` is ``base`` for a bare feature (the value both executions share)."""

    feature: str
    pair_op: PairOp
    op: CompareOp
    value: Value
    span: Span | None = _span()
    feature_span: Span | None = _span()
    """Where the feature name (and its pair suffix) was written: error carets point there."""
    value_span: Span | None = _span()
    """Where the value was written (a pair whole): a value that does not fit the feature is
    underlined there."""


@dataclass(frozen=True)
class Predicate:
    """A conjunction of atoms; the empty conjunction is true."""

    atoms: tuple[Atom, ...] = ()
    span: Span | None = _span()

    def __bool__(self) -> bool:
        return bool(self.atoms)

    def __len__(self) -> int:
        return len(self.atoms)

    def __iter__(self):
        return iter(self.atoms)

    def __add__(self, other: Predicate) -> Predicate:
        return Predicate(self.atoms + other.atoms)


@dataclass(frozen=True)
class EntityId:
    """The id one variable is bound to: the text as written (``"33"``, ``"app-1/33"``),
    or None for a ``?`` placeholder bound later."""

    text: str | None
    span: Span | None = _span()

    @property
    def is_placeholder(self) -> bool:
        return self.text is None


@dataclass(frozen=True)
class Query:
    """A whole PXQL query, sugar already expanded.

    ``second`` is None when the user named only the pair's first execution (``WHY TASK 33
    SLOWER``): the engine then picks a reference and says which. ``despite`` may be empty;
    ``despite_width`` asks the engine to generate (or extend) a DESPITE clause of that width."""

    entity: EntityKind
    variables: tuple[str, str]
    first: EntityId
    second: EntityId | None
    despite: Predicate = Predicate()
    observed: Predicate = Predicate()
    expected: Predicate = Predicate()
    width: int | None = None
    despite_width: int | None = None
    span: Span | None = _span()
    source: str | None = field(default=None, compare=False, repr=False)
    """The text the query was parsed from, so that later checks (grammar.semantics) can
    show a caret under the clause they reject."""

    @property
    def placeholders(self) -> int:
        """How many ``?`` values remain to be bound."""
        return sum(1 for e in (self.first, self.second) if e is not None and e.is_placeholder)

    def bind(self, *values: object) -> Query:
        """Fill ``?`` placeholders in order (first, then second) with ``values``.

        Raises PxqlError (a user's mistake, e.g. ``--bind`` given once for two ``?``)."""
        from .errors import PxqlError

        if len(values) != self.placeholders:
            if not values:  # nothing bound: the query named no execution, or left them to ?
                one, other = self.variables
                field = ID_FIELD_NAMES[self.entity]
                raise PxqlError(
                    f"the query does not say which {self.entity}s {one} and {other} are: "
                    f"name them (WHERE {one}.{field} = 33 AND {other}.{field} = 22), or give "
                    "a value for each ? (--bind)"
                )
            raise PxqlError(
                f"the query has {self.placeholders} '?' placeholder(s) but {len(values)} "
                "value(s) were given"
            )
        remaining = [str(v) for v in values]
        if any(v is None or not str(v) for v in values):
            raise PxqlError("an id bound to a placeholder cannot be empty")
        first, second = self.first, self.second
        if first.is_placeholder:
            first = EntityId(remaining.pop(0))
        if second is not None and second.is_placeholder:
            second = EntityId(remaining.pop(0))
        return replace(self, first=first, second=second)
