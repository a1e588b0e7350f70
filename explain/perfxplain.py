"""The PerfXplain method: generate (or extend) DESPITE by relevance, then BECAUSE by
precision, each with Algorithm 1 on a balanced sample of related pairs.

The DESPITE extension is generated when the query asks for it (``WITH DESPITE WIDTH n``) or
has no DESPITE at all (then up to ``AUTO_DESPITE_WIDTH`` predicates, the first of a task
pair of one stage being that stage, of a stage or job pair of one task count that count:
``_same_shape``); it grows while the
relevance P(exp | des′ ∧ des) is below the threshold and still improving. The BECAUSE clause
is then learnt on a fresh sample drawn under DESPITE ∧ des′, so that it is balanced there.
"""

from __future__ import annotations

import numpy as np

from perfx.grammar.ast import Atom, Bool
from perfx.grammar.printer import to_pxql

from .columns import Columns, columns_for
from .errors import ExplainError, TooFewPairs
from .explanation import Explanation, Step, format_conjunction
from .lead import may_lead
from .metrics import metrics_on, ordered_steps, share
from .options import MIN_PER_LABEL
from .pairs import ORDER, PairColumn, pair_features, says_alike, states_difference, varies
from .request import Request
from .sampling import TrainingSet, training_set
from .search import grow

AUTO_DESPITE_WIDTH = 2
"""Width of the DESPITE generated for a query that has none and does not ask for one."""

MIN_RELEVANCE_GAIN = 0.05
MIN_DESPITE_GENERALITY = 0.1
"""A DESPITE step must raise relevance by this much and keep this share of the pairs it
starts from: smaller gains on narrower subsets are the sample's noise, not context."""

WEAK_GAIN = 0.25
"""A BECAUSE clause that closes less than this share of the gap between chance (the share of
related pairs that performed as observed anyway) and certainty explains little: the answer
says so instead of passing it off."""


def perfxplain(request: Request) -> Explanation:
    cols = columns_for(request.log, request.entity)
    query = request.query
    despite = list(query.despite.atoms)
    observed, expected = list(query.observed.atoms), list(query.expected.atoms)
    ts = _training(request, cols, despite, observed, expected, seed=request.options.seed)
    despite_width = (
        request.options.despite_width
        if request.options.despite_width is not None
        else (0 if despite else AUTO_DESPITE_WIDTH)
    )
    des_steps: list[Step] = []
    if despite_width > 0:
        seeded, grown_on = (
            _same_shape(request, cols, despite, observed, expected)
            if request.options.despite_width is None
            else ([], None)
        )
        des_atoms = seeded + generate_despite(
            request, cols, grown_on or ts, despite_width - len(seeded)
        )
        des_steps = ordered_steps(cols, des_atoms, ts, "despite", keep_order=bool(seeded))
        if des_atoms:
            request.notes.append(
                f"generated DESPITE {format_conjunction(des_atoms)} (relevance {des_steps[-1].score:.2f}) "
                f"from the context features {_considered(cols)}"
            )
            ts = _training(
                request,
                cols,
                despite + des_atoms,
                observed,
                expected,
                seed=request.options.seed + 1,
            )
        elif request.options.despite_width:
            relevance = share(ts.weight, ~ts.observed, np.ones(ts.size, dtype=bool))
            request.notes.append(
                f"no DESPITE generated: relevance is {relevance:.2f} and no predicate raises it by {MIN_RELEVANCE_GAIN} "
                f"while keeping {MIN_DESPITE_GENERALITY:.0%} of the pairs"
                if relevance < request.options.relevance_threshold
                else f"no DESPITE generated: relevance is already {relevance:.2f}"
            )
    bec_atoms = learn(request, cols, ts, "because", request.width)
    metrics = metrics_on(cols, ts, bec_atoms)
    chance = 1 - metrics.relevance  # share of related pairs that performed as observed anyway
    if not metrics.precision >= chance + WEAK_GAIN * (1 - chance):
        request.notes.append(
            f"weak explanation: precision {metrics.precision:.2f} against {chance:.2f} for any related pair; "
            "nothing in the log tells this pair apart from pairs that performed as expected"
        )
    return Explanation(
        query=to_pxql(query),
        entity=request.entity,
        pair=request.pair_ids,
        despite=des_steps,
        because=ordered_steps(cols, bec_atoms, ts, "because", keep_order=True),
        metrics=metrics,
        notes=request.notes,
        method="perfxplain",
        query_ast=query,
    )


WHERE_CREDIT = 0.5
"""Credit a measured time (compute time, CPU time) gets for the cost part of the gap it
accounts for, against 1 for a feature that says why the cost rose (spill, a cold executor,
the load on its host): "its compute time was higher" says where the time went, and is
preferred only when nothing in the log says why."""


