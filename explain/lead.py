"""Which BECAUSE atom may lead: the stage-wide view's say in the pairwise search.

The pairwise search (``explain.search.grow``) ranks a candidate by how precisely it tells
related pairs that performed as observed from the others in the history, and by the share of
the pair's gap its feature accounts for. On a small stage in a long history both can go
wrong together: a feature that is precise only because it is rare there (71 ms of GC in a
1.61 s gap) outranks the volume that carries the gap when that volume's predicate is not
precise across the history's other stages. What the stage itself shows is not in doubt:
the gap's split (``explain.gap``: measured parts, and compute split per volume by the
stage's cost model) is exact, and the asked task's place among its stage's peers
(``costmodel.standing``) is measured, not learned.

So when the stage-wide view names a cause at all (its diagnosis is a mechanism, not "no
cause stands out"), the lead must agree with it:

* **the gap's largest share**: the lead accounts for at least ``LEAD_SHARE`` of what the
  best-accounting feature of the pair does (an atom explaining a tiny share of the gap
  cannot lead when a volume explains most of it);
* **the stage** (a task of a stage that has a spread): on a numeric feature, the asked task lies beyond its stage's normal spread
  (``costmodel.standing``: 3.5 robust deviations and 1.5x the median): a feature that only
  the reference happens to have less of (a host's load of 1.12 tasks against 1) is the
  pairwise view's artefact, not a cause the stage shows.

Where no candidate of the search satisfies both, the stage-wide view's own atom leads: the
feature that accounts for the most of the gap among those that satisfy both, said as the
pair's difference (``compare = GT``). The rest of the clause is the search's.
"""

from __future__ import annotations

import numpy as np

from . import costmodel
from .columns import Columns
from .gap import NOTHING_STANDS_OUT
from .pairs import PairColumn
from .request import Request

LEAD_SHARE = 0.5
"""A lead accounts for at least this share of what the pair's best-accounting feature does:
the gap's largest part, or a feature of the same part half as well measured (records and
bytes of one volume, compute time counted at ``WHERE_CREDIT``)."""


def may_lead(
    request: Request, cols: Columns, columns: list[PairColumn], credit: np.ndarray
) -> np.ndarray | None:
    """Per pair column, may its atom lead the BECAUSE clause? A job's or a stage's lead
    carries the gap's largest share as a task's does (its parts are the tasks' parts
    summed); only a task is also held to its stage's spread. None where the gap names no
    cause (a gap within the stage's spread, nothing accounting for the gap) or the gap is not to weigh (``gap_weight`` 0: the paper's
    ranking alone): the search alone picks the lead then."""
    gap = request.gap
    if (
        request.options.gap_weight <= 0  # the paper's ranking alone, as asked
        or gap is None
        or gap.diagnosis is None
        or gap.diagnosis.name == NOTHING_STANDS_OUT
        or not len(credit)
    ):
        return None
    best = float(credit.max())
    if best <= 0:
        return None
    allowed = credit >= LEAD_SHARE * best
    if request.entity == "task" and gap.standing is not None:
        for k in np.flatnonzero(allowed):
            allowed[k] = _stands_out(cols, request.first, columns[k])
    return allowed if allowed.any() else None


def _stands_out(cols: Columns, row: int, column: PairColumn) -> bool:
    """Does ``row`` lie beyond its stage's spread on ``column``'s feature? A flag (first
    task on its executor) or a stage too small to have a spread does not gainsay the lead."""
    if column.spec.kind != "numeric" or column.spec.name not in cols.table.columns:
        return True
    found = costmodel.standing(cols, row, column.spec.name)
    return found is None or found.stands_out
