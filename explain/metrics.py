"""Relevance, precision and generality (section 3.3), per clause step and for a whole
explanation, on the training log or on another (held-out) log.

All figures are computed from the clauses' atoms on a training sample, weighting each
sampled pair by the population share of its label, so that a balanced sample still
estimates P(· | ·) over all related pairs:

* relevance  P(exp | des′ ∧ des)
* precision  P(obs | bec ∧ des′ ∧ des)
* generality P(bec | des′ ∧ des)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from perfx.grammar.ast import Atom, Query
from perfx.logs.model import Log

from .columns import Columns, columns_for
from .explanation import ClauseKind, Metrics, Step
from .options import DEFAULT_SAMPLE
from .pairs import atom_mask, conjunction_mask
from .sampling import TrainingSet, training_set


def share(weight: np.ndarray, target: np.ndarray, mask: np.ndarray) -> float:
    """Weighted P(target | mask); NaN when no sampled pair satisfies ``mask``."""
    total = float(weight[mask].sum())
    return float(weight[mask & target].sum()) / total if total > 0 else float("nan")


def generality(weight: np.ndarray, mask: np.ndarray) -> float:
    total = float(weight.sum())
    return float(weight[mask].sum()) / total if total > 0 else float("nan")


def ordered_steps(
    cols: Columns,
    atoms: Sequence[Atom],
    ts: TrainingSet,
    kind: ClauseKind,
    *,
    keep_order: bool = False,
) -> list[Step]:
    """The clause's atoms ordered by marginal figure (precision for BECAUSE, relevance for
    DESPITE): at each position the atom that raises the cumulative figure most; each step
    carries the cumulative figure and generality of the clause up to it. ``keep_order``
    keeps the atoms' own order (the search's, which weighs the gap each accounts for)."""
    target = ts.observed if kind == "because" else ~ts.observed
    masks = [atom_mask(cols, a, ts.i, ts.j) for a in atoms]
    remaining = list(range(len(atoms)))
    current = np.ones(ts.size, dtype=bool)
    steps: list[Step] = []
    while remaining:
        if keep_order:
            best = remaining[0]
        else:
            figures = [share(ts.weight, target, current & masks[k]) for k in remaining]
            best = remaining[int(np.argmax(np.nan_to_num(figures, nan=-1.0)))]
        remaining.remove(best)
        current = current & masks[best]
        steps.append(
            Step(
                atoms[best], kind, share(ts.weight, target, current), generality(ts.weight, current)
            )
        )
    return steps


def metrics_on(cols: Columns, ts: TrainingSet, because: Sequence[Atom]) -> Metrics:
    """Whole-explanation figures on a training set drawn under DESPITE ∧ des′."""
    bec = conjunction_mask(cols, because, ts.i, ts.j)
    related = ts.observed_total + ts.expected_total
    return Metrics(
        relevance=ts.expected_total / related if related > 0 else float("nan"),
        precision=share(ts.weight, ts.observed, bec),
        generality=generality(ts.weight, bec),
        related_pairs=round(ts.related),
        sampled=ts.size,
        observed=ts.n_observed,
        expected=ts.n_expected,
        related_exact=ts.exact,
    )


def measure(
    log: Log,
    query: Query,
    despite: Sequence[Atom] = (),
    because: Sequence[Atom] = (),
    *,
    sample: int = DEFAULT_SAMPLE,
    seed: int = 0,
) -> Metrics:
    """Figures of the explanation (des′ = ``despite``, bec = ``because``) for ``query`` on
    ``log`` — typically a held-out half of the log the explanation was learnt on. The pair of
    interest plays no part: only the clauses are measured. No related pair gives NaN figures."""
    cols, ts = measurement_set(log, query, despite, sample=sample, seed=seed)
    return metrics_on(cols, ts, because)


def measurement_set(
    log: Log,
    query: Query,
    despite: Sequence[Atom] = (),
    *,
    sample: int = DEFAULT_SAMPLE,
    seed: int = 0,
) -> tuple[Columns, TrainingSet]:
    """The related pairs of ``log`` under the query's DESPITE ∧ ``despite``, sampled as for
    training: what ``measure`` scores BECAUSE clauses on. Every explanation with the same
    DESPITE is measured on the same set, so a caller measuring many keeps it."""
    cols = columns_for(log, query.entity)
    ts = training_set(
        cols,
        list(query.despite.atoms) + list(despite),
        list(query.observed.atoms),
        list(query.expected.atoms),
        sample=sample,
        seed=seed,
    )
    return cols, ts
