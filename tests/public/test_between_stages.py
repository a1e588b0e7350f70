"""A question about two stages (or jobs, or applications) gets no skew for a diagnosis: skew
is a task's, against its stage's peers running the same code on other records. A shipped
log's stage that read 96x the records of another stage, running other code, was "data skew:
repartition or split the heavy keys" (a probe of public logs)."""

from __future__ import annotations

from perfx.session import open as open_session
from tests.data_files import PUBLIC

LOG = PUBLIC / "NVIDIA__spark-rapids-tools" / "eventlog_minimal_events"


def test_a_stage_that_read_more_than_another_read_more_input():
    session = open_session([str(LOG)])
    answer = session.explain(
        "WHY STAGE 'local-1619631016646/0/0' SLOWER THAN STAGE 'local-1619631016646/1/0'"
    )
    assert answer.gap.diagnosis.to_dict() == {
        "name": "more input",
        "detail": "it read 96.0x the records (input; 82 % of the extra time)",
        "next_step": None,
    }
    asked_alone = session.explain("WHY STAGE 'local-1619631016646/0/0' SLOWER")
    assert asked_alone.gap.diagnosis.name == "more input"
