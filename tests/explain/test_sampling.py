"""Related pairs by blocking, exact counts against brute force, balanced sampling, estimates."""

from __future__ import annotations

import itertools

import numpy as np

from perfx.explain import sampling
from perfx.explain.columns import columns_for
from perfx.explain.pairs import conjunction_mask
from perfx.explain.sampling import all_pairs, blocks, training_set
from perfx.grammar.ast import Atom, Bool, Ordering

from .handmade import SAME_STAGE, skewed_log

GT = [Atom("duration", "compare", "=", Ordering("GT"))]
SIM = [Atom("duration", "compare", "=", Ordering("SIM"))]


def brute_force(cols, despite):
    pairs = np.array([(a, b) for a, b in itertools.permutations(range(cols.n), 2)])
    i, j = pairs[:, 0], pairs[:, 1]
    des = conjunction_mask(cols, despite, i, j)
    return int((des & conjunction_mask(cols, GT, i, j)).sum()), int(
        (des & conjunction_mask(cols, SIM, i, j)).sum()
    )


def test_blocks_enumerate_exactly_the_pairs_inside_blocks():
    cols = columns_for(skewed_log(n_stages=3, per_stage=5), "task")
    i, j = all_pairs(blocks(cols, [SAME_STAGE]))
    stage = cols.table["stage_key"].to_numpy()
    assert len(i) == 3 * 5 * 4 and (stage[i] == stage[j]).all() and (i != j).all()
    assert len(set(zip(i, j))) == len(i)


def test_exact_counts_match_brute_force_and_sample_is_balanced():
    cols = columns_for(skewed_log(n_stages=4, per_stage=20), "task")
    despite = [SAME_STAGE, Atom("host", "isSame", "=", Bool(False))]
    n_obs, n_exp = brute_force(cols, despite)
    ts = training_set(cols, despite, GT, SIM, sample=100, seed=1)
    assert ts.exact
    assert (ts.observed_total, ts.expected_total) == (n_obs, n_exp)
    assert ts.related == n_obs + n_exp
    assert ts.n_observed == min(50, n_obs) and ts.n_expected == min(50, n_exp)
    # every sampled pair is related, with the right label
    assert conjunction_mask(cols, despite, ts.i, ts.j).all()
    assert (conjunction_mask(cols, GT, ts.i, ts.j) == ts.observed).all()
    # weights make the sample stand for the whole related set
    assert ts.weight[ts.observed].sum() == n_obs and ts.weight[~ts.observed].sum() == n_exp


def test_same_seed_same_sample_other_seed_other_sample():
    cols = columns_for(skewed_log(), "task")
    a = training_set(cols, [], GT, SIM, sample=200, seed=7)
    b = training_set(cols, [], GT, SIM, sample=200, seed=7)
    c = training_set(cols, [], GT, SIM, sample=200, seed=8)
    assert (a.i == b.i).all() and (a.j == b.j).all()
    assert not ((a.i == c.i).all() and (a.j == c.j).all())


def test_sampled_mode_estimates_related_pairs(monkeypatch):
    cols = columns_for(skewed_log(n_stages=4, per_stage=40), "task")
    n_obs, n_exp = brute_force(cols, [SAME_STAGE])
    monkeypatch.setattr(sampling, "EXACT_LIMIT", 100)
    monkeypatch.setattr(sampling, "BATCH", 100)
    ts = training_set(cols, [SAME_STAGE], GT, SIM, sample=400, seed=3)
    assert not ts.exact
    assert abs(ts.observed_total - n_obs) < 0.15 * n_obs
    assert abs(ts.expected_total - n_exp) < 0.15 * n_exp
    assert ts.n_observed == 200 and ts.n_expected == 200
    assert len(set(zip(ts.i, ts.j))) == ts.size
    stage = cols.table["stage_key"].to_numpy()
    assert (stage[ts.i] == stage[ts.j]).all() and (ts.i != ts.j).all()


def test_no_candidate_pairs_gives_an_empty_set():
    cols = columns_for(skewed_log(n_stages=2, per_stage=1, slow_row=0), "task")
    ts = training_set(cols, [SAME_STAGE], GT, SIM)
    assert ts.size == 0 and ts.related == 0 and ts.candidates == 0
