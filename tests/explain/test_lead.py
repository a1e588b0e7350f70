"""The BECAUSE lead agrees with what the asked task's stage shows (``explain.lead``).

The defect this guards (issue 30): in a long history whose stragglers are slow with GC and
not with volume, ``WHY TASK <it> SLOWER`` of a task that read 2.5x the shuffle bytes of its
stage's others (the cost model puts 1.6 s of its gap on them) led with "its GC time was
higher" (60 ms of the gap): the volume's predicate is imprecise across the history, GC's is
precise because it is rare there. The lead must carry the gap's largest share."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfx.explain.engine import explain

from .handmade import make_log

HISTORY_STAGES = 10
PER_STAGE = 12


def gc_history_log(seed: int):
    """``HISTORY_STAGES`` stages whose two stragglers each are slow with 400 ms of GC and read
    less than their peers, then the asked stage, whose compute follows its shuffle bytes and
    whose first task read about 2.5x its peers' and collected 71 ms of garbage (its peers
    about 10). Returns the log and the asked task's id."""
    rng = np.random.default_rng(seed)
    rows = []
    for stage in range(HISTORY_STAGES + 1):
        for task in range(PER_STAGE):
            read = rng.uniform(1e6, 3e6)
            gc = rng.normal(10, 1)
            compute = rng.normal(1000, 30)
            if stage < HISTORY_STAGES and task < 2:
                gc, compute = rng.normal(400, 20), rng.normal(1600, 30)
                read = rng.uniform(1e6, 1.5e6)
            if stage == HISTORY_STAGES:
                read = rng.uniform(0.9e6, 1.1e6) * (2.5 if task == 0 else 1.0)
                compute = 200 + read * 1e-3 + (0.0 if task == 0 else rng.normal(0, 20))
                gc = 71.0 if task == 0 else gc
            rows.append(
                {
                    "stage_key": f"app-1/{stage}/0",
                    "shuffle_read_bytes": read,
                    "shuffle_read_records": read / 100,
                    "gc_time": gc,
                    "compute_time": compute,
                    "duration": compute + gc,
                    "executor_run_time": compute + gc,
                }
            )
    df = pd.DataFrame(rows)
    n = len(df)
    df["id"] = [f"app-1/{k}" for k in range(n)]
    df["app_id"] = "app-1"
    df["task_id"] = np.arange(n)
    df["status"] = "SUCCESS"
    df["launch_time"] = 1_700_000_000_000 + np.arange(n) * 10.0
    return make_log(df), f"app-1/{HISTORY_STAGES * PER_STAGE}"


@pytest.mark.parametrize("seed", range(4))
def test_a_small_share_of_the_gap_does_not_lead_when_a_volume_carries_most_of_it(seed):
    log, task = gc_history_log(seed)
    answer = explain(log, f"WHY TASK '{task}' SLOWER")
    gap = answer.gap
    assert gap is not None and gap.diagnosis is not None and gap.diagnosis.name == "data skew"
    assert gap.share("volume") > 0.9, gap.line()
    lead = answer.because[0].atom
    assert lead.feature in ("shuffle_read_bytes", "shuffle_read_records"), answer.sentence()
    assert lead.pair_op == "compare", answer.sentence()


@pytest.mark.parametrize("seed", range(2))
def test_the_paper_ranking_alone_is_left_as_it_was(seed):
    """``gap_weight=0`` asks for the paper's ranking alone: no stage-wide say on the lead,
    which on this history is the precise GC predicate (the defect the default fixes)."""
    log, task = gc_history_log(seed)
    answer = explain(log, f"WHY TASK '{task}' SLOWER", gap_weight=0.0)
    assert answer.because[0].atom.feature == "gc_time", answer.sentence()
