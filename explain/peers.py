"""``--method peers``: the stage-wide baseline a spreadsheet would give.

For the first execution of the pair, every numeric cause feature (a candidate that accounts
for a part of the time or a volume: ``FeatureSpec.accounts``; never a symptom, never a window
feature measured over the task's own run such as its host's load or its wave) is placed
among its stage's other successful tasks by its robust z, |x − median| / (1.4826 MAD) (a fold
change x / median where the peers are all equal). The features that lie furthest above their
peers (more of anything costs time) and differ from the reference become the BECAUSE clause,
``f compare = GT``. It ignores the query's clauses and the history beyond the stage: the
figure perfx's pairwise search must beat (``./dev bench causes`` prints both).
"""

from __future__ import annotations

import numpy as np

from perfx.grammar.ast import Atom, Ordering

from .baselines import answer_with
from .columns import Columns, columns_for
from .costmodel import robust_z, stage_rows
from .explanation import Explanation
from .request import Request


def peers(request: Request) -> Explanation:
    cols = columns_for(request.log, request.entity)
    ranked = stage_ranking(cols, request.first)
    values = {name: cols.numeric(name) for _, name in ranked}
    atoms = [
        Atom(name, "compare", "=", Ordering("GT"))
        for _, name in ranked
        if values[name][request.first] > values[name][request.second]
    ][: request.width]
    return answer_with(request, cols, atoms, "peers")


def stage_ranking(cols: Columns, row: int) -> list[tuple[float, str]]:
    """(robust z, feature) of the cause features on which ``row`` lies above its stage's
    other tasks, furthest first."""
    rows = stage_rows(cols, row)
    peers = rows[rows != row]
    out = []
    for spec in cols.candidates():
        if spec.kind != "numeric" or not spec.accounts or spec.window:
            continue
        values = cols.numeric(spec.name)
        mine = float(values[row])
        others = values[peers]
        others = others[np.isfinite(others)]
        if not np.isfinite(mine) or len(others) < 2 or mine <= float(np.median(others)):
            continue
        out.append((robust_z(mine, others), spec.name))
    return sorted(out, key=lambda zn: (-zn[0], zn[1]))
