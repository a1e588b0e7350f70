"""Predicates in words, for the sentence that opens an explanation.

The figures table shows each predicate in PXQL; the sentence says the same thing the way a
person would ("despite the same host, task 33 was slower because its GC time was higher"),
reading BECAUSE predicates from the first execution's point of view. Given the two
executions' values, a phrase carries them: "its GC time was higher (1,210 ms against 32 ms)".
Values are plain text, never PXQL literals or tuples.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from perfx.grammar.ast import Atom, Bool, Number, Ordering, String, ValuePair
from perfx.grammar.printer import value_to_pxql


class PairValues(NamedTuple):
    """A feature's value for the first and the second execution, and its unit."""

    first: object
    second: object
    unit: str


_ORDERING = {"GT": "higher", "LT": "lower", "SIM": "similar"}
_ABBREVIATIONS = {"gc": "GC", "cpu": "CPU", "mb": "MB", "id": "id", "jvm": "JVM"}


_NAMES = {
    "concurrent_tasks_host": "number of tasks beside it on its host",
    "concurrent_tasks_executor": "number of tasks beside it on its executor",
    "mean_concurrent_tasks_host": "average number of tasks beside it on its host",
}
"""Derived features whose names, read word by word, do not make a phrase."""


_FLAGS = {
    "first_task_on_executor": (
        "it was the first task of its stage on its executor",
        "it was not the first task of its stage on its executor",
    ),
    "speculative": ("it was a speculative copy", "it was not a speculative copy"),
}
"""T/F features said as what the execution was: (when T, when F)."""


def label(feature: str) -> str:
    """``time_per_record`` -> ``time per record``; ``gc_time`` -> ``GC time``."""
    if feature in _NAMES:
        return _NAMES[feature]
    return " ".join(
        _ABBREVIATIONS.get(word.lower(), word)
        for word in feature.replace(".", "_").split("_")
        if word
    )


PLURAL_NOUNS = frozenset({"bytes", "records", "blocks", "tasks", "cores", "executors"})
"""Words that make a feature's label plural ("its input bytes were higher") where they head
it: before any preposition ("its number of tasks on its host was higher"), and not counted
or summarised by the label's first or last word ("its num tasks", "its input bytes max")."""
_PREPOSITIONS = frozenset({"of", "per", "in", "on", "at", "beside", "for", "with"})
_SINGULAR_ENDS = frozenset({"max", "mean", "median", "skew", "sum", "share", "fraction", "rate"})


def _was(name: str) -> str:
    """The verb of ``its <name> was ...``, agreeing with the label's head."""
    words = name.split()
    if not words or words[0] == "num" or words[-1] in _SINGULAR_ENDS:
        return "was"
    head = next((i for i, w in enumerate(words) if w in _PREPOSITIONS), len(words))
    return "were" if PLURAL_NOUNS.intersection(words[:head]) else "was"


def _negated(atom: Atom) -> bool:
    return atom.op == "!="


def _threshold(atom: Atom, subject: str, unit: str = "none") -> str:
    words = {"<": "below", "<=": "at most", ">": "above", ">=": "at least", "=": "", "!=": "not"}[
        atom.op
    ]
    value = value_text(atom.value, unit)
    return f"{subject} {label(atom.feature)} {words + ' ' if words else ''}{value}".strip()


def _both(atom: Atom) -> ValuePair | None:
    """``f diff = (v, v)``: the pair of the value v both executions had, else None."""
    if (
        atom.pair_op == "diff"
        and atom.op == "="
        and isinstance(atom.value, ValuePair)
        and atom.value.first == atom.value.second
    ):
        return atom.value
    return None


def value_text(value: object, unit: str = "none") -> str:
    """A value as a person reads it: ``1,210 ms``, ``2.4 s``, ``12.0 MB``, ``1,234``, ``h1``."""
    if isinstance(value, Number) and value.unit:
        return value_to_pxql(value)  # as the user wrote it: 128MB
    if isinstance(value, (Number, String, Bool)):
        value = value.value
    if isinstance(value, bool):
        return "T" if value else "F"
    if (isinstance(value, (int, float)) and not isinstance(value, bool)) or hasattr(value, "dtype"):
        try:
            x = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return str(value)
        if math.isnan(x):
            return "unknown"
        if unit == "ms":
            if abs(x) < 10 and x != int(x):
                return f"{x:.1f} ms"
            return f"{x:,.0f} ms" if abs(x) < 10_000 else f"{x / 1000:,.1f} s"
        if unit == "bytes":
            return _bytes(x)
        if unit == "ratio":
            return f"{x:,.3g}"
        return f"{x:,.0f}" if x == int(x) else f"{x:,.3g}"
    return str(value)