MIN_CREDIT = 0.01
"""A feature that measures a part of the time (or what it takes: records, spill) stands in
BECAUSE only if it accounts for at least this share of the pair's gap."""


def learn(
    request: Request, cols: Columns, ts: TrainingSet, kind: str, width: int, stop=None
) -> list[Atom]:
    """Algorithm 1 on ``ts`` for one clause.

    BECAUSE targets observed pairs with atoms that state a difference of the pair
    (``states_difference``), each credited with the share of the pair's gap its feature
    accounts for (``explain.gap``); DESPITE targets expected pairs with atoms on context
    features (``FeatureRegistry.context``) that say the pair is alike."""
    specs = cols.candidates() if kind == "because" else cols.context()
    i = np.concatenate([[request.first], ts.i])
    j = np.concatenate([[request.second], ts.j])
    columns = pair_features(cols, specs, i, j, request.options.level)
    poi = np.array([c.values[0] for c in columns])
    for c in columns:
        c.values = c.values[1:]
    keep = varies(np.vstack([c.values for c in columns])) if columns else np.zeros(0, bool)
    fits = says_alike if kind == "despite" else _explains_difference
    keep &= np.array([bool(k) and fits(c, v) for c, v, k in zip(columns, poi, keep)], dtype=bool)
    columns, poi = [c for c, k in zip(columns, keep) if k], poi[keep]
    y = ts.observed if kind == "because" else ~ts.observed
    credit = gap_credit(request, columns, poi) if kind == "because" else None
    if (
        credit is not None
    ):  # a part of the time that moved against the gap, or not at all, is no cause
        useful = np.array(
            [not c.spec.accounts or credit[k] >= MIN_CREDIT for k, c in enumerate(columns)],
            dtype=bool,
        )
        columns, poi, credit = (
            [c for c, u in zip(columns, useful) if u],
            poi[useful],
            credit[useful],
        )
    steps = grow(
        columns,
        poi,
        y,
        width,
        weight=request.options.precision_weight,
        stop=stop,
        credit=credit,
        gap_weight=request.options.gap_weight,
        thresholds_only=kind == "because",
        lead=may_lead(request, cols, columns, credit) if credit is not None else None,
    )
    return [s.candidate.atom for s in steps]


def _explains_difference(column: PairColumn, value: float) -> bool:
    """A BECAUSE atom states a difference of the pair, or bounds a value both share that is
    not context: "both had wave at most 1" says where the pair stands, a DESPITE's job."""
    return states_difference(column, value) and not (
        column.pair_op == "base" and column.spec.context
    )


def gap_credit(request: Request, columns: list[PairColumn], poi: np.ndarray) -> np.ndarray | None:
    """Per pair feature, the share of the pair of interest's gap its feature accounts for;
    None without a gap.

    Every feature that accounts for a part costs more time the more of it there is (records,
    GC, spill, load on the host, a T flag such as first task on its executor), so only a
    difference in the gap's direction earns credit: "higher" for the slower execution,
    "lower" for the faster. Base predicates earn none: what both share moves no part of the
    gap."""
    gap = request.gap
    if gap is None or gap.total == 0:
        return None
    toward = ORDER["GT"] if gap.total > 0 else ORDER["LT"]
    cols = columns_for(request.log, request.entity)
    credit = np.zeros(len(columns))
    for k, column in enumerate(columns):
        spec = column.spec
        if column.pair_op == "base" or not spec.accounts:
            continue
        if column.pair_op == "compare" and poi[k] != toward:
            continue
        if spec.kind == "nominal" and _flag_against(cols, spec.name, request, toward):
            continue
        share = gap.accounted(spec.accounts, spec.name)
        if spec.unit == "ms":  # a measured time accounts for no more than it moved itself
            values = cols.numeric(spec.name)
            share = min(share, abs(values[request.first] - values[request.second]) / abs(gap.total))
        if spec.time_part and set(spec.accounts) <= {"cost", "compute"}:
            share *= WHERE_CREDIT
        credit[k] = share
    return credit


def _flag_against(cols: Columns, name: str, request: Request, toward: float) -> bool:
    """Is a T/F feature set on the side that took less time (or on neither)? A flag such as
    first task on its executor costs time where it is T; its difference explains nothing
    the other way round."""
    column = cols.table[name]
    first, second = str(column.iat[request.first]), str(column.iat[request.second])
    if {first, second} - {"T", "F", "True", "False"}:
        return False
    slow_side = first if toward == ORDER["GT"] else second
    return slow_side not in ("T", "True")


SAME_SHAPE = {"task": "stage_key", "stage": "task_count", "job": "task_count"}
"""The context a pair of each entity is first compared within: a task's stage, a stage's or
a job's task count."""


