"""Predicates in words: the sentence that opens every explanation."""

from __future__ import annotations

import pytest

from perfx.explain.wording import because_phrase, despite_phrase, join, label
from perfx.grammar.parser import parse


def _atom(text: str):
    return parse(f"FOR T1, T2 WHERE T1.TaskID = 1 AND T2.TaskID = 2 DESPITE {text} "
                 "OBSERVED duration compare = GT EXPECTED duration compare = SIM").despite.atoms[0]


@pytest.mark.parametrize("atom, despite, because", [
    ("host isSame = T", "the same host", "its host was the same"),
    ("host isSame = F", "a different host", "its host was different"),
    ("gc_time compare = GT", "a higher GC time for the first", "its GC time was higher"),
    ("input_bytes compare = SIM", "similar input bytes", "its input bytes was similar"),
    ("block_size <= 128MB", "both with block size at most 128MB", "both had block size at most 128MB"),
    ("executor_id diff = ('1', '1')", "the same executor id ('1')", "both had executor id '1'"),
    ("mean_concurrent_tasks_host compare = LT", "a lower average number of tasks beside it on its host for the first",
     "its average number of tasks beside it on its host was lower"),
    ("locality diff = ('NODE_LOCAL', 'ANY')", "locality diff = ('NODE_LOCAL', 'ANY')",
     "its locality and the other's were ('NODE_LOCAL', 'ANY')"),
])
def test_phrases(atom, despite, because):
    assert despite_phrase(_atom(atom)) == despite
    assert because_phrase(_atom(atom)) == because


def test_labels_and_joins():
    assert label("executor_cpu_time") == "executor CPU time"
    assert join([]) == "" and join(["a"]) == "a" and join(["a", "b", "c"]) == "a, b and c"
