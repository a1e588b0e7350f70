"""Entropy, information gain and the per-feature / greedy search of Algorithm 1."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from perfx.explain.pairs import PairColumn
from perfx.explain.search import best_predicate, entropy, grow, information_gain, percentile_rank
from perfx.grammar.ast import Number
from perfx.logs.registry import FeatureSpec

SPEC = FeatureSpec("x", "numeric", "none", "feature", "")


def column(values, numeric=True, name="x") -> PairColumn:
    spec = FeatureSpec(name, "numeric", "none", "feature", "")
    return PairColumn(
        spec,
        "base" if numeric else "compare",
        np.asarray(values, float),
        numeric,
        lambda v: Number(float(v)),
    )


def test_figure_2_entropy_and_gain():
    # 60 training pairs, 36 observed (+): p = 0.6, H = 0.97.
    assert round(float(entropy(0.6)), 2) == 0.97
    # Predicate A puts 35 + on its grey side and 1 + with the 24 - outside: H(P|A) = 0.10.
    gain_a = float(information_gain(35, 35, 36, 60))
    assert round(float(entropy(0.6)) - gain_a, 2) == 0.10
    assert round(gain_a, 2) == 0.87
    # Predicate B splits the pairs without changing the mix (p = 0.6 on both sides): gain 0.
    assert float(information_gain(18, 30, 36, 60)) == pytest.approx(0.0, abs=1e-12)
    assert float(entropy(0.0)) == float(entropy(1.0)) == 0.0


def test_single_numeric_split_matches_sklearn_entropy_stump():
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(0, 1, 300), 2)
    y = (x + rng.normal(0, 0.6, 300)) > 0.4
    tree = DecisionTreeClassifier(criterion="entropy", max_depth=1).fit(x.reshape(-1, 1), y)
    threshold = tree.tree_.threshold[0]
    impurity = tree.tree_.impurity
    n = tree.tree_.weighted_n_node_samples
    sk_gain = impurity[0] - (n[1] * impurity[1] + n[2] * impurity[2]) / n[0]
    # A pair of interest on the satisfied side of sklearn's split: our best split is the same
    # partition (sklearn's threshold is a midpoint, ours the observed value below it).
    poi = x[x <= threshold].max()
    cand = best_predicate(column(x), poi, y)
    assert cand.op == "<="
    assert cand.value == pytest.approx(x[x <= threshold].max())
    assert cand.gain == pytest.approx(sk_gain, rel=1e-9)
    assert (cand.mask == (x <= threshold)).all()


def test_best_predicate_holds_for_pair_of_interest():
    x = np.array([1, 2, 3, 10, 11, 12], float)
    y = np.array([0, 0, 0, 1, 1, 1], bool)
    # The separating split is x > 3, but a pair of interest with x = 2 cannot use it:
    assert best_predicate(column(x), 11.0, y).atom.op == ">"
    low = best_predicate(column(x), 2.0, y)
    assert low.op in ("<=", "=") and low.mask[1]
    # Nominal columns only test equality with the pair of interest's value.
    nominal = best_predicate(column([0, 0, 1, 1, 1, 1], numeric=False), 1.0, y)
    assert nominal.op == "=" and nominal.value == 1.0
    # A missing value for the pair of interest: no predicate can hold for it.
    assert best_predicate(column(x), float("nan"), y) is None


def test_percentile_rank_ties_and_order():
    ranks = percentile_rank(np.array([0.2, 0.9, 0.2, 0.5]))
    assert ranks[1] == 1.0
    assert ranks[0] == ranks[2] < ranks[3] < ranks[1]


def test_grow_prefers_precise_predicate_and_stops_when_pure():
    y = np.array([1] * 10 + [0] * 10, bool)
    precise = column([1] * 10 + [0] * 10, numeric=False, name="precise")
    vague = column([1] * 14 + [0] * 6, numeric=False, name="vague")
    noise = column([1, 0] * 10, numeric=False, name="noise")
    steps = grow([vague, noise, precise], np.array([1.0, 1.0, 1.0]), y, width=3)
    assert [s.candidate.column.spec.name for s in steps] == ["precise"]  # then pure: stop
    assert len(steps[0].keep) == 10


def test_grow_weight_trades_precision_for_generality():
    y = np.array([1] * 6 + [0] * 14, bool)
    narrow = column([1] * 3 + [0] * 17, numeric=False, name="narrow")  # precision 1, gen 0.15
    broad = column(
        [1] * 6 + [1] * 4 + [0] * 10, numeric=False, name="broad"
    )  # precision 0.6, gen 0.5
    other = column(
        [1] * 5 + [0] * 1 + [1] * 2 + [0] * 12, numeric=False, name="other"
    )  # 5/7, gen 0.35

    def pick(w: float) -> str:
        return grow([narrow, broad, other], np.ones(3), y, 1, weight=w)[
            0
        ].candidate.column.spec.name

    assert pick(0.8) == "narrow"
    assert pick(0.0) == "broad"


def test_grow_never_takes_a_predicate_that_points_to_the_other_class():
    # The pair of interest is on the "expected" side of ``anti`` (its 1s are mostly
    # expected pairs): information gain is high, but as a BECAUSE it lowers precision.
    y = np.array([1] * 10 + [0] * 10, bool)
    anti = column([0] * 9 + [1] * 1 + [1] * 10, numeric=False, name="anti")
    assert grow([anti], np.array([1.0]), y, width=2) == []


def test_predicates_against_the_target_do_not_inflate_a_trivial_ones_rank():
    # 1000 pairs, half observed. ``precise`` covers 10 % of them at precision 0.9;
    # ``trivial`` covers all but two at precision 0.501; and eight features whose best
    # split holds for the pair of interest but isolates *expected* pairs (precision 0.3).
    # Ranked among those eight, ``trivial`` would be second in precision and first in
    # generality, beating ``precise``; they are no reasons, so they are not ranked.
    n = 1000
    y = np.zeros(n, bool)
    y[:500] = True
    precise = np.zeros(n)
    precise[:90] = 1
    precise[500:510] = 1
    trivial = np.ones(n)
    trivial[[998, 999]] = 0
    against = []
    for k in range(8):
        values = np.zeros(n)
        values[k * 10 : k * 10 + 30] = 1  # 30 observed ...
        values[500 + k * 50 : 570 + k * 50] = 1  # ... and 70 expected
        against.append(column(values, numeric=False, name=f"against{k}"))
    columns = [
        column(trivial, numeric=False, name="trivial"),
        column(precise, numeric=False, name="precise"),
        *against,
    ]
    first = grow(columns, np.ones(len(columns)), y, width=1)[0]
    assert first.candidate.column.spec.name == "precise"


def test_a_threshold_toward_the_target_is_found_when_the_best_split_points_away():
    # x = 0..99, the pair of interest at 50; targets at 48-52 and 80-99 (a quarter). The
    # split of highest gain that holds for x = 50 is "x <= 79" (precision 0.06): it points
    # to the other class. "x > 47" also holds for the pair and favours the target.
    x = np.arange(100.0)
    y = ((x >= 48) & (x <= 52)) | (x >= 80)
    assert best_predicate(column(x), 50.0, y).op == "<="
    toward = best_predicate(column(x), 50.0, y, toward_target=True)
    assert (toward.op, toward.value) == (">", 47.0)
    steps = grow([column(x)], np.array([50.0]), y, width=1)
    assert [str(s.candidate.atom.op) for s in steps] == [">"]
