"""The two naive methods of the PerfXplain paper (section 5), as baselines for the evaluation.

* **RuleOfThumb** ranks the raw features once per log by how much they matter to duration
  in general (Relief, skrebate's ReliefF with a continuous endpoint), then answers any query
  with the top-w features the pair of interest disagrees on: ``f isSame = F``. It ignores
  the query's clauses, which is its weakness.
* **SimButDiff** (Algorithm 2) keeps the isSame features of the query's related pairs, the
  pairs that agree with the pair of interest on at least ``s`` = 90 % of them, and scores each
  feature by how often similar pairs that differ from the pair of interest on it performed as
  expected; the top-w become ``f isSame = <the pair's value>``.

Both return the engine's ``Explanation``, with figures measured like PerfXplain's (on the
balanced sample of related pairs), so ``perfx explain --method`` can compare them directly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from perfx.grammar.ast import Atom, Bool

from .columns import Columns, columns_for
from .engine import register_method
from .explanation import Explanation, Step
from .metrics import generality, metrics_on, share
from .pairs import atom_mask, pair_features
from .request import Request
from .sampling import TrainingSet, training_set

RELIEF_ROWS = 400
"""Relief compares every row with its neighbours (quadratic): rank on a seeded sample of rows."""
RELIEF_NEIGHBOURS = 10
SIMILARITY = 0.9
"""SimButDiff's s: a related pair is similar to the pair of interest when it agrees on at
least this fraction of the isSame features (the paper's setting)."""

_RELIEF_CACHE = "_perfx_relief_ranking"


@register_method("ruleofthumb")
def rule_of_thumb(request: Request) -> Explanation:
    cols = columns_for(request.log, request.entity)
    ranking = relief_ranking(cols)
    first, second = request.first, request.second
    atoms = []
    for name in ranking:
        if len(atoms) == request.width:
            break
        if _disagree(cols, name, first, second):
            atoms.append(Atom(name, "isSame", "=", Bool(False)))
    return _answer(request, cols, atoms, "ruleofthumb")


@register_method("simbutdiff")
def sim_but_diff(request: Request) -> Explanation:
    cols = columns_for(request.log, request.entity)
    ts = _training(request, cols)
    specs = cols.candidates()
    i = np.concatenate([[request.first], ts.i])
    j = np.concatenate([[request.second], ts.j])
    same = pair_features(cols, specs, i, j, level=1)
    values = np.array([c.values for c in same])  # features x (1 + pairs), NaN = missing
    poi, pairs = values[:, 0], values[:, 1:]
    agrees = pairs == poi[:, None]
    similar = agrees.sum(axis=0) >= SIMILARITY * len(same)
    expected = ~ts.observed
    scores = []
    for k, column in enumerate(same):
        if np.isnan(poi[k]):
            continue
        differs = similar & ~agrees[k] & ~np.isnan(pairs[k])
        d = float(ts.weight[differs].sum())
        if d > 0:
            scores.append((float(ts.weight[differs & expected].sum()) / d, d, k))
    scores.sort(key=lambda s: (-s[0], -s[1], s[2]))
    atoms = [same[k].atom("=", poi[k]) for _, _, k in scores[: request.width]]
    return _answer(request, cols, atoms, "simbutdiff", ts)


def relief_ranking(cols: Columns, seed: int = 0) -> list[str]:
    """Candidate raw features, most important to duration first (Relief, once per log)."""
    cache = cols.log.__dict__.setdefault(_RELIEF_CACHE, {})
    key = (cols.entity, len(cols.table))
    if key not in cache:
        cache[key] = _relief(cols, seed)
    return cache[key]


def _relief(cols: Columns, seed: int) -> list[str]:
    from skrebate import ReliefF

    specs = [s for s in cols.candidates() if s.name != "duration"]
    duration = cols.numeric("duration")
    rows = np.flatnonzero(~np.isnan(duration))
    if len(rows) > RELIEF_ROWS:
        rows = np.sort(np.random.default_rng(seed).choice(rows, size=RELIEF_ROWS, replace=False))
    matrix = np.column_stack([
        cols.numeric(s.name)[rows] if s.kind == "numeric" else _codes(cols, s.name)[rows] for s in specs
    ]).astype(np.float64)
    varying = np.array([len(pd.unique(matrix[:, k][~np.isnan(matrix[:, k])])) > 1 for k in range(len(specs))])
    if len(rows) < 3 or not varying.any():
        return [s.name for s in specs]
    relief = ReliefF(n_neighbors=min(RELIEF_NEIGHBOURS, len(rows) - 1), n_jobs=1)
    relief.fit(matrix[:, varying], duration[rows])
    importance = np.full(len(specs), -np.inf)
    importance[varying] = relief.feature_importances_
    order = np.argsort(-importance, kind="stable")
    return [specs[k].name for k in order]


def _codes(cols: Columns, name: str) -> np.ndarray:
    codes = cols.codes(name)[0].astype(np.float64)
    codes[codes < 0] = np.nan
    return codes


def _disagree(cols: Columns, name: str, first: int, second: int) -> bool:
    mask = atom_mask(cols, Atom(name, "isSame", "=", Bool(False)), np.array([first]), np.array([second]))
    return bool(mask[0])


def _training(request: Request, cols: Columns) -> TrainingSet:
    query = request.query
    return training_set(cols, list(query.despite.atoms), list(query.observed.atoms), list(query.expected.atoms),
                        sample=request.sample, seed=request.seed)


def _answer(request: Request, cols: Columns, atoms: list[Atom], method: str, ts: TrainingSet | None = None) -> Explanation:
    """The baseline's clause, in its own order, with the figures PerfXplain reports."""
    ts = ts if ts is not None else _training(request, cols)
    current = np.ones(ts.size, dtype=bool)
    steps = []
    for atom in atoms:
        current &= atom_mask(cols, atom, ts.i, ts.j)
        steps.append(Step(atom, "because", share(ts.weight, ts.observed, current), generality(ts.weight, current)))
    from .perfxplain import _canonical

    return Explanation(query=_canonical(request.query), entity=request.entity, pair=request.pair_ids, despite=[],
                       because=steps, metrics=metrics_on(cols, ts, atoms), notes=request.notes, method=method,
                       query_ast=request.query)
