"""Golden tests: every valid query's canonical text and JSON, every malformed query's error.

valid.pxql -> valid.expected.pxql (canonical text) and valid.json (query_to_dict);
errors.txt holds each malformed query with its exact error (message, line, column, caret).
"""

from __future__ import annotations

import pytest

from perfx.grammar.errors import PxqlError
from perfx.grammar.parser import parse
from perfx.grammar.printer import to_pxql
from perfx.grammar.serialize import query_to_dict

from .golden import (
    FIXTURES,
    read_errors,
    read_json,
    read_sections,
    updating,
    write_errors,
    write_json,
    write_sections,
)

VALID = read_sections(FIXTURES / "valid.pxql")
ERRORS = read_errors(FIXTURES / "errors.txt")


def test_goldens_are_current() -> None:
    """Compares (or, with PERFX_UPDATE_GOLDEN=1, rewrites) the expected files in one go."""
    canonical = {name: to_pxql(parse(query)) for name, query in VALID.items()}
    as_json = {name: query_to_dict(parse(query)) for name, query in VALID.items()}
    errors = {name: (query, _error_text(query)) for name, (query, _) in ERRORS.items()}
    if updating():
        write_sections(FIXTURES / "valid.expected.pxql", canonical)
        write_json(FIXTURES / "valid.json", as_json)
        write_errors(FIXTURES / "errors.txt", errors)
        pytest.skip("goldens rewritten: review the diff before committing it")
    assert canonical == read_sections(FIXTURES / "valid.expected.pxql")
    assert as_json == read_json(FIXTURES / "valid.json")
    assert errors == ERRORS


@pytest.mark.parametrize("name", list(VALID))
def test_canonical_text_round_trips(name: str) -> None:
    query = parse(VALID[name])
    assert parse(to_pxql(query)) == query
    assert to_pxql(parse(to_pxql(query))) == to_pxql(query)


@pytest.mark.parametrize("name", [n for n in VALID if n.endswith("-wedge")])
def test_wedge_and_AND_spellings_parse_alike(name: str) -> None:
    assert parse(VALID[name]) == parse(VALID[name.removesuffix("-wedge") + "-and"])


def test_there_are_at_least_40_error_cases() -> None:
    assert len(ERRORS) >= 40


@pytest.mark.parametrize("name", list(ERRORS))
def test_error(name: str) -> None:
    query, expected = ERRORS[name]
    with pytest.raises(PxqlError) as caught:
        parse(query)
    err = caught.value
    assert str(err) == expected
    if err.line is None:  # an empty query: nothing to point at
        assert expected == err.message
    else:
        assert expected.startswith(f"line {err.line}, column {err.column}: {err.message}\n")
    assert err.exit_code == 2


def _error_text(query: str) -> str:
    try:
        parse(query)
    except PxqlError as err:
        return str(err)
    return "<no error>"
