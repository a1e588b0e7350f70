"""PXQL highlighting in the REPL: every character keeps its place, and words are named the
way the grammar names them in their place."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from prompt_toolkit.document import Document

from perfx.highlight import STYLES, PxqlLexer, styled


@given(st.text())
def test_the_pieces_are_the_text(text):
    pieces = styled(text)
    assert "".join(piece for _, piece in pieces) == text
    assert all(kind in STYLES for kind, _ in pieces)


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(kind, piece) for kind, piece in styled(text) if piece.strip()]


def test_a_query_is_named_word_by_word():
    query = (
        "WHY TASK 33 SLOWER THAN TASK 'app-1/22' DESPITE host isSame = T "
        "AND gc_time compare = GT WITH WIDTH 3 -- why"
    )
    assert _kinds(query) == [
        ("keyword", "WHY"),
        ("keyword", "TASK"),
        ("number", "33"),
        ("keyword", "SLOWER"),
        ("keyword", "THAN"),
        ("keyword", "TASK"),
        ("string", "'app-1/22'"),
        ("keyword", "DESPITE"),
        ("feature", "host"),
        ("pair-op", "isSame"),
        ("operator", "="),
        ("value", "T"),
        ("keyword", "AND"),
        ("feature", "gc_time"),
        ("pair-op", "compare"),
        ("operator", "="),
        ("value", "GT"),
        ("keyword", "WITH"),
        ("keyword", "WIDTH"),
        ("number", "3"),
        ("comment", "-- why"),
    ]


def test_unreserved_keywords_are_keywords_only_in_their_place():
    # a feature may be named like an entity keyword or WIDTH: only after WHY/THAN/AS (an
    # entity) or WITH (width) are they keywords
    assert _kinds("DESPITE task = 1 AND width > 2") == [
        ("keyword", "DESPITE"),
        ("feature", "task"),
        ("operator", "="),
        ("number", "1"),
        ("keyword", "AND"),
        ("feature", "width"),
        ("operator", ">"),
        ("number", "2"),
    ]
    assert _kinds("WHY STAGE stage_7 FASTER")[2] == ("value", "stage_7")


def test_commands_and_lines_reach_prompt_toolkit_as_classes():
    assert styled("\\log /tmp/x") == [("special", "\\log"), ("text", " /tmp/x")]
    lines = PxqlLexer().lex_document(Document("WHY TASK 3\nSLOWER"))
    assert lines(0)[0] == ("class:pxql.keyword", "WHY")
    assert lines(1) == [("class:pxql.keyword", "SLOWER")]
    assert lines(2) == []
