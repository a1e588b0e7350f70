"""``WHY TASK <slowest> SLOWER`` on every public event log of the corpus (tests/data/public/,
see its SOURCES.md): an answer names a cause, never the slowness again.

A tautology is always precise, so precision cannot catch one: the test reads the answer's
atoms instead. None may be a symptom (a feature computed from the duration), and none may
state a likeness (compare = SIM, isSame = T, a diff of equal values), which cannot explain
a difference. A log whose tasks are too few or too alike to learn from is skipped with
perfx's own reason."""

from __future__ import annotations

import json

import pytest

from perfx.explain.engine import explain
from perfx.explain.errors import ExplainError
from perfx.grammar.ast import Bool, Ordering, ValuePair
from perfx.session import open as open_session
from tests.data_files import PUBLIC

pytestmark = pytest.mark.slow  # every log of the public corpus explained

CORPUS = PUBLIC
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
    _the_diagnosis_is_sound(log, answer, entry["path"])


VOLUME_KINDS = (
    ("input_records", "input_bytes"),
    ("shuffle_read_records", "shuffle_read_bytes"),
    ("shuffle_write_records", "shuffle_write_bytes"),
    ("output_records", "output_bytes"),
)


def _the_diagnosis_is_sound(log, answer, path: str) -> None:
    """No computation skew within the stage's spread, no reference with none of a kind of
    volume the asked task has, and the cause the stragglers listing would name is the
    diagnosis (``explain.cause.task_cause``)."""
    from perfx.explain.cause import task_cause

    gap, diagnosis = answer.gap, answer.gap.diagnosis
    if diagnosis is not None and diagnosis.name == "computation skew":
        if gap.model is not None:
            assert gap.model.beyond_spread, (
                f"{path}: computation skew within the spread: {gap.line()}"
            )
        assert gap.standing is None or gap.standing.stands_out, f"{path}: {diagnosis.detail}"
    tasks = log.tasks.set_index("id")
    first, second = (tasks.loc[i] for i in answer.pair)
    for kind in VOLUME_KINDS:
        present = [c for c in kind if c in tasks.columns]
        if any(first[c] > 0 for c in present):
            assert any(second[c] > 0 for c in present) or "none of them is comparable" in " ".join(
                answer.notes
            ), f"{path}: reference {answer.pair[1]} has no {kind[0]}"
    named = task_cause(log, answer.pair[0])
    assert (named.name if named else None) == (diagnosis.name if diagnosis else None), path


def test_stragglers_and_explain_give_each_task_one_cause():
    """``perfx stragglers`` names each straggler's cause as ``WHY TASK <it> SLOWER``'s
    diagnosis does, on a public log with stragglers in several stages."""
    session = open_session([str(CORPUS / "Netflix-Skunkworks__sparklens" / "local-fresh")])
    named = {t["id"]: t["cause"] for t in session.stragglers().to_dict()["straggler_tasks"]}
    assert named, "the log has stragglers"
    for task_id, cause in list(named.items())[:8]:
        try:
            answer = session.explain(f"WHY TASK '{task_id}' SLOWER")
        except ExplainError:
            assert cause == "no reference", task_id
            continue
        diagnosis = answer.gap.diagnosis if answer.gap is not None else None
        assert cause == (diagnosis.name if diagnosis else "no reference"), task_id


def _diagnosis_name(session, task_id: str) -> str:
    """``WHY TASK <task_id> SLOWER``'s diagnosis by name, "no reference" where it has none."""
    try:
        answer = session.explain(f"WHY TASK '{task_id}' SLOWER")
    except ExplainError:
        return "no reference"
    diagnosis = answer.gap.diagnosis if answer.gap is not None else None
    return diagnosis.name if diagnosis else "no reference"


@pytest.mark.parametrize(
    "path",
    [
        "Netflix-Skunkworks__sparklens/local-fresh",
        "groupon__sparklint/event_log_1",
        "kubeflow__mcp-apache-spark-history-server/eventlog_v2_spark-110be3a8424d4a2789cb88134418217b",
    ],
)
def test_skew_and_the_report_give_each_task_the_cause_explain_gives(path):
    """``perfx skew`` names each skewed task's cause as ``WHY TASK <it> SLOWER``'s diagnosis
    does; the report's stage table counts each stage's stragglers by those same diagnoses."""
    import re

    session = open_session([str(CORPUS / path)])
    skewed = [t for s in session.skew().to_dict()["stages"] for t in s["skewed_tasks"]]
    assert skewed, "the log has skewed tasks"
    for task in skewed[:8]:
        assert task["cause"] == _diagnosis_name(session, task["id"]), task["id"]

    html = session.report(questions=0).html
    tasks = session.straggler_analysis.tasks
    stages = tasks[tasks["straggler"]].groupby("stage_key")["id"]
    assert len(stages), "the log has stragglers"
    for key, ids in stages:
        counts: dict[str, int] = {}
        for task_id in ids.astype(str):
            name = _diagnosis_name(session, task_id)
            counts[name] = counts.get(name, 0) + 1
        said = ", ".join(f"{c} {n}" for c, n in sorted(counts.items(), key=lambda p: (-p[1], p[0])))
        stage = re.escape(str(key).rsplit("/", 2)[1])
        rows = re.findall(rf"<tr><td>{stage}</td>((?:(?!</tr>).)*)</tr>", html)
        cells = [re.sub(r"<[^>]+>", "", row.rsplit("<td>", 1)[1]) for row in rows]
        assert said in cells, (key, said, cells)  # each cause in its colour: text inside spans