def _same_shape(
    request: Request, cols: Columns, despite, observed, expected
) -> tuple[list[Atom], TrainingSet | None]:
    """``([stage_key isSame = T], its training set)`` when the pair ran in one stage and the
    log holds enough pairs of that kind to learn from, else ``([], None)``; for a stage or a
    job, ``task_count isSame = T`` where the pair has the same number of tasks.

    A task is compared with its stage's tasks — the same code on other partitions — and the
    reference perfx picks comes from there, so the same stage is the first context of a task
    question. Relevance alone never finds it in a log of many stages: pairs of one stage are
    a sliver of all pairs, under the generality a DESPITE step must keep; and across stages
    nothing is comparable ("it read 12x the records" is precise only within its stage).
    Stages and jobs are compared like with like the same way: of the same task count
    (``reference.STRUCTURE``), a 128-task stage is not compared with 1-task ones."""
    column = SAME_SHAPE.get(request.entity)
    if column is None or column not in cols.table.columns:
        return [], None
    values = cols.table[column].to_numpy()
    if values[request.first] != values[request.second]:
        return [], None
    atom = Atom(column, "isSame", "=", Bool(True))
    ts = training_set(
        cols,
        despite + [atom],
        observed,
        expected,
        sample=request.options.sample,
        seed=request.options.seed,
    )
    if ts.overlap is not None or ts.n_observed < MIN_PER_LABEL or ts.n_expected < MIN_PER_LABEL:
        return [], None
    return [atom], ts


def generate_despite(request: Request, cols: Columns, ts: TrainingSet, width: int) -> list[Atom]:
    """des′ by relevance: grown until relevance reaches the threshold or stops improving."""
    if width <= 0:
        return []
    expected = ~ts.observed
    everything = np.ones(ts.size, dtype=bool)
    start = share(ts.weight, expected, everything)
    if start >= request.options.relevance_threshold:
        return []
    best, kept = [start], [float(ts.weight.sum())]

    def stop(steps) -> bool:
        mask = np.zeros(ts.size, dtype=bool)
        mask[steps[-1].keep] = True
        relevance = share(ts.weight, expected, mask)
        mass = float(ts.weight[mask].sum())
        # A context in which (almost) nothing performed as observed leaves no question.
        starves = int(np.count_nonzero(ts.observed[mask])) < MIN_PER_LABEL
        if (
            relevance < best[-1] + MIN_RELEVANCE_GAIN
            or mass < MIN_DESPITE_GENERALITY * kept[-1]
            or starves
        ):
            steps.pop()
            return True
        best.append(relevance)
        kept.append(mass)
        return relevance >= request.options.relevance_threshold

    return learn(request, cols, ts, "despite", width, stop=stop)


def _considered(cols: Columns) -> str:
    """The context features a generated DESPITE was drawn from, named for the note."""
    names = [s.name for s in cols.context()]
    return ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")


def _training(
    request: Request, cols: Columns, despite, observed, expected, seed: int
) -> TrainingSet:
    """The balanced sample, refusing the query when the log cannot answer it."""
    ts = training_set(cols, despite, observed, expected, sample=request.options.sample, seed=seed)
    ids = cols.table["id"].to_numpy()
    if ts.overlap is not None:
        a, b = ts.overlap
        raise ExplainError(
            f"OBSERVED ({format_conjunction(observed)}) and EXPECTED ({format_conjunction(expected)}) both hold for "
            f"the pair ({ids[a]}, {ids[b]}): they must exclude each other"
        )
    if ts.n_observed < MIN_PER_LABEL or ts.n_expected < MIN_PER_LABEL:
        raise TooFewPairs(_too_few(ts, cols.n, cols.entity, despite, observed, expected))
    return ts


def _pairs(count: float) -> str:
    return "pair" if round(count) == 1 else "pairs"


def _too_few(ts: TrainingSet, n: int, entity: str, despite, observed, expected) -> str:
    """Which clause starves the query: the label with fewer pairs, and DESPITE when it
    excludes pairs of the log (a DESPITE that holds for every pair cannot be relaxed)."""
    approx = "" if ts.exact else "about "
    counts = (
        f"{approx}{ts.observed_total:,.0f} related {_pairs(ts.observed_total)} "
        f"{'behaves' if round(ts.observed_total) == 1 else 'behave'} as OBSERVED and "
        f"{approx}{ts.expected_total:,.0f} as EXPECTED "
        f"(of {n * (n - 1):,} {entity} pairs, {approx}{ts.despite_total:,.0f} satisfy DESPITE)"
    )
    if ts.expected_total <= ts.observed_total:
        hint = f"relax EXPECTED ({format_conjunction(expected)})"
    else:
        hint = f"relax OBSERVED ({format_conjunction(observed)})"
    if despite and ts.despite_total < n * (n - 1):
        hint += f" or DESPITE ({format_conjunction(despite)})"
    return f"too few related pairs to learn from: {counts}; need at least {MIN_PER_LABEL} of each: {hint}"
