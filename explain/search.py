"""Algorithm 1: grow a conjunction of pair-feature predicates, greedily, by information gain
per feature and a precision/generality score across features.

The same search builds BECAUSE (target = performed as observed, figure = precision) and
DESPITE (target = performed as expected, figure = relevance). Every proposed predicate holds
for the pair of interest (the explanation must be applicable). Per feature, thresholds are
scored in one pass: sort the values, cumulative label counts give every split's entropy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfx.grammar.ast import Atom

from .options import GAP_WEIGHT
from .pairs import PairColumn


def entropy(p: np.ndarray | float) -> np.ndarray:
    """Binary entropy in bits, H(p) = −p log2 p − (1−p) log2(1−p), with H(0) = H(1) = 0."""
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)
    q = 1.0 - p
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(np.where(p > 0, p * np.log2(p), 0.0) + np.where(q > 0, q * np.log2(q), 0.0))


def information_gain(pos_in, n_in, pos_total, n_total) -> np.ndarray:
    """H(P) − H(P | φ) for splits putting ``n_in`` pairs (``pos_in`` of them positive) on the
    satisfied side; arrays broadcast, so every threshold of a feature is scored at once."""
    pos_in, n_in = np.asarray(pos_in, np.float64), np.asarray(n_in, np.float64)
    n_out, pos_out = n_total - n_in, pos_total - pos_in
    with np.errstate(divide="ignore", invalid="ignore"):
        h_in = entropy(np.where(n_in > 0, pos_in / n_in, 0.0))
        h_out = entropy(np.where(n_out > 0, pos_out / n_out, 0.0))
    return entropy(pos_total / n_total) - (n_in * h_in + n_out * h_out) / n_total


@dataclass(frozen=True)
class Candidate:
    """The best predicate of one pair feature: ``mask`` marks the training pairs it covers."""

    column: PairColumn
    op: str
    value: float
    gain: float
    mask: np.ndarray
    covered: float = 0.0
    positive: float = 0.0
    """How many of the pairs scored the predicate covers, and how many of those are targets."""

    @property
    def atom(self) -> Atom:
        return self.column.atom(self.op, self.value)


def best_predicate(
    column: PairColumn,
    poi_value: float,
    y: np.ndarray,
    toward_target: bool = False,
    thresholds_only: bool = False,
) -> Candidate | None:
    """The predicate of highest information gain on ``column`` that holds for the pair of
    interest (whose value is ``poi_value``), or None if none separates anything. With
    ``toward_target``, only predicates whose pairs are targets more often than the whole
    set's are considered (a split may gain information by isolating the other class). With
    ``thresholds_only``, a numeric column proposes ``<=``/``>`` only: in BECAUSE a base
    predicate must bound the value, "both had exactly 320" explains no difference."""
    if np.isnan(poi_value) or len(y) == 0:
        return None
    x = column.values
    n, pos = len(y), float(y.sum())

    def gain(sat_pos, sat_n):
        g = information_gain(sat_pos, sat_n, pos, n)
        return np.where(favours_target(sat_pos, sat_n, pos, n), g, -np.inf) if toward_target else g

    eq = x == poi_value
    best = ("=", poi_value, -np.inf if thresholds_only else float(gain(y[eq].sum(), eq.sum())))
    if column.numeric and not np.isnan(x).all():
        finite = ~np.isnan(x)
        uniq, inverse = np.unique(x[finite], return_inverse=True)
        cnt = np.bincount(inverse, minlength=len(uniq)).astype(np.float64)
        cpos = np.bincount(inverse, weights=y[finite].astype(np.float64), minlength=len(uniq))
        le_n, le_pos = np.cumsum(cnt), np.cumsum(cpos)
        gt_n, gt_pos = le_n[-1] - le_n, le_pos[-1] - le_pos
        for op, ok, sat_n, sat_pos in (
            ("<=", uniq >= poi_value, le_n, le_pos),
            (">", uniq < poi_value, gt_n, gt_pos),
        ):
            if thresholds_only:  # a bound that admits one value only ("at most 0") is an equality
                ok = ok & (np.arange(len(uniq)) != (0 if op == "<=" else len(uniq) - 2))
            if not ok.any():
                continue
            gains = np.where(ok, gain(sat_pos, sat_n), -np.inf)
            k = int(np.argmax(gains))
            if gains[k] > best[2] + 1e-12:
                best = (op, float(uniq[k]), float(gains[k]))
    op, value, best_gain = best
    if best_gain <= 1e-12:
        return None
    mask = _apply(x, op, value)
    return Candidate(column, op, value, best_gain, mask, float(mask.sum()), float(y[mask].sum()))


def favours_target(sat_pos, sat_n, pos: float, n: int) -> np.ndarray:
    """Do the pairs a predicate covers (``sat_pos`` targets of ``sat_n``) hold targets more
    often than all ``n`` pairs (``pos`` targets) do? Counts are cross-multiplied, so a
    predicate covering the same mix is not favoured. Information gain is symmetric: a split
    may gain by isolating the *other* class, which makes a clause less precise (Algorithm 1
    extends it into "a more precise explanation"); ranked with the rest, such predicates
    would also lift the percentile rank of those barely better than chance."""
    return np.asarray(sat_pos, np.float64) * n > pos * np.asarray(sat_n, np.float64)


def _apply(x: np.ndarray, op: str, value: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return {"=": x == value, "<=": x <= value, ">": x > value}[op]


def percentile_rank(values: np.ndarray) -> np.ndarray:
    """Each value's percentile rank among ``values`` (ties share the mean rank), in (0, 1]."""
    values = np.asarray(values, dtype=np.float64)
    order = np.sort(values)
    below = np.searchsorted(order, values, side="left")
    upto = np.searchsorted(order, values, side="right")
    return (below + upto) / (2.0 * len(values)) + 0.5 / len(values)


