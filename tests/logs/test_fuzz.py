"""The log fuzzer in the suite (fuzzing.py): shipped logs damaged as real logs are, then
``perfx logs``, ``explain``, ``stragglers``, ``whatif`` (and on some, ``report``) run on them:
never an internal error or a traceback, and the undamaged log's answers whenever every event
is still whole. ``./dev bench fuzz`` runs hundreds of cases; these few dozen keep it honest."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.logs import damage
from tests.logs.fuzzing import SOURCES, Case, check

pytestmark = pytest.mark.slow  # hundreds of damaged logs

FUZZ = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def cases(damages: list[str]) -> st.SearchStrategy[Case]:
    """Damaged logs: one to three of ``damages`` done to a shipped log's lines, then maybe
    compressed (and the compressed bytes maybe cut), under a name that says nothing true."""
    return st.builds(
        Case,
        source=st.sampled_from(sorted(SOURCES)),
        damages=st.lists(st.sampled_from(damages), min_size=1, max_size=3).map(tuple),
        seed=st.integers(0, 2**32 - 1),
        codec=st.sampled_from([None, *damage.COMPRESSORS]),
        cut_compressed=st.booleans(),
        name=st.sampled_from(damage.MISLEADING_NAMES),
    )


@FUZZ
@given(case=cases(sorted(damage.DAMAGES)))
def test_a_damaged_log_never_crashes_perfx(case):
    with tempfile.TemporaryDirectory() as folder:
        assert check(case, Path(folder), report=False) == []


@settings(FUZZ, max_examples=10)
@given(
    case=cases(sorted(damage.WHOLE)).map(lambda c: Case(**{**c.__dict__, "cut_compressed": False}))
)
def test_reordered_or_repeated_events_give_the_same_answers(case):
    assert case.whole
    with tempfile.TemporaryDirectory() as folder:
        assert check(case, Path(folder), report=False) == []


@pytest.mark.parametrize(
    "case",
    [
        Case("spark-yarn", ("start_after_end", "duplicate_lines"), 7, "lz4", False, "events.json"),
        Case("spark-2.3", ("retype_field", "flip_bytes"), 11, None, False, "app.lz4"),
        Case("spark-zstd", ("garbage_lines",), 5, "zstd", True, "eventlog.txt"),
    ],
    ids=["reordered", "retyped-and-flipped", "compressed-and-cut"],
)
def test_report_on_a_damaged_log(case, tmp_path):
    assert check(case, tmp_path, report=True) == []
