"""Training examples: the related pairs of a query, labelled, and a balanced sample of them.

A pair (i, j) is *related* when DESPITE holds and OBSERVED or EXPECTED holds (Definition 7);
its label is observed or expected. A log of n executions has n² ordered pairs, so they are
never materialised. Instead the DESPITE clause's ``f isSame = T`` and base atoms (``f = v``,
``f <= c``...) block the rows — hash join on equal values, i.e. only pairs inside one block
can be related — and pairs are drawn directly as index pairs inside blocks, each block
weighted by its number of ordered pairs, so every candidate pair is equally likely. When the
candidate pairs are few they are all enumerated and the counts are exact.

The sample is balanced as in section 4.3 (about m/2 observed and m/2 expected); each sampled
pair carries a weight (population count of its label / sampled count of its label) so that
metrics computed on the sample estimate the figures of the whole related set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfx.grammar.ast import Atom, Bool

from .columns import Columns
from .options import DEFAULT_SAMPLE
from .pairs import atom_mask, conjunction_mask

EXACT_LIMIT = 1_000_000
"""Up to this many candidate pairs, enumerate them all (exact counts)."""

BATCH = 20
MAX_DRAWS = 600_000
"""Sampled mode: a first batch of BATCH × sample candidate pairs, then batches sized by the
labels' observed rates, until both labels are filled or MAX_DRAWS pairs were drawn."""


@dataclass
class TrainingSet:
    """A labelled sample of related pairs and what is known of the whole related set.

    ``related``/``observed_total``/``expected_total`` are exact when ``exact``, else
    estimates (candidate pairs × fraction seen in a uniform sample of candidates);
    ``despite_total`` counts the candidate pairs satisfying DESPITE (for error messages);
    ``overlap`` is one pair satisfying both OBSERVED and EXPECTED, if any was seen."""

    i: np.ndarray
    j: np.ndarray
    observed: np.ndarray
    weight: np.ndarray
    candidates: int
    despite_total: float
    related: float
    observed_total: float
    expected_total: float
    exact: bool
    overlap: tuple[int, int] | None = None

    @property
    def size(self) -> int:
        return len(self.i)

    @property
    def n_observed(self) -> int:
        return int(self.observed.sum())

    @property
    def n_expected(self) -> int:
        return int(self.size - self.observed.sum())


@dataclass
class Blocks:
    """Rows grouped by the DESPITE clause's equality atoms: ``order`` lists eligible rows
    block by block, ``starts``/``sizes`` delimit blocks, ``pairs`` counts ordered pairs."""

    order: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    @property
    def pairs(self) -> np.ndarray:
        return self.sizes * (self.sizes - 1)


def blocks(cols: Columns, despite: list[Atom]) -> Blocks:
    """Group the rows that can take part in a DESPITE-satisfying pair, by equal values of
    every blocking feature (O(n): hashing, no pair is built)."""
    keep = np.ones(cols.n, dtype=bool)
    key = np.zeros(cols.n, dtype=np.int64)
    rows = np.arange(cols.n)
    for atom in despite:
        if not _blocks_on(atom):
            continue
        spec = cols.spec(atom.feature)
        if atom.pair_op == "base":
            keep &= atom_mask(cols, atom, rows, rows)
        codes = cols.key(spec.name, spec)
        keep &= codes >= 0
        key = pd.factorize(key * (int(codes.max(initial=0)) + 1) + np.maximum(codes, 0))[0].astype(
            np.int64
        )
    eligible = np.flatnonzero(keep)
    block = pd.factorize(key[eligible])[0]
    order = eligible[np.argsort(block, kind="stable")]
    sizes = np.bincount(block).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return Blocks(order, starts, sizes)


def _blocks_on(atom: Atom) -> bool:
    """Atoms that can only hold for pairs of equal values: ``f isSame = T`` and base atoms."""
    if atom.pair_op == "base":
        return atom.op != "!="
    return (
        atom.pair_op == "isSame"
        and isinstance(atom.value, Bool)
        and (atom.value.value == (atom.op == "="))
    )


def all_pairs(b: Blocks) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair (i ≠ j) inside every block."""
    per_row = np.repeat(b.sizes, b.sizes)
    row_start = np.repeat(b.starts, b.sizes)
    pos = np.arange(len(b.order))
    i_pos = np.repeat(pos, per_row)
    seg_start = np.repeat(np.cumsum(per_row) - per_row, per_row)
    j_pos = np.repeat(row_start, per_row) + (np.arange(len(i_pos)) - seg_start)
    keep = i_pos != j_pos
    return b.order[i_pos[keep]], b.order[j_pos[keep]]


def draw_pairs(b: Blocks, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``k`` ordered pairs drawn uniformly (with replacement) among all in-block pairs."""
    cum = np.cumsum(b.pairs)
    block = np.searchsorted(cum, rng.integers(0, cum[-1], size=k), side="right")
    size = b.sizes[block]
    a = (rng.random(k) * size).astype(np.int64)
    c = (rng.random(k) * (size - 1)).astype(np.int64)
    c += c >= a
    start = b.starts[block]
    return b.order[start + a], b.order[start + c]


