"""Checks of a parsed query against the caller's feature names (the log's registry).

They run after the parse because the parser is shared and holds no per-call state
(transformer.py). Three mistakes are caught, the first two with a did-you-mean:

* a misspelled pair suffix: PXQL allows multi-word features (``pig script isSame``), so
  ``duration comare = 5`` parses as the base feature ``duration_comare``; when its last word
  is close to isSame/compare/diff and the whole name is not a known feature, it is reported
  as an unknown pair feature (with LT/SIM/GT or a pair as its value, as in the paper's
  ``duration comare = SIM``, the transformer reports it already, feature list or not);
* an unknown feature, when a feature list is given;
* a number whose unit does not measure what the feature does (``gc_time < 128MB``: a size
  for a time), when the feature list gives each feature's unit (the registry's ``ms``,
  ``bytes``, ``count``, ``ratio``, ``none``): a time needs an ``ms`` feature, a size a
  ``bytes`` one; plain numbers go with any.

Feature names match their registry entry as every name does in perfx (names.py: ignoring
case, underscores, spaces, dots and dashes; the paper writes them loosely).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .ast import Atom, Number, Query, Span, ValuePair
from .atoms import PAIR_OPS, pair_op_like
from .errors import PxqlError
from .names import closest, name_key
from .printer import value_to_pxql

_LAST_WORD = re.compile(r"[\s_.]([^\s_.]+)$")
_UNIT_OF = {"time": "ms", "size": "bytes"}
"""The feature unit a number with a unit of each dimension (units.py) measures in."""
_UNIT_WORDS = {
    "ms": "a time (ms)",
    "bytes": "a size (bytes)",
    "count": "a count",
    "ratio": "a ratio",
    "none": "not measured in any unit",
}


class FeatureIndex:
    """The caller's feature names, indexed by ``name_key``, and their units when
    ``features`` maps each name to one."""

    def __init__(self, features: Iterable[str] | Mapping[str, str | None]) -> None:
        self.by_key: dict[str, str] = {}
        self.units: dict[str, str | None] = {}
        units = features if isinstance(features, Mapping) else {}
        for name in features:
            key = name_key(name)
            self.by_key.setdefault(key, name)
            self.units.setdefault(key, units.get(name))

    def __contains__(self, name: str) -> bool:
        return name_key(name) in self.by_key

    def unit(self, name: str) -> str | None:
        return self.units.get(name_key(name))

    def closest(self, name: str) -> list[str]:
        return closest(name, self.by_key.values())


def check_features(
    query: Query, source: str, features: Iterable[str] | Mapping[str, str | None] | None
) -> None:
    """Raise PxqlError at the first misspelled pair suffix, unknown feature or (``features``
    mapping names to units) number in a unit the feature is not measured in."""
    index = FeatureIndex(features) if features is not None else None
    for clause in (query.despite, query.observed, query.expected):
        for atom in clause:
            _check_atom(atom, source, index)


def _check_atom(atom: Atom, source: str, index: FeatureIndex | None) -> None:
    known = index is not None and atom.feature in index
    quoted = atom.feature_span is not None and source.startswith("`", atom.feature_span.start)
    if atom.pair_op == "base" and not known and not quoted:
        match = _LAST_WORD.search(atom.feature)
        suggestion = pair_op_like(match.group(1)) if match else None
        if suggestion is not None:
            assert match is not None
            prefix = atom.feature[: match.start()]
            if index is None or prefix in index:
                raise PxqlError(
                    f"unknown pair feature '{match.group(1)}'",
                    span=_last_word_span(atom, source),
                    suggestions=[suggestion],
                    expected=list(PAIR_OPS.values()),
                )
    if index is not None and not known:
        span = atom.feature_span or atom.span
        raise PxqlError(
            f"unknown feature '{atom.feature}'",
            span=(span.start, span.end) if span else None,
            suggestions=index.closest(atom.feature),
        )
    if index is not None:
        _check_unit(atom, index.unit(atom.feature))


def _check_unit(atom: Atom, unit: str | None) -> None:
    """A number with a unit compared with a feature measured in another (``unit`` None: not
    known, nothing to check)."""
    if unit is None:
        return
    values = (
        (atom.value.first, atom.value.second)
        if isinstance(atom.value, ValuePair)
        else (atom.value,)
    )
    for value in values:
        if isinstance(value, Number) and value.dimension and _UNIT_OF[value.dimension] != unit:
            span = atom.value_span or atom.span
            raise PxqlError(
                f"{value_to_pxql(value)} is a {value.dimension}, but '{atom.feature}' is {_UNIT_WORDS.get(unit, unit)}",
                span=(span.start, span.end) if span else None,
            )


def _last_word_span(atom: Atom, source: str) -> tuple[int, int] | None:
    """Where the feature's last word stands in the source (the caret goes under 'comare')."""
    span: Span | None = atom.feature_span
    if span is None:
        return None
    written = source[span.start : span.end]
    match = re.search(r"[^\s_.]+\s*$", written)
    if match is None:
        return (span.start, span.end)
    word_end = span.start + match.start() + len(match.group(0).rstrip())
    return (span.start + match.start(), word_end)
