"""Pair features of Table 1 and atom checks: the 10 % rule, missing values, feature levels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfx.explain.columns import columns_for
from perfx.explain.errors import ExplainError
from perfx.explain.pairs import atom_mask, compare_codes, conjunction_mask, pair_features
from perfx.grammar.ast import Atom, Bool, Number, Ordering, String, ValuePair

from .handmade import make_log


@pytest.fixture
def cols():
    df = pd.DataFrame(
        {
            "id": ["a", "b", "c", "d"],
            "duration": [100.0, 109.0, 120.0, np.nan],
            "input_bytes": [64.0, 64.0, 128.0, 64.0],
            "host": ["h1", "h1", "h2", None],
        }
    )
    return columns_for(make_log(df), "task")


def test_compare_uses_ten_percent_of_the_larger_value():
    a = np.array([100.0, 100.0, 110.0, 89.0, 0.0, np.nan])
    b = np.array([110.0, 111.2, 100.0, 100.0, 0.0, 1.0])
    assert list(compare_codes(a, b)[:5]) == [0.0, -1.0, 0.0, -1.0, 0.0]
    assert np.isnan(compare_codes(a, b)[5])


def test_atoms_on_pairs_and_missing_values_are_false(cols):
    i, j = np.array([0, 0, 2, 0, 3]), np.array([1, 2, 0, 3, 0])
    gt = Atom("duration", "compare", "=", Ordering("GT"))
    assert list(atom_mask(cols, gt, i, j)) == [False, False, True, False, False]
    not_gt = Atom("duration", "compare", "!=", Ordering("GT"))
    assert list(atom_mask(cols, not_gt, i, j)) == [
        True,
        True,
        False,
        False,
        False,
    ]  # missing stays false
    same_host = Atom("hostname", "isSame", "=", Bool(True))  # an alias
    assert list(atom_mask(cols, same_host, i, j)) == [True, False, False, False, False]
    diff = Atom("host", "diff", "=", ValuePair(String("h2"), String("h1")))
    assert list(atom_mask(cols, diff, i, j)) == [False, False, True, False, False]
    base = Atom("inputsize", "base", "<=", Number(64.0))
    assert list(atom_mask(cols, base, i, j)) == [True, False, False, True, True]
    assert list(atom_mask(cols, Atom("host", "base", "=", String("h1")), i, j)) == [
        True,
        False,
        False,
        False,
        False,
    ]


def test_wrong_kind_of_atom_is_a_clear_error(cols):
    i = j = np.array([0])
    with pytest.raises(ExplainError, match="host is nominal"):
        atom_mask(cols, Atom("host", "compare", "=", Ordering("GT")), i, j)
    with pytest.raises(ExplainError, match="takes LT, SIM or GT"):
        atom_mask(cols, Atom("duration", "compare", "=", Bool(True)), i, j)
    with pytest.raises(ExplainError, match="did you mean 'input_bytes'"):
        atom_mask(cols, Atom("input_byte", "isSame", "=", Bool(True)), i, j)


def test_levels_select_pair_features(cols):
    specs = [cols.spec("input_bytes"), cols.spec("host")]
    i, j = np.array([0, 0]), np.array([1, 2])
    by_level = {
        lv: [(c.spec.name, c.pair_op) for c in pair_features(cols, specs, i, j, lv)]
        for lv in (1, 2, 3)
    }
    assert by_level[1] == [("input_bytes", "isSame"), ("host", "isSame")]
    assert by_level[2] == [
        ("input_bytes", "isSame"),
        ("input_bytes", "compare"),
        ("host", "isSame"),
        ("host", "diff"),
    ]
    assert set(by_level[3]) - set(by_level[2]) == {("input_bytes", "base"), ("host", "base")}


def test_pair_feature_values_decode_to_atoms_that_agree(cols):
    specs = [cols.spec("input_bytes"), cols.spec("host")]
    i, j = np.array([0, 0, 2, 1]), np.array([1, 2, 0, 3])
    for column in pair_features(cols, specs, i, j, 3):
        for k, v in enumerate(column.values):
            if np.isnan(v):
                continue
            atom = column.atom("=", v)
            assert atom_mask(cols, atom, i, j)[k], (atom, k)


ATOMS = [
    Atom("duration", "compare", "=", Ordering("GT")),
    Atom("duration", "compare", "!=", Ordering("SIM")),
    Atom("duration", "isSame", "=", Bool(False)),
    Atom("input_bytes", "base", ">", Number(50.0)),
    Atom("host", "isSame", "=", Bool(True)),
    Atom("host", "diff", "=", ValuePair(String("h1"), String("h2"))),
    Atom("host", "base", "=", String("h1")),
]


@pytest.mark.parametrize("atom", ATOMS, ids=str)
def test_one_row_against_many_is_each_pair_checked(cols, atom):
    """A reference search pairs one row with every row of its stage (``i`` an int): the same
    mask as the pairs spelled out, for every kind of atom, missing values included."""
    j = np.arange(4)
    for first in range(4):
        spelled = np.full(len(j), first)
        assert list(atom_mask(cols, atom, first, j)) == list(atom_mask(cols, atom, spelled, j))
        assert list(conjunction_mask(cols, [atom, ATOMS[0]], first, j)) == list(
            conjunction_mask(cols, [atom, ATOMS[0]], spelled, j)
        )
