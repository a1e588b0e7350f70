"""The one function that names a task's cause: what ``WHY TASK <it> SLOWER`` diagnoses.

``perfx explain`` prints it as its diagnosis line; ``perfx stragglers``, ``perfx skew``, the
report's stage table and the REPL's ``\\stragglers`` and ``\\skew`` (which read the same
results) name each task's cause with it (``cause_names``), so one task never gets two causes
from two commands. The reference is the one
the question would pick (``reference.pick_reference``: the comparable task of its stage closest
to the median), and the cause is the gap's diagnosis against it (``gap.diagnose``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache

from perfx.logs.model import Log

from .diagnosis import Diagnosis
from .errors import ExplainError


def task_cause(log: Log, task_id: str) -> Diagnosis | None:
    """The diagnosis ``WHY TASK '<task_id>' SLOWER`` gives, or None where that question has no
    answer (no slower task's reference in its stage, no duration)."""
    return next(_diagnoses(log, [task_id]))


def _diagnoses(log: Log, task_ids: list[str]) -> Iterator[Diagnosis | None]:
    """``task_cause`` of each of ``task_ids`` in turn, with what every one needs (the
    modules, the table's columns, the question) found once: a report names the cause of
    every straggler, 10^4 of them in a log of 10^5 tasks."""
    from perfx.grammar.ast import EntityId

    from .columns import columns_for
    from .gap import decompose
    from .reference import find_row, pick_reference

    cols = columns_for(log, "task")
    question = _why_slower()
    for task_id in task_ids:
        try:
            first = find_row(cols, EntityId(task_id))
            # the query's clauses pick the reference; its id is the row found (a query bound
            # per task costs more than its answer)
            second, _ = pick_reference(cols, first, question)
        except ExplainError:
            yield None
            continue
        gap = decompose(cols, first, second)
        yield gap.diagnosis if gap is not None else None


@cache
def _why_slower():
    """``WHY TASK ? SLOWER``, parsed once: a report names the cause of every straggler."""
    from perfx.grammar.parser import parse

    return parse("WHY TASK ? SLOWER")


NO_REFERENCE = "no reference"
"""The cause ``cause_names`` gives a task ``task_cause`` has no answer for."""


def cause_names(log: Log, task_ids: Iterable[str]) -> dict[str, str]:
    """Each task's cause by name (``task_cause``), ``NO_REFERENCE`` where it has none."""
    ids = list(task_ids)
    return {
        task_id: diagnosis.name if diagnosis is not None else NO_REFERENCE
        for task_id, diagnosis in zip(ids, _diagnoses(log, ids))
    }
