"""query_to_dict(): the JSON form of a query (``perfx parse --format json``).

The schema is stable; tests/fixtures/pxql/valid.json pins it::

    {
      "kind": "task",                                   # app | job | stage | task
      "variables": ["T1", "T2"],
      "bindings": [                                     # one per variable, in order
        {"variable": "T1", "status": "bound", "id": "33"},
        {"variable": "T2", "status": "placeholder", "id": null}   # or "auto": perfx picks
      ],
      "despite":  [atom, ...],                          # [] when absent
      "observed": [atom, ...],
      "expected": [atom, ...],
      "width": null, "despite_width": 2
    }

    atom  = {"feature": "inputsize", "pair_op": "compare", "op": "=", "value": value}
            pair_op: isSame | compare | diff | base;  op: = != < <= > >=
    value = {"type": "number", "value": 134217728, "unit": "bytes", "written_unit": "MB"}
            (unit: "ms" for times, "bytes" for sizes, null for plain numbers; the value is
             normalised to that unit; written_unit is the unit as written, or null)
          | {"type": "string", "value": "filter.pig"}
          | {"type": "bool", "value": true}
          | {"type": "ordering", "value": "SIM"}                    # LT | SIM | GT
          | {"type": "pair", "first": value, "second": value}

Spans are left out: the JSON describes the query, not the text it was written as (the ``∧``
and ``AND`` spellings of a query serialise identically).
"""

from __future__ import annotations

from typing import Any

from .ast import Atom, Bool, EntityId, Number, Ordering, Predicate, Query, String, Value, ValuePair

_NORMALISED_UNIT = {"time": "ms", "size": "bytes"}


def query_to_dict(query: Query) -> dict[str, Any]:
    """The JSON-able description of ``query`` (see the module docstring for the schema)."""
    return {
        "kind": query.entity,
        "variables": list(query.variables),
        "bindings": [
            _binding(query.variables[0], query.first),
            _binding(query.variables[1], query.second),
        ],
        "despite": predicate_to_list(query.despite),
        "observed": predicate_to_list(query.observed),
        "expected": predicate_to_list(query.expected),
        "width": query.width,
        "despite_width": query.despite_width,
    }


def predicate_to_list(predicate: Predicate) -> list[dict[str, Any]]:
    return [atom_to_dict(atom) for atom in predicate]


def atom_to_dict(atom: Atom) -> dict[str, Any]:
    return {
        "feature": atom.feature,
        "pair_op": atom.pair_op,
        "op": atom.op,
        "value": value_to_dict(atom.value),
    }


def value_to_dict(value: Value) -> dict[str, Any]:
    if isinstance(value, Number):
        number: float | int = value.value
        if value.value.is_integer() and abs(value.value) < 2**53:
            number = int(value.value)
        return {
            "type": "number",
            "value": number,
            "unit": _NORMALISED_UNIT.get(value.dimension or ""),
            "written_unit": value.unit,
        }
    if isinstance(value, String):
        return {"type": "string", "value": value.value}
    if isinstance(value, Bool):
        return {"type": "bool", "value": value.value}
    if isinstance(value, Ordering):
        return {"type": "ordering", "value": value.value}
    if isinstance(value, ValuePair):
        return {
            "type": "pair",
            "first": value_to_dict(value.first),
            "second": value_to_dict(value.second),
        }
    raise TypeError(f"not a PXQL value: {value!r}")


def _binding(variable: str, entity: EntityId | None) -> dict[str, Any]:
    if entity is None:
        return {"variable": variable, "status": "auto", "id": None}
    if entity.is_placeholder:
        return {"variable": variable, "status": "placeholder", "id": None}
    return {"variable": variable, "status": "bound", "id": entity.text}
