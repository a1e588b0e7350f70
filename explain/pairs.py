"""Pair features (the paper's Table 1) and atom checks, vectorised over index arrays.

A pair is two row positions ``(i, j)`` of one entity table. For a raw feature f:

* ``f isSame``  — T/F, whether both have the same value;
* ``f compare`` — numeric only: LT / SIM / GT, SIM when |a−b| ≤ 0.1·max(|a|,|b|);
* ``f diff``    — nominal only: the pair of values (a, b);
* ``f`` (base)  — the shared value when a = b, missing otherwise.

A missing raw value makes every pair feature of that pair missing, and an atom on a missing
feature is false (``!=`` included): "we do not know" never explains anything. Feature
*levels* follow section 6.8: 1 = isSame, 2 = + compare and diff, 3 = + base.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from perfx.grammar.ast import Atom, Bool, Number, Ordering, OrderingValue, String, ValuePair
from perfx.logs.registry import FeatureSpec

from .columns import Columns, value_matches
from .errors import QueryFault

SIMILARITY = 0.1
"""Two numbers are SIM when they differ by at most this fraction of the larger magnitude."""

ORDER: dict[OrderingValue, float] = {"LT": -1.0, "SIM": 0.0, "GT": 1.0}
ORDER_NAMES = {v: k for k, v in ORDER.items()}

LEVELS: dict[int, tuple[str, ...]] = {
    1: ("isSame",),
    2: ("isSame", "compare", "diff"),
    3: ("isSame", "compare", "diff", "base"),
}

OPS: dict[str, Callable] = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def compare_codes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """LT/SIM/GT as -1/0/1 (NaN when either side is missing), with the 10 % similarity rule."""
    with np.errstate(invalid="ignore"):
        sim = np.abs(a - b) <= SIMILARITY * np.maximum(np.abs(a), np.abs(b))
        out = np.where(sim, 0.0, np.where(a > b, 1.0, -1.0))
    out[np.isnan(a) | np.isnan(b)] = np.nan
    return out


@dataclass
class PairColumn:
    """One pair feature over a set of pairs: ``values`` is float64 with NaN for missing.

    ``numeric`` is True only for base features of numeric raw features (thresholds make
    sense); every other pair feature is nominal (codes), tested for equality only.
    ``decode`` turns a value back into the PXQL literal of an atom."""

    spec: FeatureSpec
    pair_op: str
    values: np.ndarray
    numeric: bool
    decode: Callable[[float], object]

    @property
    def label(self) -> str:
        return self.spec.name if self.pair_op == "base" else f"{self.spec.name} {self.pair_op}"

    def atom(self, op: str, value: float) -> Atom:
        return Atom(self.spec.name, self.pair_op, op, self.decode(value))  # type: ignore[arg-type]


def says_alike(column: PairColumn, value: float) -> bool:
    """Does ``column = value`` say the two executions are alike — the same value
    (``isSame = T``, ``diff = (v, v)``, any base predicate: both have it) or similar ones
    (``compare = SIM``)? A generated DESPITE is made of these: it states what makes the pair
    comparable, as in the paper's examples, never a difference between the two."""
    if np.isnan(value):
        return False
    if column.pair_op == "base":
        return True
    if column.pair_op == "isSame":
        return value == 1.0
    if column.pair_op == "compare":
        return value == ORDER["SIM"]
    pair = column.decode(value)
    return isinstance(pair, ValuePair) and pair.first == pair.second


def states_difference(column: PairColumn, value: float) -> bool:
    """Does ``column = value`` say the two executions differ — ``compare`` GT or LT,
    ``isSame = F``, a ``diff`` of two different values — or bound a numeric value both share
    (a base threshold)? Only these may stand in a BECAUSE clause: a similarity cannot explain
    a difference, it is context for DESPITE."""
    if np.isnan(value):
        return False
    if column.pair_op == "base":
        return column.numeric
    if column.pair_op == "isSame":  # numbers differ by compare GT/LT, which says which way
        return value == 0.0 and column.spec.kind != "numeric"
    if column.pair_op == "compare":
        return value != ORDER["SIM"]
    pair = column.decode(value)
    return isinstance(pair, ValuePair) and pair.first != pair.second


