"""Checks of a parsed query against the caller's feature names (the log's registry).

They run after the parse because the parser is shared and holds no per-call state
(transformer.py). Two mistakes are caught, each with a did-you-mean:

* a misspelled pair suffix: PXQL allows multi-word features (``pig script isSame``), so
  ``duration comare = 5`` parses as the base feature ``duration_comare``; when its last word
  is close to isSame/compare/diff and the whole name is not a known feature, it is reported
  as an unknown pair feature (with LT/SIM/GT or a pair as its value, as in the paper's
  ``duration comare = SIM``, the transformer reports it already, feature list or not);
* an unknown feature, when a feature list is given.

Feature names match their registry entry ignoring case, underscores, spaces, dots and dashes
(``jobID`` is ``job_id``, ``pig script`` is ``pigscript``): the paper writes them loosely.
``resolve_feature`` exposes that matching to the explanation engine.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from .ast import Atom, Query, Span
from .errors import PxqlError
from .atoms import PAIR_OPS, pair_op_like

_SEPARATORS = re.compile(r"[\s_.\-]+")
_LAST_WORD = re.compile(r"[\s_.]([^\s_.]+)$")


def feature_key(name: str) -> str:
    """The form under which feature names are compared: ``Job_ID`` and ``jobID`` agree."""
    return _SEPARATORS.sub("", name).lower()


def resolve_feature(name: str, features: Iterable[str]) -> str | None:
    """The registry name that ``name`` (as written in a query) refers to, or None."""
    key = feature_key(name)
    return next((f for f in features if feature_key(f) == key), None)


class FeatureIndex:
    """The caller's feature names, indexed by ``feature_key``."""

    def __init__(self, features: Iterable[str]) -> None:
        self.by_key: dict[str, str] = {}
        for name in features:
            self.by_key.setdefault(feature_key(name), name)

    def __contains__(self, name: str) -> bool:
        return feature_key(name) in self.by_key

    def closest(self, name: str) -> list[str]:
        keys = difflib.get_close_matches(feature_key(name), list(self.by_key), n=3, cutoff=0.6)
        return [self.by_key[k] for k in keys]


def check_features(query: Query, source: str, features: Iterable[str] | None) -> None:
    """Raise PxqlError at the first misspelled pair suffix or unknown feature."""
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
