"""The straggler analysis works from columns (a stage's tasks grouped by codes, a cause list per
combination of causes, the primary cause by argmax): checked against the per-row rules it
stands for, on the public log with the most stragglers of several causes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfx.explain.blocked import components
from perfx.explain.blocked.stragglers import SPECIAL_CAUSES, analysed_tasks, find_stragglers
from perfx.logs.loader import load_log
from perfx.logs.progress import stage_groups
from tests.data_files import public_log

LOG = public_log("NVIDIA__spark-rapids-tools/nds_q66_gpu.zstd")


@pytest.fixture(scope="module")
def tasks() -> pd.DataFrame:
    return load_log(LOG, cache=False).tasks


def test_stage_groups_group_as_groupby_does_missing_keys_in_none():
    stage = pd.Series(["a", "b", None, "a", "c", "b", np.nan], index=range(10, 17))
    executor = pd.Series(["1", "1", "1", "2", None, "1", "2"], index=stage.index)
    for keys in ([stage], [stage, executor]):
        codes = stage_groups(*keys)
        expected = pd.Series(0, index=stage.index).groupby(keys).ngroup()
        assert codes.index.equals(stage.index)
        missing = pd.concat(keys, axis=1).isna().any(axis=1)
        assert codes.isna().equals(missing)
        kept = codes[~missing]
        # the same partition of the rows: equal codes exactly where the groups are equal
        pairs = pd.DataFrame({"code": kept, "group": expected[~missing]})
        assert pairs.groupby("code")["group"].nunique().eq(1).all()
        assert pairs.groupby("group")["code"].nunique().eq(1).all()


def test_cause_lists_and_primary_causes_follow_the_per_task_rules(tasks):
    report = find_stragglers(tasks)
    out = report.tasks
    assert report.stragglers > 1000 and (out["causes"].str.contains(",")).sum() > 100
    flags = out[[f"cause_{c}" for c in report.causes]].to_numpy(bool)
    assert out["causes"].tolist() == [
        ",".join(c for c, on in zip(report.causes, row) if on) for row in flags
    ]
    analysed = analysed_tasks(tasks)
    blocked = {
        c: components.blocked_ms(analysed, [c]) for c in report.causes if c in components.CAUSES
    }
    for index, row in out.iterrows():
        timed = {c: blocked[c][index] for c in blocked if row[f"cause_{c}"]}
        specials = [c for c in SPECIAL_CAUSES if c in report.causes and row[f"cause_{c}"]]
        if not row["straggler"]:
            expected = "none"
        elif timed:
            expected = max(timed, key=timed.__getitem__)  # the first of equal times
        else:
            expected = specials[0] if specials else "unexplained"
        assert row["primary_cause"] == expected, index