def varies(values: np.ndarray) -> np.ndarray:
    """For each row of a (pair features × pairs) matrix, whether any predicate could split
    the pairs (a missing value counts as a value of its own: it falsifies every atom)."""
    present = ~np.isnan(values)
    low = np.where(present, values, np.inf).min(axis=1)
    high = np.where(present, values, -np.inf).max(axis=1)
    return present.any(axis=1) & (~present.all(axis=1) | (low != high))


def pair_features(
    cols: Columns, specs: list[FeatureSpec], i: np.ndarray, j: np.ndarray, level: int = 3
) -> list[PairColumn]:
    """Every pair feature of ``specs`` allowed at ``level``, over the pairs ``(i[k], j[k])``.

    Computed a kind at a time on (features × pairs) matrices: one numpy operation per pair
    feature kind, not per feature, since a log can have hundreds of features."""
    ops = LEVELS[level]
    numeric = [s for s in specs if s.kind == "numeric"]
    nominal = [s for s in specs if s.kind != "numeric"]
    out: list[PairColumn] = []
    if numeric:
        a = np.vstack([cols.numeric(s.name)[i] for s in numeric])
        b = np.vstack([cols.numeric(s.name)[j] for s in numeric])
        out += _numeric_features(numeric, a, b, ops)
    if nominal:
        out += _nominal_features(nominal, cols, i, j, ops)
    return out


def _numeric_features(
    specs: list[FeatureSpec], a: np.ndarray, b: np.ndarray, ops
) -> list[PairColumn]:
    missing = np.isnan(a) | np.isnan(b)
    same = np.where(missing, np.nan, (a == b).astype(np.float64))
    kinds: list[tuple[str, np.ndarray, bool, Callable[[float], object]]] = []
    if "isSame" in ops:
        kinds.append(("isSame", same, False, lambda v: Bool(bool(v))))
    if "compare" in ops:
        kinds.append(
            ("compare", compare_codes(a, b), False, lambda v: Ordering(ORDER_NAMES[float(v)]))
        )
    if "base" in ops:
        kinds.append(("base", np.where(same == 1.0, a, np.nan), True, lambda v: Number(float(v))))
    return [
        PairColumn(spec, op, values[r], numeric, decode)
        for r, spec in enumerate(specs)
        for op, values, numeric, decode in kinds
    ]


def _nominal_features(specs: list[FeatureSpec], cols: Columns, i, j, ops) -> list[PairColumn]:
    rows = np.concatenate([i, j])
    codes = np.empty((len(specs), len(rows)), dtype=np.float64)
    categories = []
    for r, spec in enumerate(specs):
        column_codes, column_categories = cols.codes(spec.name)
        codes[r] = column_codes[rows]
        categories.append(column_categories)
    ca, cb = codes[:, : len(i)], codes[:, len(i) :]
    missing = (ca < 0) | (cb < 0)
    same = np.where(missing, np.nan, (ca == cb).astype(np.float64))
    k = np.array([max(len(c), 1) for c in categories], dtype=np.float64)[:, None]
    diff = np.where(missing, np.nan, ca * k + cb)
    base = np.where(same == 1.0, ca, np.nan)
    out = []
    for r, spec in enumerate(specs):
        literal = _decoder(categories[r])
        if "isSame" in ops:
            out.append(PairColumn(spec, "isSame", same[r], False, lambda v: Bool(bool(v))))
        if "diff" in ops:
            out.append(
                PairColumn(spec, "diff", diff[r], False, _pair_decoder(literal, float(k[r, 0])))
            )
        if "base" in ops:
            out.append(PairColumn(spec, "base", base[r], False, literal))
    return out


def _decoder(categories: np.ndarray) -> Callable[[float], object]:
    return lambda v: _literal(categories[int(v)])


