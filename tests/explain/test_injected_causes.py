"""The injected-cause suite, small: one real PySpark run of each kind in the tests' local[2]
session (``tests/causes/scenarios.py``), then ``WHY TASK <injected> SLOWER`` must lead with
the cause that was injected (``tests/causes/judge.py`` reads the lead atom as a kind).
``./dev bench causes`` runs ten seeds of each at a larger size and prints the confusion table.

The training log is the whole session's event log, every other test's jobs included: as in
production, the question is asked of a history, not of a hand-picked stage."""

from __future__ import annotations

import pytest

from perfx.explain.engine import explain

from ..causes.judge import named_cause
from ..causes.scenarios import KINDS, find_injected_task, run_scenario, wait_for_injected

pytestmark = pytest.mark.spark

EXPECTED_DIAGNOSIS = {
    "data_skew": "data skew",
    "shuffle_read_skew": "data skew",
    "computation_skew": "computation skew",
    "gc_pressure": "GC pressure",
    "spill": "spill",
    "cold_start": "cold start",
}


@pytest.mark.parametrize("kind", KINDS)
def test_the_injected_cause_leads_the_answer(spark, spark_event_dir, tmp_path, kind):
    injected = run_scenario(spark, kind, seed=3)
    log = wait_for_injected(spark_event_dir, injected)
    task = find_injected_task(log, injected)
    answer = explain(log, f"WHY TASK '{task}' SLOWER")
    text = answer.render_text(width=200)
    assert named_cause(answer, log) == kind, text
    assert answer.gap is not None and answer.gap.total > 0, text
    if kind in ("data_skew", "shuffle_read_skew", "computation_skew", "gc_pressure"):
        assert answer.gap.diagnosis.name == EXPECTED_DIAGNOSIS[kind], text
