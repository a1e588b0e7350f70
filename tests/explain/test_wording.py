"""Predicates in words: the sentence that opens every explanation."""

from __future__ import annotations

import pytest

from perfx.explain.errors import ExplainError
from perfx.explain.wording import PairValues, because_phrase, despite_phrase, join, label
from perfx.grammar.parser import parse


def _atom(text: str):
    return parse(
        f"FOR T1, T2 WHERE T1.TaskID = 1 AND T2.TaskID = 2 DESPITE {text} "
        "OBSERVED duration compare = GT EXPECTED duration compare = SIM"
    ).despite.atoms[0]


@pytest.mark.parametrize(
    "atom, despite, because",
    [
        ("host isSame = T", "the same host", "its host was the same"),
        ("host isSame = F", "a different host", "its host was different"),
        ("gc_time compare = GT", "a higher GC time for the first", "its GC time was higher"),
        ("input_bytes compare = SIM", "similar input bytes", "its input bytes were similar"),
        (
            "input_bytes_max compare = GT",
            "a higher input bytes max for the first",
            "its input bytes max was higher",
        ),
        ("num_tasks compare = GT", "a higher num tasks for the first", "its num tasks was higher"),
        (
            "shuffle_remote_bytes_read_to_disk compare = LT",
            "a lower shuffle remote bytes read to disk for the first",
            "its shuffle remote bytes read to disk were lower",
        ),
        (
            "block_size <= 128MB",
            "both with block size at most 128MB",
            "both had block size at most 128MB",
        ),
        ("executor_id diff = ('1', '1')", "the same executor id (1)", "both had executor id 1"),
        (
            "mean_concurrent_tasks_host compare = LT",
            "a lower average number of tasks beside it on its host for the first",
            "its average number of tasks beside it on its host was lower",
        ),
        (
            "locality diff = ('NODE_LOCAL', 'ANY')",
            "locality diff = ('NODE_LOCAL', 'ANY')",
            "its locality was NODE_LOCAL against ANY",
        ),
        (
            "first_task_on_executor diff = ('T', 'F')",
            "first task on executor diff = ('T', 'F')",
            "it was the first task of its stage on its executor",
        ),
    ],
)
def test_phrases(atom, despite, because):
    assert despite_phrase(_atom(atom)) == despite
    assert because_phrase(_atom(atom)) == because


@pytest.mark.parametrize(
    "atom, values, despite, because",
    [
        (
            "gc_time compare = GT",
            PairValues(1210.0, 32.0, "ms"),
            "a higher GC time for the first (1,210 ms against 32 ms)",
            "its GC time was higher (1,210 ms against 32 ms)",
        ),
        (
            "records_in compare = SIM",
            PairValues(1000, 1040, "count"),
            "similar records in (1,000 and 1,040)",
            "its records in were similar (1,000 against 1,040)",
        ),
        (
            "host isSame = T",
            PairValues("h1", "h1", "none"),
            "the same host (h1)",
            "its host was the same (h1 against h1)",
        ),
        (
            "input_bytes compare = GT",
            PairValues(12.0 * 2**20, 2**20, "bytes"),
            "a higher input bytes for the first (12.0 MB against 1.0 MB)",
            "its input bytes were higher (12.0 MB against 1.0 MB)",
        ),
        (
            "first_task_on_executor isSame = F",
            PairValues("T", "F", "none"),
            "a different first task on executor",
            "it was the first task of its stage on its executor (the other was not)",
        ),
        (
            "compute_time compare = GT",
            PairValues(2.4, 1.6, "ms"),
            "a higher compute time for the first (2.4 ms against 1.6 ms)",
            "its compute time was higher (2.4 ms against 1.6 ms)",
        ),
    ],
)
def test_phrases_carry_the_pairs_values_as_text(atom, values, despite, because):
    assert despite_phrase(_atom(atom), values) == despite
    assert because_phrase(_atom(atom), values) == because


def test_labels_and_joins():
    assert label("executor_cpu_time") == "executor CPU time"
    assert join([]) == "" and join(["a"]) == "a" and join(["a", "b", "c"]) == "a, b and c"


def test_two_values_that_differ_are_never_said_alike():
    """Rounded to their unit, 2,010 and 2,065 bytes both read 2.0 KB: "its result size was
    different (2.0 KB against 2.0 KB)" (a probe of the CLI). Values rounded alike are said
    in full; equal values and values that read apart stay as they were."""
    atom = parse("WHY TASK 1 SLOWER DESPITE result_size compare = GT").despite.atoms[0]
    said = because_phrase(atom, PairValues(2010, 2065, "bytes"))
    assert said.endswith("(2,010 B against 2,065 B)"), said
    assert because_phrase(atom, PairValues(2048, 2048, "bytes")).endswith("(2.0 KB against 2.0 KB)")
    assert because_phrase(atom, PairValues(2048, 4096, "bytes")).endswith("(2.0 KB against 4.0 KB)")


def test_a_range_of_durations_rounded_alike_is_said_apart():
    from perfx.session import open as open_session
    from tests.data_files import public_log

    log = public_log("aws-samples__aws-emr-advisor/job_spark_shell")
    with pytest.raises(ExplainError) as refused:
        open_session([str(log)]).explain("WHY TASK 0 SLOWER")
    assert "the 7 others 60.0 s-61.1 s, median 1.0 min" in str(refused.value)