def training_set(
    cols: Columns,
    despite: list[Atom],
    observed: list[Atom],
    expected: list[Atom],
    *,
    sample: int = DEFAULT_SAMPLE,
    seed: int = 0,
) -> TrainingSet:
    """The balanced training sample of the query's related pairs (section 4.3)."""
    rng = np.random.default_rng(seed)
    b = blocks(cols, despite)
    candidates = int(b.pairs.sum())
    if candidates == 0:
        return _empty()
    if candidates <= EXACT_LIMIT:
        i, j = all_pairs(b)
        des, obs, exp = _labels(cols, despite, observed, expected, i, j)
        totals, exact = _totals(des, obs, exp, 1.0), True
    else:
        i, j, des, obs, exp = _draw_until_full(cols, b, despite, observed, expected, sample, rng)
        totals, exact = _totals(des, obs, exp, candidates / len(i)), False
        kept = np.flatnonzero(obs | exp)
        i, j, des, obs, exp = _distinct(cols.n, i[kept], j[kept], des[kept], obs[kept], exp[kept])
    both = np.flatnonzero(des & obs & exp)
    overlap = (int(i[both[0]]), int(j[both[0]])) if len(both) else None
    obs_rel, exp_rel = obs & ~exp, exp & ~obs
    des_total, related, n_obs, n_exp = totals
    pick_obs = _choose(np.flatnonzero(obs_rel), sample // 2, rng)
    pick_exp = _choose(np.flatnonzero(exp_rel), sample - sample // 2, rng)
    picked = np.concatenate([pick_obs, pick_exp])
    weight = np.concatenate(
        [
            np.full(len(pick_obs), n_obs / max(len(pick_obs), 1)),
            np.full(len(pick_exp), n_exp / max(len(pick_exp), 1)),
        ]
    )
    return TrainingSet(
        i=i[picked],
        j=j[picked],
        observed=np.concatenate([np.ones(len(pick_obs), bool), np.zeros(len(pick_exp), bool)]),
        weight=weight,
        candidates=candidates,
        despite_total=des_total,
        related=related,
        observed_total=float(n_obs),
        expected_total=float(n_exp),
        exact=exact,
        overlap=overlap,
    )


def _labels(cols, despite, observed, expected, i, j):
    des = conjunction_mask(cols, despite, i, j)
    return (
        des,
        des & conjunction_mask(cols, observed, i, j),
        des & conjunction_mask(cols, expected, i, j),
    )


def _totals(des, obs, exp, scale: float) -> tuple[float, float, float, float]:
    """(DESPITE pairs, related pairs, observed-only, expected-only), scaled to all candidates."""
    return tuple(float(m.sum()) * scale for m in (des, obs | exp, obs & ~exp, exp & ~obs))  # type: ignore[return-value]


def _draw_until_full(cols, b, despite, observed, expected, sample, rng):
    """Uniform batches of candidate pairs until each label has sample/2 pairs (or the cap)."""
    parts = []
    want = np.array([sample // 2, sample - sample // 2])
    have = np.zeros(2)
    drawn, size = 0, BATCH * sample
    while drawn < MAX_DRAWS:
        size = int(min(size, MAX_DRAWS - drawn))
        i, j = draw_pairs(b, size, rng)
        des, obs, exp = _labels(cols, despite, observed, expected, i, j)
        parts.append((i, j, des, obs, exp))
        have += [obs.sum(), exp.sum()]
        drawn += size
        if (have >= want).all():
            break
        rate = np.maximum(have, 1) / drawn
        size = int(1.5 * np.max((want - have) / rate))
    return tuple(np.concatenate(p) for p in zip(*parts))


def _distinct(n: int, i, j, *masks):
    """Drop repeated draws of the same pair (estimates use all draws, the sample distinct)."""
    _, first = np.unique(i.astype(np.int64) * n + j, return_index=True)
    first.sort()
    return (i[first], j[first], *(m[first] for m in masks))


def _choose(idx: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    return idx if len(idx) <= k else np.sort(rng.choice(idx, size=k, replace=False))


def _empty() -> TrainingSet:
    e = np.zeros(0, dtype=np.int64)
    return TrainingSet(e, e, np.zeros(0, bool), np.zeros(0), 0, 0.0, 0.0, 0.0, 0.0, True)
