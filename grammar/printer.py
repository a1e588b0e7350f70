"""to_pxql(): the canonical text of a query, the one ``perfx parse`` prints.

Canonical means: the full form (sugar expanded, FOR clause with both variables and their
id field, ``?`` for placeholders), one clause per line, upper-case keywords, ``AND``, ASCII
operators, the paper's ``f isSame`` spelling, strings in single quotes, numbers in the unit
they were written in. ``parse(to_pxql(q)) == q`` for every query parse() returns.
"""

from __future__ import annotations

import re

from . import units
from .ast import (
    ID_FIELD_NAMES,
    Atom,
    Bool,
    EntityId,
    Number,
    Ordering,
    Predicate,
    Query,
    String,
    Value,
    ValuePair,
)
from .vocabulary import PAIR_OPS, RESERVED

_BARE_ID = re.compile(r"\w+(?:[.\-/:]\w+)*")
_BARE_WORD = re.compile(r"(?!\d)\w+")
_PAIR_OPS = frozenset(op.lower() for op in PAIR_OPS)
_PAIR_SUFFIX = re.compile(rf".+[._](?:{'|'.join(sorted(_PAIR_OPS))})", re.IGNORECASE)


def to_pxql(query: Query) -> str:
    """The canonical PXQL text of ``query``."""
    first, second = query.variables
    field = ID_FIELD_NAMES[query.entity]
    bindings = [f"{first}.{field} = {_entity_id(query.first)}"]
    if query.second is not None:
        bindings.append(f"{second}.{field} = {_entity_id(query.second)}")
    lines = [f"FOR {first}, {second} WHERE {' AND '.join(bindings)}"]
    if query.despite:
        lines.append(f"DESPITE {predicate_to_pxql(query.despite)}")
    lines.append(f"OBSERVED {predicate_to_pxql(query.observed)}")
    lines.append(f"EXPECTED {predicate_to_pxql(query.expected)}")
    options = []
    if query.width is not None:
        options.append(f"WIDTH {query.width}")
    if query.despite_width is not None:
        options.append(f"DESPITE WIDTH {query.despite_width}")
    if options:
        lines.append(f"WITH {', '.join(options)}")
    return "\n".join(lines)


def predicate_to_pxql(predicate: Predicate) -> str:
    """``a isSame = T AND b compare = GT``: also how explanations print their clauses."""
    return " AND ".join(atom_to_pxql(atom) for atom in predicate)


def atom_to_pxql(atom: Atom) -> str:
    name = _feature(atom.feature)
    feature = name if atom.pair_op == "base" else f"{name} {atom.pair_op}"
    return f"{feature} {atom.op} {value_to_pxql(atom.value)}"


def value_to_pxql(value: Value) -> str:
    if isinstance(value, Number):
        return units.format_magnitude(value.value, value.unit) + (value.unit or "")
    if isinstance(value, String):
        return _quote(value.value, "'")
    if isinstance(value, Bool):
        return "T" if value.value else "F"
    if isinstance(value, Ordering):
        return value.value
    if isinstance(value, ValuePair):
        return f"({value_to_pxql(value.first)}, {value_to_pxql(value.second)})"
    raise TypeError(f"not a PXQL value: {value!r}")


def _feature(name: str) -> str:
    """A feature name as a word when it reads back as the same base feature, else `quoted`.
    Underscores stay: ``pig script`` was parsed as ``pig_script``."""
    plain = bool(name) and all(_BARE_WORD.fullmatch(part) for part in name.split("."))
    lowered = name.lower()
    if (
        plain
        and not _PAIR_SUFFIX.fullmatch(name)
        and lowered not in _PAIR_OPS
        and lowered not in RESERVED
    ):
        return name
    if "`" in name or "\n" in name or not name:
        raise ValueError(f"feature name {name!r} cannot be written in PXQL")
    return f"`{name}`"


def _entity_id(entity: EntityId) -> str:
    if entity.text is None:
        return "?"
    return id_to_pxql(entity.text)


def id_to_pxql(text: str) -> str:
    """An execution's id as PXQL writes it: bare where it lexes as an id, else quoted."""
    if _BARE_ID.fullmatch(text) and text.lower() not in RESERVED:
        return text
    return _quote(text, "'")


def _quote(text: str, quote: str) -> str:
    escaped = (
        text.replace("\\", "\\\\")
        .replace(quote, "\\" + quote)
        .replace("\n", "\\n")
        .replace("\t", "\\t")
    )
    return f"{quote}{escaped}{quote}"
