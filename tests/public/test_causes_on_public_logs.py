"""``WHY TASK <slowest> SLOWER`` on every public event log of the corpus (tests/data/public/,
see its SOURCES.md): an answer names a cause, never the slowness again.

A tautology is always precise, so precision cannot catch one: the test reads the answer's
atoms instead. None may be a symptom (a feature computed from the duration), and none may
state a likeness (compare = SIM, isSame = T, a diff of equal values), which cannot explain
a difference. A log whose tasks are too few or too alike to learn from is skipped with
perfx's own reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfx.explain.engine import explain
from perfx.explain.errors import ExplainError
from perfx.grammar.ast import Bool, Ordering, ValuePair
from perfx.session import open as open_session

CORPUS = Path(__file__).resolve().parents[1] / "data" / "public"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())


def _slowest_task(log) -> str | None:
    """The slowest successful task that is slower than its stage's median by more than the
    10 % that PXQL's compare calls similar, in a stage of at least three: a task alone in
    its stage, or no slower than its peers, has no peer to be slower than."""
    tasks = log.tasks
    done = tasks[(tasks["status"] == "SUCCESS") if "status" in tasks.columns else slice(None)]
    stage = done.groupby("stage_key")["duration"]
    done = done[
        done["duration"].notna()
        & (stage.transform("size") >= 3)
        & (done["duration"] > 1.12 * stage.transform("median"))
    ]
    return str(done["id"].iloc[int(done["duration"].to_numpy().argmax())]) if len(done) else None


def _likeness(atom) -> bool:
    value = atom.value
    return (
        (atom.pair_op == "compare" and isinstance(value, Ordering) and value.value == "SIM")
        or (atom.pair_op == "isSame" and isinstance(value, Bool) and value.value)
        or (atom.pair_op == "diff" and isinstance(value, ValuePair) and value.first == value.second)
    )


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["path"] for e in MANIFEST])
def test_the_slowest_task_is_explained_by_a_cause(entry):
    log = open_session([str(CORPUS / entry["path"])]).log
    slowest = _slowest_task(log)
    if slowest is None:
        pytest.skip("no stage with three successful tasks")
    try:
        answer = explain(log, f"WHY TASK '{slowest}' SLOWER")
    except ExplainError as err:
        pytest.skip(f"perfx cannot answer: {err}")
    registry = log.registry
    for step in answer.because:
        atom = step.atom
        assert not registry.is_symptom("task", registry.resolve("task", atom.feature).name), (
            f"{entry['path']}: led by a symptom: {answer.sentence()}"
        )
        assert not _likeness(atom), f"{entry['path']}: a likeness in BECAUSE: {answer.sentence()}"
    for step in answer.despite:
        assert not registry.is_symptom("task", registry.resolve("task", step.atom.feature).name), (
            answer.sentence()
        )
    assert answer.gap is not None and answer.gap.total > 0, entry["path"]
