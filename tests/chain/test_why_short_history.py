"""``perfx why`` asks its question itself: on a log too short for PerfXplain to learn from,
the task is explained against its stage's peers, and the answer says so, where ``perfx
explain`` refuses the same question (the user can relax it there)."""

from __future__ import annotations

import pytest

import perfx
from perfx.chain import skewed_task
from perfx.explain.errors import TooFewPairs
from perfx.why import _explained
from tests.data_files import fixture_log

SHORT = fixture_log("spark-events/application_1628109047826_1317105")


def test_a_short_history_is_explained_against_the_stage_and_says_so():
    session = perfx.open([str(SHORT)])
    task = skewed_task(session.log.tasks)
    with pytest.raises(TooFewPairs):
        session.explain(f"WHY TASK '{task}' SLOWER")
    answer = _explained(session, task, None)
    assert answer.method == "peers" and answer.pair[0] == task
    assert any(n.startswith("ranked against the task's stage (method peers)") for n in answer.notes)
    assert answer.because, answer.sentence()
