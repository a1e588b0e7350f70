"""Stage and job questions compare like with like (issue 30, item 3): a one-sided question
picks a reference of the asked one's structure (a stage's task count; a job's number of
stages and of tasks), the generated DESPITE starts with the task count, and where no
reference has that structure the question is refused with the reason, never answered by
comparing a 128-task stage with a 1-task one. Real public logs (tests/data/public)."""

from __future__ import annotations

import pytest

from perfx.explain.errors import ExplainError
from perfx.session import open as open_session
from tests.data_files import PUBLIC

CORPUS = PUBLIC


def _shape(table, entity_id: str, columns: tuple[str, ...]) -> tuple:
    row = table[table["id"] == entity_id].iloc[0]
    return tuple(row[c] for c in columns)


@pytest.mark.parametrize(
    ("path", "entity", "asked", "columns"),
    [
        (
            "NVIDIA__spark-rapids-tools/nds_q72_dataproc_2_2.zstd",
            "stage",
            "application_1751493828576_0001/50/0",
            ("task_count",),
        ),
        (
            "NVIDIA__spark-rapids-tools/eventlog_4nodes_8cores_dynamic_alloc.zstd",
            "job",
            "application_1707709865217_0493/4",
            ("num_stages", "task_count"),
        ),
    ],
)
def test_the_reference_has_the_asked_ones_structure_and_despite_says_so(
    path, entity, asked, columns
):
    session = open_session([str(CORPUS / path)])
    table = session.log.table(entity)
    others = table[table["id"] != asked]
    assert (others[list(columns)].apply(tuple, axis=1) != _shape(table, asked, columns)).any(), (
        "the log has references of another structure to refuse"
    )
    answer = session.explain(f"WHY {entity.upper()} '{asked}' SLOWER")
    assert _shape(table, answer.pair[1], columns) == _shape(table, asked, columns)
    assert answer.despite[0].atom.feature == "task_count", answer.sentence()
    assert "Despite the same task count" in answer.sentence()


@pytest.mark.parametrize(
    ("path", "question", "said"),
    [
        (
            "kubeflow__mcp-apache-spark-history-server/application_1713000000000_0001_1.zstd",
            "WHY JOB 'application_1713000000000_0001/3' SLOWER",
            "has its structure (1 stage, 8 tasks)",
        ),
        (
            "groupon__sparklint/event_log_1",
            "WHY JOB 'application_1472176676028_116806/0' SLOWER",
            "has its structure (2 stages, 48 tasks)",
        ),
        (
            "lsds__Neptune/application_1538416563558_0014",
            "WHY STAGE 'application_1538416563558_0014/9/0' SLOWER",
            "has its structure (5 tasks)",
        ),
    ],
)
def test_without_a_reference_of_its_structure_the_question_is_refused_with_why(
    path, question, said
):
    session = open_session([str(CORPUS / path)])
    with pytest.raises(ExplainError) as refused:
        session.explain(question)
    message = str(refused.value)
    assert message.startswith("no comparable reference"), message
    assert said in message and "name the reference yourself" in message, message


def test_a_pair_the_user_names_of_two_structures_is_answered_with_a_note():
    """Job 23 (2,185 tasks) against job 1 (1 task): the user named both, so perfx answers,
    and says they are not like with like."""
    session = open_session([str(CORPUS / "NVIDIA__spark-rapids-tools" / "nds_q66_gpu.zstd")])
    app = "application_1701368813061_0008"
    answer = session.explain(f"WHY JOB '{app}/23' SLOWER THAN JOB '{app}/1'")
    assert (
        f"not like with like: job {app}/23 has 1 stage, 2,185 tasks, job {app}/1 1 stage, 1 task"
        in answer.notes
    ), answer.notes


def test_the_structures_a_refusal_lists_are_the_smallest_first_and_say_how_many_more():
    """They read "1 task; 100 tasks; 12 tasks; ...." (sorted as text, the dots doubled): a
    probe of the CLI."""
    from tests.data_files import fixture_log

    log = fixture_log("spark-rapids-tools-events/tasks_executors_fail_compressed_eventlog.zstd")
    with pytest.raises(ExplainError) as refused:
        open_session([str(log)]).explain("WHY STAGE 238 SLOWER")
    assert "holds have 1 task; 4 tasks; 12 tasks and 4 more. A different shape" in str(
        refused.value
    )
