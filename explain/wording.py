"""Predicates in words, for the sentence that opens an explanation.

The figures table shows each predicate in PXQL; the sentence says the same thing the way a
person would ("despite the same host, task 33 was slower because its GC time was higher"),
reading BECAUSE predicates from the first execution's point of view.
"""

from __future__ import annotations

from perfx.grammar.ast import Atom, Bool, Ordering, ValuePair
from perfx.grammar.printer import value_to_pxql

_ORDERING = {"GT": "higher", "LT": "lower", "SIM": "similar"}
_ABBREVIATIONS = {"gc": "GC", "cpu": "CPU", "mb": "MB", "id": "id", "jvm": "JVM"}


_NAMES = {
    "concurrent_tasks_host": "number of tasks beside it on its host",
    "concurrent_tasks_executor": "number of tasks beside it on its executor",
    "mean_concurrent_tasks_host": "average number of tasks beside it on its host",
}
"""Derived features whose names, read word by word, do not make a phrase."""


def label(feature: str) -> str:
    """``time_per_record`` -> ``time per record``; ``gc_time`` -> ``GC time``."""
    if feature in _NAMES:
        return _NAMES[feature]
    return " ".join(_ABBREVIATIONS.get(word.lower(), word) for word in feature.replace(".", "_").split("_") if word)


def _negated(atom: Atom) -> bool:
    return atom.op == "!="


def _threshold(atom: Atom, subject: str) -> str:
    words = {"<": "below", "<=": "at most", ">": "above", ">=": "at least", "=": "", "!=": "not"}[atom.op]
    value = value_to_pxql(atom.value)
    return f"{subject} {label(atom.feature)} {words + ' ' if words else ''}{value}".strip()


def _both(atom: Atom) -> bool:
    """``f diff = (v, v)``: both executions had the value v."""
    return atom.pair_op == "diff" and atom.op == "=" and isinstance(atom.value, ValuePair) and atom.value.first == atom.value.second


def despite_phrase(atom: Atom) -> str:
    """What both executions share: ``the same host``, ``a similar input bytes``."""
    name = label(atom.feature)
    if atom.pair_op == "isSame" and isinstance(atom.value, Bool):
        same = atom.value.value != _negated(atom)
        return f"{'the same' if same else 'a different'} {name}"
    if atom.pair_op == "compare" and isinstance(atom.value, Ordering) and not _negated(atom):
        if atom.value.value == "SIM":
            return f"similar {name}"
        return f"a {_ORDERING[atom.value.value]} {name} for the first"
    if atom.pair_op == "base":
        return _threshold(atom, "both with")
    if _both(atom):
        return f"the same {name} ({value_to_pxql(atom.value.first)})"
    return f"{name} {atom.pair_op} {atom.op} {value_to_pxql(atom.value)}"


def because_phrase(atom: Atom) -> str:
    """Why the first execution behaved as observed: ``its GC time was higher``."""
    name = label(atom.feature)
    if atom.pair_op == "compare" and isinstance(atom.value, Ordering) and not _negated(atom):
        return f"its {name} was {_ORDERING[atom.value.value]}"
    if atom.pair_op == "isSame" and isinstance(atom.value, Bool):
        same = atom.value.value != _negated(atom)
        return f"its {name} was {'the same' if same else 'different'}"
    if _both(atom):
        return f"both had {name} {value_to_pxql(atom.value.first)}"
    if atom.pair_op == "diff":
        return f"its {name} and the other's were {value_to_pxql(atom.value)}"
    if atom.pair_op == "base":
        return _threshold(atom, "both had")
    return f"{name} {atom.pair_op} {atom.op} {value_to_pxql(atom.value)}"


def join(phrases: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(phrases) <= 1:
        return "".join(phrases)
    return ", ".join(phrases[:-1]) + " and " + phrases[-1]