def _bytes(x: float) -> str:
    for size, name in ((1 << 40, "TB"), (1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if abs(x) >= size:
            return f"{x / size:,.1f} {name}"
    return f"{x:,.0f} B"


def _pair(values: PairValues | None, joiner: str = "against") -> str:
    if values is None:
        return ""
    first, second = value_text(values.first, values.unit), value_text(values.second, values.unit)
    if first == second and _differ(values.first, values.second):
        # rounded alike, they read as equal where the sentence says one was higher
        # ("2.0 KB against 2.0 KB" for 2,010 and 2,065 bytes: a probe of the CLI)
        first, second = _exact(values.first, values.unit), _exact(values.second, values.unit)
    return f" ({first} {joiner} {second})"


def _differ(a: object, b: object) -> bool:
    try:
        x, y = float(a), float(b)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return not (math.isnan(x) or math.isnan(y)) and x != y


def _exact(value: object, unit: str) -> str:
    """A number in full, in its unit: ``2,010 B``, ``1,204.5 ms``, ``0.123457``."""
    x = float(value)  # type: ignore[arg-type]
    suffix = {"bytes": " B", "ms": " ms"}.get(unit, "")
    return f"{x:,.0f}{suffix}" if x == int(x) else f"{x:,.6g}{suffix}"


def despite_phrase(atom: Atom, values: PairValues | None = None) -> str:
    """What both executions share: ``the same host (h1)``, ``similar records in (1,000 and 1,040)``."""
    name = label(atom.feature)
    unit = values.unit if values is not None else "none"
    if atom.pair_op == "isSame" and isinstance(atom.value, Bool):
        same = atom.value.value != _negated(atom)
        if same and values is not None:
            return f"the same {name} ({value_text(values.first, unit)})"
        return f"{'the same' if same else 'a different'} {name}"
    if atom.pair_op == "compare" and isinstance(atom.value, Ordering) and not _negated(atom):
        if atom.value.value == "SIM":
            return f"similar {name}{_pair(values, 'and')}"
        return f"a {_ORDERING[atom.value.value]} {name} for the first{_pair(values)}"
    if atom.pair_op == "base":
        return _threshold(atom, "both with", unit)
    if (both := _both(atom)) is not None:
        return f"the same {name} ({value_text(both.first, unit)})"
    return f"{name} {atom.pair_op} {atom.op} {value_to_pxql(atom.value)}"


def because_phrase(atom: Atom, values: PairValues | None = None) -> str:
    """Why the first execution behaved as observed: ``its GC time was higher (1,210 ms against 32 ms)``."""
    name = label(atom.feature)
    unit = values.unit if values is not None else "none"
    if atom.pair_op == "compare" and isinstance(atom.value, Ordering) and not _negated(atom):
        return f"its {name} {_was(name)} {_ORDERING[atom.value.value]}{_pair(values)}"
    if atom.pair_op == "isSame" and isinstance(atom.value, Bool):
        same = atom.value.value != _negated(atom)
        if (
            not same
            and atom.feature in _FLAGS
            and values is not None
            and {str(values.first), str(values.second)} == {"T", "F"}
        ):
            return _FLAGS[atom.feature][
                0 if str(values.first) == "T" else 1
            ] + " (the other was not)" * (str(values.first) == "T")
        return f"its {name} {_was(name)} {'the same' if same else 'different'}{_pair(values)}"
    if (both := _both(atom)) is not None:
        return f"both had {name} {value_text(both.first, unit)}"
    if atom.pair_op == "diff" and isinstance(atom.value, ValuePair) and atom.op == "=":
        first, second = value_text(atom.value.first, unit), value_text(atom.value.second, unit)
        if atom.feature in _FLAGS and {first, second} == {"T", "F"}:
            return _FLAGS[atom.feature][0 if first == "T" else 1]
        return f"its {name} {_was(name)} {first} against {second}"
    if atom.pair_op == "base":
        return _threshold(atom, "both had", unit)
    return f"{name} {atom.pair_op} {atom.op} {value_to_pxql(atom.value)}"


def join(phrases: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(phrases) <= 1:
        return "".join(phrases)
    return ", ".join(phrases[:-1]) + " and " + phrases[-1]


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters but newline and tab: a terminal would obey them (ESC starts a colour or
cursor move), so text from logs, records and queries shows them escaped."""


def has_control(text: str) -> bool:
    return _CONTROL.search(text) is not None


def printable(text: str) -> str:
    """``text`` with each control character (but newline and tab) written as ``\\xNN``."""
    return _CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", text)