@dataclass(frozen=True)
class Chosen:
    """One greedy step: the predicate and the training pairs (indices) still covered."""

    candidate: Candidate
    score: float
    keep: np.ndarray


def grow(
    columns: list[PairColumn],
    poi: np.ndarray,
    y: np.ndarray,
    width: int,
    *,
    weight: float = 0.8,
    stop=None,
    credit: np.ndarray | None = None,
    gap_weight: float = GAP_WEIGHT,
    thresholds_only: bool = False,
    lead: np.ndarray | None = None,
) -> list[Chosen]:
    """Algorithm 1 lines 3–18 over training pairs labelled ``y`` (True = target class).

    ``poi[k]`` is the pair of interest's value of ``columns[k]``. Each step keeps only the
    pairs covered so far and proposes no second predicate on a feature already used; it stops at ``width`` predicates, when no predicate that holds for
    the pair of interest covers targets more often than the remaining pairs do, or when
    ``stop(chosen_so_far)`` says so (DESPITE's relevance target).
    Equality predicates of all nominal columns are scored at once (one boolean matrix);
    numeric base columns go through ``best_predicate``'s threshold scan; both keep only
    predicates that ``favours_target``.

    Ranking: the paper's score, ``weight`` · percentile(precision) + (1 − ``weight``) ·
    percentile(generality), ranks candidates among themselves. With ``credit[k]``, the share
    of the pair of interest's duration gap that column k's feature accounts for
    (``explain.gap``), the rank is (1 − ``gap_weight``) · score + ``gap_weight`` · credit: among
    predicates that hold for the pair and are precise, the one naming the part of the time
    that moved wins ("it read 12x the records" over "its compute time was higher").

    ``lead[k]`` says whether column k's predicate may be the first (``explain.lead``): the
    first step picks among those; where the search proposes none of them, the one of
    highest ``credit`` leads as the pair of interest's own value (``f compare = GT``)."""
    usable = [k for k in range(len(columns)) if not np.isnan(poi[k])]
    nominal = [k for k in usable if not columns[k].numeric]
    numeric = [k for k in usable if columns[k].numeric]
    equal = (
        np.vstack([columns[k].values == poi[k] for k in nominal])
        if nominal
        else np.zeros((0, len(y)), bool)
    )
    keep = np.arange(len(y))
    steps: list[Chosen] = []
    used: set[str] = (
        set()
    )  # one predicate per feature: "the same wave (0)" and "wave at most 1" say one thing
    while len(steps) < width and len(keep):
        ys = y[keep]
        found, source = _nominal_candidates(columns, poi, nominal, equal[:, keep], ys)
        for k in numeric:
            col = columns[k]
            cand = best_predicate(
                PairColumn(col.spec, col.pair_op, col.values[keep], True, col.decode),
                float(poi[k]),
                ys,
                toward_target=True,
                thresholds_only=thresholds_only,
            )
            if cand is not None:
                found.append(cand)
                source.append(k)
        fresh = [n for n, c in enumerate(found) if c.column.spec.name not in used]
        found, source = [found[n] for n in fresh], [source[n] for n in fresh]
        if not steps and lead is not None:
            found, source = _lead_candidates(columns, poi, keep, ys, found, source, lead, credit)
        if not found:
            break
        sat = np.array([c.covered for c in found])
        precision = np.array([c.positive for c in found]) / np.maximum(sat, 1)
        generality = sat / len(ys)
        score = weight * percentile_rank(precision) + (1 - weight) * percentile_rank(generality)
        if credit is not None:
            score = (1 - gap_weight) * score + gap_weight * credit[source]
        gains = np.array([c.gain for c in found])
        k = int(np.lexsort((-np.arange(len(found)), gains, score))[-1])
        chosen = found[k]
        used.add(chosen.column.spec.name)
        keep = keep[chosen.mask]
        steps.append(Chosen(chosen, float(score[k]), keep))  # ``keep``: the pairs still covered
        if stop is not None and stop(steps):
            break
    return steps


