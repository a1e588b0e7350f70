"""check_pair(): the log-dependent checks, against a fake oracle that knows which atoms hold."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from perfx.grammar.ast import Atom, Predicate
from perfx.grammar.errors import PxqlError
from perfx.grammar.parser import parse
from perfx.grammar.semantics import check_pair

QUERY = """FOR T1, T2 WHERE T1.TaskID = 33 AND T2.TaskID = 22
DESPITE jobID isSame = T AND hostname isSame = T
OBSERVED duration compare = GT
EXPECTED duration compare = SIM"""


@dataclass
class FakeOracle:
    """Atoms (as printed features) that hold for the pair; overlap is a fixed count."""

    true_features: set[str]
    overlapping: int = 0
    asked: list[Predicate] = field(default_factory=list)

    def holds(self, predicate: Predicate) -> bool:
        self.asked.append(predicate)
        return all(_key(atom) in self.true_features for atom in predicate)

    def overlap(self, a: Predicate, b: Predicate) -> int:
        return self.overlapping


def _key(atom: Atom) -> str:
    return f"{atom.feature} {atom.pair_op} {atom.value.value}"  # type: ignore[union-attr]


GOOD = {"jobID isSame True", "hostname isSame True", "duration compare GT"}


def test_a_sensible_pair_passes() -> None:
    check_pair(parse(QUERY), FakeOracle(GOOD))


def test_despite_must_hold_and_the_caret_points_at_the_failing_atom() -> None:
    with pytest.raises(PxqlError) as caught:
        check_pair(parse(QUERY), FakeOracle(GOOD - {"hostname isSame True"}))
    assert str(caught.value) == (
        "line 2, column 30: the pair (T1 = 33, T2 = 22) does not satisfy DESPITE: "
        "'hostname isSame = T' is false for it\n"
        "  DESPITE jobID isSame = T AND hostname isSame = T\n"
        "                               ^^^^^^^^^^^^^^^^^^^"
    )


def test_observed_must_hold() -> None:
    with pytest.raises(PxqlError, match="does not satisfy OBSERVED") as caught:
        check_pair(parse(QUERY), FakeOracle(GOOD - {"duration compare GT"}))
    assert caught.value.line == 3


def test_expected_must_not_hold() -> None:
    with pytest.raises(PxqlError, match="already satisfies EXPECTED") as caught:
        check_pair(parse(QUERY), FakeOracle(GOOD | {"duration compare SIM"}))
    assert (caught.value.line, caught.value.column) == (4, 10)  # the predicate after EXPECTED


def test_observed_and_expected_must_not_overlap() -> None:
    with pytest.raises(PxqlError, match="OBSERVED and EXPECTED overlap: 3 pair"):
        check_pair(parse(QUERY), FakeOracle(GOOD, overlapping=3))


def test_sugar_errors_point_at_the_keyword() -> None:
    text = "WHY TASK 33 SLOWER THAN TASK 22"
    with pytest.raises(PxqlError) as caught:
        check_pair(parse(text), FakeOracle(set()))
    assert caught.value.span == (12, 18)  # SLOWER


def test_queries_built_in_code_get_unpositioned_errors() -> None:
    query = parse(QUERY)
    from dataclasses import replace

    bare = replace(query, source=None)
    with pytest.raises(PxqlError) as caught:
        check_pair(bare, FakeOracle(set()))
    assert caught.value.line is None
    assert str(caught.value).startswith("the pair (T1 = 33, T2 = 22) does not satisfy DESPITE")
