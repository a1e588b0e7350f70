"""Relevance, precision and generality on a hand-made log, computed by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from perfx.explain.metrics import measure
from perfx.grammar.ast import Atom, Bool, Number, Ordering

from .handmade import make_log, slower

# One stage, six tasks: D and E take 200 ms, the others 100 ms; D, E and F have high GC.
LOG = make_log(
    pd.DataFrame(
        {
            "id": list("ABCDEF"),
            "stage_key": "s",
            "duration": [100.0, 100, 100, 200, 200, 100],
            "gc_time": [5.0, 5, 5, 50, 50, 50],
            "host": ["h1", "h2", "h1", "h1", "h2", "h2"],
        }
    )
)
QUERY = slower("D", "A")
GC_GT = Atom("gc_time", "compare", "=", Ordering("GT"))
SAME_HOST = Atom("host", "isSame", "=", Bool(True))


def test_figures_by_hand():
    # Ordered pairs: observed (GT) = {D,E} x {A,B,C,F} = 8; expected (SIM) = 4*3 + 2*1 = 14.
    # gc_time compare = GT: {D,E,F} x {A,B,C} = 9 related pairs, 6 observed (D,E) + 3 SIM (F).
    m = measure(LOG, QUERY, (), (GC_GT,))
    assert m.related_pairs == 22 and m.related_exact
    assert m.relevance == pytest.approx(14 / 22)
    assert m.precision == pytest.approx(6 / 9)
    assert m.generality == pytest.approx(9 / 22)
    assert (m.observed, m.expected, m.sampled) == (8, 14, 22)


def test_figures_under_a_despite_extension():
    # Same host: h1 = {A, C, D}, h2 = {B, E, F}. Observed: (D,A) (D,C) (E,B) (E,F) = 4;
    # expected: (A,C) (C,A) (B,F) (F,B) = 4. GC GT among them: (D,A) (D,C) (E,B) (F,B).
    m = measure(LOG, QUERY, (SAME_HOST,), (GC_GT,))
    assert m.related_pairs == 8
    assert m.relevance == pytest.approx(4 / 8)
    assert m.precision == pytest.approx(3 / 4)
    assert m.generality == pytest.approx(4 / 8)


def test_balanced_sample_still_estimates_population_figures():
    m = measure(LOG, QUERY, (), (GC_GT,), sample=8)
    assert (m.observed, m.expected) == (4, 4)
    assert m.relevance == pytest.approx(14 / 22)  # from the population counts, not the sample
    assert 0 <= m.precision <= 1 and 0 <= m.generality <= 1


def test_no_related_pair_gives_nan_not_an_error():
    huge_gc = Atom("gc_time", "base", ">", Number(1e9))
    m = measure(LOG, slower("D", "A", despite=(huge_gc,)))
    assert m.related_pairs == 0 and m.precision != m.precision