def _lead_candidates(
    columns, poi, keep: np.ndarray, ys: np.ndarray, found, source, lead: np.ndarray, credit
) -> tuple[list[Candidate], list[int]]:
    """The candidates that may lead (``lead``); where the search proposed none, the equality
    predicate on the pair of interest's value of the allowed column of highest ``credit``."""
    allowed = [n for n, k in enumerate(source) if lead[k]]
    if allowed:
        return [found[n] for n in allowed], [source[n] for n in allowed]
    usable = [
        int(k) for k in np.flatnonzero(lead) if not columns[k].numeric and not np.isnan(poi[k])
    ]
    if not usable:
        return found, source
    k = max(
        usable,
        key=lambda k: (
            0.0 if credit is None else float(credit[k]),
            columns[k].pair_op == "compare",  # "higher", rather than "not the same"
            -k,
        ),
    )
    column = columns[k]
    mask = column.values[keep] == poi[k]
    covered, positive = float(mask.sum()), float(ys[mask].sum())
    gain = float(information_gain(positive, covered, float(ys.sum()), len(ys)))
    return [Candidate(column, "=", float(poi[k]), gain, mask, covered, positive)], [k]


def _nominal_candidates(
    columns, poi, nominal: list[int], equal: np.ndarray, ys: np.ndarray
) -> tuple[list[Candidate], list[int]]:
    """``f = <pair of interest's value>`` for every nominal column that favours the target,
    scored in one pass; with the index of each candidate's column."""
    if not len(nominal):
        return [], []
    sat = np.count_nonzero(equal, axis=1).astype(np.float64)
    sat_pos = np.count_nonzero(equal & ys, axis=1).astype(np.float64)
    pos = float(ys.sum())
    gains = information_gain(sat_pos, sat, pos, len(ys))
    rows = np.flatnonzero((gains > 1e-12) & favours_target(sat_pos, sat, pos, len(ys)))
    found = [
        Candidate(
            columns[nominal[r]],
            "=",
            float(poi[nominal[r]]),
            float(gains[r]),
            equal[r],
            sat[r],
            sat_pos[r],
        )
        for r in rows
    ]
    return found, [nominal[r] for r in rows]
