"""The injected-cause suite, small: one real PySpark run of each kind in the tests' local[2]
session (``tests/causes/scenarios.py``), then ``WHY TASK <injected> SLOWER`` must lead with
the cause that was injected and diagnose it (``tests/causes/judge.py`` reads the lead atom and
the diagnosis as kinds); on the control (nothing injected) the diagnosis says no cause stands
out.
``./dev bench causes`` runs ten seeds of each at a larger size and prints the confusion table.

The training log is the whole session's event log, every other test's jobs included: as in
production, the question is asked of a history, not of a hand-picked stage."""

from __future__ import annotations

import pytest

from perfx.explain.engine import explain

from ..causes.judge import diagnosed, lead_right
from ..causes.scenarios import KINDS, find_injected_task, run_scenario, wait_for_injected

pytestmark = pytest.mark.spark


SEEDS = (3, 5)
"""One run is judged; a second, of another seed, only where the first was judged wrong. The
answer is asked of the whole session's history, which the other tests' jobs and a busy
2-core machine's scheduling change from run to run: a cause named right in neither of two
runs fails. How often perfx is right is measured by ``./dev bench causes`` (10 seeds a kind),
not here."""


@pytest.mark.parametrize("kind", KINDS)
def test_the_injected_cause_leads_the_answer_and_its_diagnosis(spark, spark_event_dir, kind):
    wrong = []
    for seed in SEEDS:
        injected = run_scenario(spark, kind, seed=seed)
        log = wait_for_injected(spark_event_dir, injected)
        task = find_injected_task(log, injected)
        answer = explain(log, f"WHY TASK '{task}' SLOWER")
        text = answer.render_text(width=200)
        assert answer.gap is not None and answer.gap.total > 0, text
        if lead_right(answer, log, kind) and kind in diagnosed(answer, log):
            return
        wrong.append(f"seed {seed}:\n{text}")
    pytest.fail("\n\n".join(wrong))
