"""The two naive methods of the PerfXplain paper (section 5), as baselines for the evaluation.

* **RuleOfThumb** ranks the raw features once per log by how much they matter to duration
  in general (Relief — RReliefF, the variant for a numeric target, vectorised here because
  skrebate's handling of missing values is far too slow on task logs), then answers any query
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

from perfx.grammar.ast import Atom, Bool
from perfx.grammar.printer import to_pxql

from .columns import Columns, columns_for
from .explanation import Explanation, Step
from .metrics import generality, metrics_on, share
from .pairs import atom_mask, pair_features
from .request import Request
from .sampling import TrainingSet, training_set

RELIEF_ROWS = 1000
"""Relief compares every row with its neighbours (quadratic): rank on a seeded sample of rows."""
RELIEF_NEIGHBOURS = 10
SIMILARITY = 0.9
"""SimButDiff's s: a related pair is similar to the pair of interest when it agrees on at
least this fraction of the isSame features (the paper's setting)."""


def rule_of_thumb(request: Request) -> Explanation:
    cols = columns_for(request.log, request.entity)
    ranking = relief_ranking(cols)
    first, second = request.first, request.second
    atoms: list[Atom] = []
    for name in ranking:
        if len(atoms) == request.width:
            break
        if _disagree(cols, name, first, second):
            atoms.append(Atom(name, "isSame", "=", Bool(False)))
    return answer_with(request, cols, atoms, "ruleofthumb")


def sim_but_diff(request: Request) -> Explanation:
    cols = columns_for(request.log, request.entity)
    ts = _training(request, cols)
    specs = cols.candidates()
    i = np.concatenate([[request.first], ts.i])
    j = np.concatenate([[request.second], ts.j])
    # Dimensionality reduction (line 3): the isSame features the pair of interest has a
    # value for — a map task has no shuffle counters, and "missing" is no similarity.
    same = [c for c in pair_features(cols, specs, i, j, level=1) if not np.isnan(c.values[0])]
    values = np.array([c.values for c in same]).reshape(len(same), len(i))  # features x (1 + pairs)
    poi, pairs = values[:, 0], values[:, 1:]
    agrees = pairs == poi[:, None]
    similar = agrees.sum(axis=0) >= SIMILARITY * len(same)
    expected = ~ts.observed
    scores = []
    for k in range(len(same)):
        differs = similar & ~agrees[k] & ~np.isnan(pairs[k])
        d = float(ts.weight[differs].sum())
        if d > 0:
            scores.append((float(ts.weight[differs & expected].sum()) / d, d, k))
    scores.sort(key=lambda s: (-s[0], -s[1], s[2]))
    atoms = [same[k].atom("=", poi[k]) for _, _, k in scores[: request.width]]
    return answer_with(request, cols, atoms, "simbutdiff", ts)


def relief_ranking(cols: Columns, seed: int = 0) -> list[str]:
    """Candidate raw features, most important to duration first (Relief, once per log)."""
    key = ("relief", seed)
    if key not in cols.derived:
        cols.derived[key] = _relief(cols, seed)
    return cols.derived[key]


def _relief(cols: Columns, seed: int) -> list[str]:
    specs = [s for s in cols.candidates() if s.name != "duration"]
    duration = cols.numeric("duration")
    rows = np.flatnonzero(~np.isnan(duration))
    if len(rows) > RELIEF_ROWS:
        rows = np.sort(np.random.default_rng(seed).choice(rows, size=RELIEF_ROWS, replace=False))
    if len(rows) < 3 or not specs:
        return [s.name for s in specs]
    matrix = np.column_stack(
        [
            cols.numeric(s.name)[rows] if s.kind == "numeric" else _codes(cols, s.name)[rows]
            for s in specs
        ]
    ).astype(np.float64)
    nominal = np.array([s.kind == "nominal" for s in specs])
    importance = rrelieff(matrix, nominal, duration[rows], min(RELIEF_NEIGHBOURS, len(rows) - 1))
    order = np.argsort(-importance, kind="stable")
    return [specs[k].name for k in order]


def rrelieff(x: np.ndarray, nominal: np.ndarray, target: np.ndarray, k: int) -> np.ndarray:
    """RReliefF (Robnik-Šikonja and Kononenko), the Relief variant for a numeric target:
    a feature matters when near neighbours that differ on it also differ in the target.
    Every row is a probe; its ``k`` nearest neighbours are weighted equally. Numeric
    differences are scaled by the feature's range; a missing value differs by 1/2."""
    span = np.nanmax(x, axis=0) - np.nanmin(x, axis=0)
    span[~(span > 0)] = 1.0
    scaled = np.where(nominal, x, x / span)
    t_span = float(np.ptp(target)) or 1.0
    n = len(x)
    neighbours = np.empty((n, k), dtype=np.int64)
    for start in range(0, n, 64):
        d = _diffs(scaled[start : start + 64, None, :], scaled[None, :, :], nominal).sum(axis=2)
        d[np.arange(d.shape[0]), np.arange(start, start + d.shape[0])] = np.inf
        neighbours[start : start + 64] = np.argpartition(d, k - 1, axis=1)[:, :k]
    diff_a = _diffs(scaled[:, None, :], scaled[neighbours], nominal)  # n x k x features
    diff_t = np.abs(target[:, None] - target[neighbours]) / t_span  # n x k
    w = 1.0 / k
    n_dc = float(diff_t.sum() * w)
    n_da = diff_a.sum(axis=(0, 1)) * w
    n_dcda = (diff_a * diff_t[:, :, None]).sum(axis=(0, 1)) * w
    if n_dc <= 0 or n_dc >= n:
        return np.zeros(x.shape[1])
    return n_dcda / n_dc - (n_da - n_dcda) / (n - n_dc)


def _diffs(a: np.ndarray, b: np.ndarray, nominal: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        d = np.where(nominal, (a != b).astype(np.float64), np.abs(a - b))
    return np.where(np.isnan(a) | np.isnan(b), 0.5, d)


def _codes(cols: Columns, name: str) -> np.ndarray:
    codes = cols.codes(name)[0].astype(np.float64)
    codes[codes < 0] = np.nan
    return codes


def _disagree(cols: Columns, name: str, first: int, second: int) -> bool:
    mask = atom_mask(
        cols, Atom(name, "isSame", "=", Bool(False)), np.array([first]), np.array([second])
    )
    return bool(mask[0])


def _training(request: Request, cols: Columns) -> TrainingSet:
    query = request.query
    return training_set(
        cols,
        list(query.despite.atoms),
        list(query.observed.atoms),
        list(query.expected.atoms),
        sample=request.options.sample,
        seed=request.options.seed,
    )


def answer_with(
    request: Request, cols: Columns, atoms: list[Atom], method: str, ts: TrainingSet | None = None
) -> Explanation:
    """The baseline's clause, in its own order, with the figures PerfXplain reports (every
    baseline answers through it, ``explain.peers`` too)."""
    ts = ts if ts is not None else _training(request, cols)
    current = np.ones(ts.size, dtype=bool)
    steps = []
    for atom in atoms:
        current &= atom_mask(cols, atom, ts.i, ts.j)
        steps.append(
            Step(
                atom,
                "because",
                share(ts.weight, ts.observed, current),
                generality(ts.weight, current),
            )
        )
    return Explanation(
        query=to_pxql(request.query),
        entity=request.entity,
        pair=request.pair_ids,
        despite=[],
        because=steps,
        metrics=metrics_on(cols, ts, atoms),
        notes=request.notes,
        method=method,
        query_ast=request.query,
    )
