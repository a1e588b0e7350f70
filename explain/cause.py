"""The one function that names a task's cause: what ``WHY TASK <it> SLOWER`` diagnoses.

``perfx explain`` prints it as its diagnosis line; ``perfx stragglers`` (and the REPL's and
the report's straggler listings, which read the same ``StragglerReport``) name each straggler's
cause with it, so one task never gets two causes from two commands. The reference is the one
the question would pick (``reference.pick_reference``: the comparable task of its stage closest
to the median), and the cause is the gap's diagnosis against it (``gap.diagnose``).
"""

from __future__ import annotations

from perfx.logs.model import Log

from .errors import ExplainError
from .gap import Diagnosis


def task_cause(log: Log, task_id: str) -> Diagnosis | None:
    """The diagnosis ``WHY TASK '<task_id>' SLOWER`` gives, or None where that question has no
    answer (no slower task's reference in its stage, no duration)."""
    from perfx.grammar.ast import EntityId
    from perfx.grammar.parser import parse

    from .columns import columns_for
    from .gap import decompose
    from .reference import find_row, pick_reference

    cols = columns_for(log, "task")
    query = parse("WHY TASK ? SLOWER").bind(task_id)
    try:
        first = find_row(cols, EntityId(task_id))
        second, _ = pick_reference(cols, first, query)
    except ExplainError:
        return None
    gap = decompose(cols, first, second)
    return gap.diagnosis if gap is not None else None
