"""The accuracy experiment (PerfDebug section 5.5), two trials per program: the record
whose UDF call is delayed is the top-1 culprit, and the backward trace of the slowest output
returns many more inputs. ``./dev bench isolation_accuracy`` runs ten trials each."""

from __future__ import annotations

import pytest

from perfx.paper.accuracy import PAPER_PROGRAMS, run_trial

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("program", PAPER_PROGRAMS)
def test_delayed_record_is_the_top_culprit(spark, store, datasets, program):
    for seed in (1, 2):
        trial = run_trial(spark, program, datasets[program], store, seed=seed, delay_s=0.3)
        assert trial.hit, f"delayed {trial.delayed_line!r}, perfx named {trial.culprit_line!r}"
        assert trial.traced_inputs >= 2  # the slowest output has more inputs than its culprit
