"""The REPL's suggestion logic on half-typed queries, and the completer built on it."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from perfx.completer import PxqlCompleter
from perfx.suggest import Suggestion, suggest


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", [Suggestion("keyword", ("WHY", "FOR")), Suggestion("special")]),
        ("WH", [Suggestion("keyword", ("WHY", "FOR")), Suggestion("special")]),
        ("WHY ", [Suggestion("keyword", ("TASK", "JOB", "STAGE", "APP"))]),
        ("why ta", [Suggestion("keyword", ("TASK", "JOB", "STAGE", "APP"))]),
        ("WHY TASK ", [Suggestion("id", ("task",))]),
        ("WHY TASK 33 SLOWER THAN STAGE ", [Suggestion("id", ("stage",))]),
        ("WHY TASK 33 ", [Suggestion("keyword", ("SLOWER", "FASTER", "SAME"))]),
        ("WHY TASK 33 SLOWER ", [Suggestion("keyword", ("THAN", "DESPITE", "WITH"))]),
        ("WHY JOB 7 SAME ", [Suggestion("keyword", ("AS",))]),
        ("WHY TASK 33 SLOWER DESPITE ", [Suggestion("feature")]),
        ("WHY TASK 33 SLOWER DESPITE gc_time compare = SIM AND ", [Suggestion("feature")]),
        (
            "WHY TASK 33 SLOWER DESPITE host ",
            [
                Suggestion("keyword", ("isSame", "compare", "diff")),
                Suggestion("keyword", ("=", "!=", "<", "<=", ">", ">=")),
            ],
        ),
        ("OBSERVED duration compare ", [Suggestion("keyword", ("=", "!=", "<", "<=", ">", ">="))]),
        ("OBSERVED duration compare = ", [Suggestion("value", ("LT", "SIM", "GT"))]),
        ("DESPITE host isSame = ", [Suggestion("value", ("T", "F"))]),
        (
            "DESPITE host isSame = T ",
            [Suggestion("keyword", ("AND", "DESPITE", "OBSERVED", "EXPECTED", "WITH"))],
        ),
        ("WHY TASK 33 SLOWER WITH ", [Suggestion("keyword", ("WIDTH", "DESPITE"))]),
        ("\\fe", [Suggestion("special")]),
        ("\\log /tmp", []),
    ],
)
def test_suggestions(text, expected):
    assert suggest(text) == expected


def _complete(text: str) -> list[str]:
    completer = PxqlCompleter(
        lambda entity: ["gc_time", "gc_fraction", "host"], lambda: ["\\features", "\\help"]
    )
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]


def test_completer_offers_the_logs_features_by_prefix():
    assert _complete("WHY TASK 1 SLOWER DESPITE gc") == ["gc_fraction", "gc_time"]


def test_completer_offers_keywords_case_insensitively():
    assert _complete("why task 1 sl") == ["SLOWER"]


def test_completer_offers_special_commands():
    assert _complete("\\f") == ["\\features"]


def test_completer_offers_ids_as_pxql_writes_them():
    ids = {"task": [("app-1/33", "2.10 s"), ("7", "1.00 s"), ("app 1/3", "5 ms")]}
    completer = PxqlCompleter(lambda e: [], lambda: [], lambda entity: ids.get(entity, []))

    def complete(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert complete("WHY TASK ") == ["app-1/33", "7", "'app 1/3'"]  # quoted where needed
    assert complete("WHY TASK 'app") == ["app-1/33", "'app 1/3'"]
    assert complete("WHY TASK app-") == ["app-1/33"]
    assert complete("WHY STAGE ") == []