def _pair_decoder(literal: Callable[[float], object], k: float) -> Callable[[float], object]:
    return lambda v: ValuePair(literal(v // k), literal(v % k))  # type: ignore[arg-type]


def _literal(value) -> object:
    if isinstance(value, (bool, np.bool_)):
        return Bool(bool(value))
    if isinstance(value, (int, float, np.integer, np.floating)):
        return Number(float(value))
    return String(str(value))


def atom_mask(cols: Columns, atom: Atom, i: np.ndarray | int, j: np.ndarray) -> np.ndarray:
    """Whether each pair ``(i[k], j[k])`` satisfies ``atom`` (false where it is missing). ``i``
    may be one row, paired with every row of ``j`` (a reference is looked for among a stage's
    rows: the row is read once instead of gathered once per candidate)."""
    spec = cols.spec(atom.feature)
    op = OPS[atom.op]
    if spec.kind == "numeric":
        column = cols.numeric(spec.name)
        a, b = column[i], column[j]
        present = ~(np.isnan(a) | np.isnan(b))
        if atom.pair_op == "isSame":
            return present & op(a == b, _bool(atom))
        if atom.pair_op == "compare":
            target = _ordering(atom)
            with np.errstate(invalid="ignore"):
                return present & op(compare_codes(a, b), target)
        if atom.pair_op == "base":
            if not isinstance(atom.value, Number):
                raise QueryFault(
                    f"{spec.name} is numeric: compare it with a number, not {_show(atom.value)}",
                    atom.span,
                )
            with np.errstate(invalid="ignore"):
                return present & (a == b) & op(a, atom.value.value)
        raise QueryFault(
            f"{spec.name} is numeric: use '{spec.name} compare' (diff is for nominal features)",
            atom.span,
        )
    codes, categories = cols.codes(spec.name)
    ca, cb = codes[i], codes[j]
    present = (ca >= 0) & (cb >= 0)
    if atom.pair_op == "isSame":
        return present & op(ca == cb, _bool(atom))
    if atom.op not in ("=", "!="):
        raise QueryFault(
            f"{spec.name} is nominal: only = and != apply to '{atom.feature} {atom.pair_op}'",
            atom.span,
        )
    if atom.pair_op == "compare":
        raise QueryFault(
            f"{spec.name} is nominal: use '{spec.name} isSame' or '{spec.name} diff' (compare is for numbers)",
            atom.span,
        )
    if atom.pair_op == "diff":
        if not isinstance(atom.value, ValuePair):
            raise QueryFault(
                f'\'{spec.name} diff\' takes a pair of values like ("a", "b"), not {_show(atom.value)}',
                atom.span,
            )
        hit = (
            (
                value_matches(categories, atom.value.first)[ca]
                & value_matches(categories, atom.value.second)[cb]
            )
            if len(categories)
            else np.zeros(len(cb), bool)
        )
        return present & op(hit, True)
    hit = value_matches(categories, atom.value)[ca] if len(categories) else np.zeros(len(cb), bool)
    return present & (ca == cb) & op(hit, True)


def conjunction_mask(cols: Columns, atoms, i: np.ndarray | int, j: np.ndarray) -> np.ndarray:
    """Whether each pair satisfies every atom (the empty conjunction is true); ``i`` as in
    ``atom_mask``."""
    mask = np.ones(len(j), dtype=bool)
    for atom in atoms:
        if not mask.any():
            break
        mask &= atom_mask(cols, atom, i, j)
    return mask


def _bool(atom: Atom) -> bool:
    if not isinstance(atom.value, Bool):
        raise QueryFault(
            f"'{atom.feature} isSame' takes T or F, not {_show(atom.value)}", atom.span
        )
    return atom.value.value


def _ordering(atom: Atom) -> float:
    if not isinstance(atom.value, Ordering):
        raise QueryFault(
            f"'{atom.feature} compare' takes LT, SIM or GT, not {_show(atom.value)}", atom.span
        )
    return ORDER[atom.value.value]


def _show(value) -> str:
    from perfx.grammar.printer import value_to_pxql

    return value_to_pxql(value)
