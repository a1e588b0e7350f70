"""parse(): the pieces of the language one at a time, and the contract around them."""

from __future__ import annotations

import pytest

from perfx.grammar.ast import (
    Atom,
    Bool,
    EntityId,
    Number,
    Ordering,
    Predicate,
    Query,
    String,
    ValuePair,
)
from perfx.grammar.errors import PxqlError
from perfx.grammar.names import resolve_name
from perfx.grammar.parser import parse
from perfx.grammar.printer import to_pxql

TAIL = " OBSERVED duration compare = GT EXPECTED duration compare = SIM"


def despite(text: str, **kwargs) -> tuple[Atom, ...]:
    return parse(f"FOR T1, T2 DESPITE {text}{TAIL}", **kwargs).despite.atoms


@pytest.mark.parametrize(
    ("literal", "value", "unit", "dimension"),
    [
        ("128MB", 128 * 1024**2, "MB", "size"),
        ("128 mb", 128 * 1024**2, "MB", "size"),
        ("1.5GB", 1.5 * 1024**3, "GB", "size"),
        ("2KiB", 2048, "KiB", "size"),
        ("1TB", 1024**4, "TB", "size"),
        ("7B", 7, "B", "size"),
        ("300ms", 300, "ms", "time"),
        ("2s", 2000, "s", "time"),
        ("2 sec", 2000, "s", "time"),
        ("5min", 300_000, "min", "time"),
        ("1.5h", 5_400_000, "h", "time"),
        ("250us", 0.25, "us", "time"),
        ("0.1s", 100, "s", "time"),
        ("12", 12, None, None),
        ("-3.5", -3.5, None, None),
        ("2.5e-3", 0.0025, None, None),
    ],
)
def test_numbers_are_normalised_to_ms_and_bytes(literal, value, unit, dimension) -> None:
    (atom,) = despite(f"x >= {literal}")
    assert atom.value == Number(float(value), unit, dimension)


@pytest.mark.parametrize("literal", ["1e999999999", "9" * 5000, "1" + "0" * 400, "0." + "1" * 2000])
def test_huge_numbers_are_refused_quickly(literal: str) -> None:
    with pytest.raises(PxqlError, match="number"):
        despite(f"x = {literal}")


def test_tiny_numbers_underflow_to_zero() -> None:
    (atom,) = despite("x = 1e-999999999")
    assert atom.value == Number(0.0)


def test_sizes_are_binary() -> None:
    (kb,) = despite("x = 1KB")
    assert kb.value.value == 1024


@pytest.mark.parametrize(
    ("written", "feature", "pair_op"),
    [
        ("hostname isSame", "hostname", "isSame"),
        ("hostname.isSame", "hostname", "isSame"),
        ("hostname_isSame", "hostname", "isSame"),
        ("hostname ISSAME", "hostname", "isSame"),
        ("input_bytes_compare", "input_bytes", "compare"),
        ("input_bytes compare", "input_bytes", "compare"),
        ("input_bytes", "input_bytes", "base"),
        ("pig script", "pig_script", "base"),
        ("pig script isSame", "pig_script", "isSame"),
        ("`time_diff`", "time_diff", "base"),
        ("spark.executor.memory", "spark.executor.memory", "base"),
    ],
)
def test_pair_feature_spellings(written, feature, pair_op) -> None:
    value = {"isSame": "T", "compare": "GT", "base": "1"}[pair_op]
    (atom,) = despite(f"{written} = {value}")
    assert (atom.feature, atom.pair_op) == (feature, pair_op)


def test_diff_takes_a_pair() -> None:
    (atom,) = despite("pigscript diff = ('filter.pig', join.pig)")
    assert atom.value == ValuePair(String("filter.pig"), String("join.pig"))


@pytest.mark.parametrize(
    ("written", "op"),
    [
        ("=", "="),
        ("!=", "!="),
        ("≠", "!="),
        ("<=", "<="),
        ("≤", "<="),
        (">=", ">="),
        ("≥", ">="),
        ("<", "<"),
        (">", ">"),
    ],
)
def test_operators_are_normalised_to_ascii(written, op) -> None:
    (atom,) = despite(f"x {written} 1")
    assert atom.op == op


def test_conjunction_spellings_are_equivalent() -> None:
    spellings = [despite(f"a = 1 {conj} b = 2") for conj in ("AND", "and", "And", "∧")]
    assert all(s == spellings[0] for s in spellings)


def test_values() -> None:
    atoms = despite(
        "a = T AND b = false AND c = 'x\\'y\\\\z\\n' AND d = \"q\" AND e = bare-word.v1 AND f compare = sim"
    )
    assert [a.value for a in atoms] == [
        Bool(True),
        Bool(False),
        String("x'y\\z\n"),
        String("q"),
        String("bare-word.v1"),
        Ordering("SIM"),
    ]


def test_spans_point_at_the_text() -> None:
    text = "FOR T1, T2\nDESPITE  pig script isSame = T\nOBSERVED duration compare = GT EXPECTED duration compare = SIM"
    query = parse(text)
    atom = query.despite.atoms[0]
    assert text[atom.span.start : atom.span.end] == "pig script isSame = T"
    assert text[atom.feature_span.start : atom.feature_span.end] == "pig script isSame"
    assert (atom.span.line, atom.span.column) == (2, 10)
    assert query.source == text


def test_sugar_expands_as_design_says() -> None:
    slower = parse("WHY TASK 33 SLOWER THAN TASK 22")
    assert slower == Query(
        "task",
        ("T1", "T2"),
        EntityId("33"),
        EntityId("22"),
        observed=Predicate((Atom("duration", "compare", "=", Ordering("GT")),)),
        expected=Predicate((Atom("duration", "compare", "=", Ordering("SIM")),)),
    )
    faster = parse("WHY JOB 7 FASTER")
    assert (
        faster.entity,
        faster.second,
        faster.observed.atoms[0].value,
        faster.expected.atoms[0].value,
    ) == (
        "job",
        None,
        Ordering("LT"),
        Ordering("SIM"),
    )
    same = parse("why stage 4 same as stage 3")
    assert (same.observed.atoms[0].value, same.expected.atoms[0].value) == (
        Ordering("SIM"),
        Ordering("GT"),
    )


@pytest.mark.parametrize(
    "text, first, second",
    [
        ("WHY TASK 33 SLOWER THAN app-1/22", "33", "app-1/22"),
        (
            "WHY APP app-20161115172038-0000 SLOWER THAN app-20161116163331-0000",
            "app-20161115172038-0000",
            "app-20161116163331-0000",
        ),
        ("why job job-3 faster than job-2", "job-3", "job-2"),
        ("WHY STAGE 4 SAME AS stage.3", "4", "stage.3"),
        ("WHY TASK task:7 SLOWER THAN TASK task/8", "task:7", "task/8"),
    ],
)
def test_an_id_beginning_with_an_entitys_name_is_an_id(text, first, second) -> None:
    """After THAN (or AS) an entity may be named or left out: an id beginning with one's
    name (a standalone app's ``app-2016...``) was lexed as the entity and refused."""
    query = parse(text)
    assert (query.first, query.second) == (EntityId(first), EntityId(second))
    assert parse(to_pxql(query)) == query


def test_for_clause_bindings() -> None:
    query = parse("FOR J1, J2 WHERE J1.JobID = ? and J2.JOBID = ?" + TAIL)
    assert (query.entity, query.first, query.second, query.placeholders) == (
        "job",
        EntityId(None),
        EntityId(None),
        2,
    )
    only_first = parse("FOR T1, T2 WHERE T1.TaskID = 'app-1/33'" + TAIL)
    assert (only_first.first, only_first.second) == (EntityId("app-1/33"), None)
    no_for = parse(TAIL)
    assert (no_for.entity, no_for.variables, no_for.placeholders) == ("job", ("J1", "J2"), 2)


def test_bind_fills_placeholders_in_order() -> None:
    query = parse("FOR T1, T2 WHERE T1.TaskID = ? AND T2.TaskID = ?" + TAIL)
    bound = query.bind(33, "22")
    assert (bound.first, bound.second, bound.placeholders) == (EntityId("33"), EntityId("22"), 0)
    with pytest.raises(PxqlError, match="2 '\\?' placeholder"):
        query.bind(1)


def test_a_query_naming_no_execution_says_how_to_name_them() -> None:
    """A full query without WHERE binds its variables to nothing: asked to answer, it said
    it had "2 placeholder(s) but 0 value(s) were given" of ? the user never wrote (a probe
    of the CLI)."""
    query = parse("FOR J1, J2" + TAIL)
    with pytest.raises(PxqlError) as refused:
        query.bind()
    assert str(refused.value) == (
        "the query does not say which jobs J1 and J2 are: name them (WHERE J1.JobID = 33 AND "
        "J2.JobID = 22), or give a value for each ? (--bind)"
    )


def test_width_options() -> None:
    query = parse("WHY TASK 3 SLOWER WITH WIDTH 3, DESPITE WIDTH 2")
    assert (query.width, query.despite_width) == (3, 2)
    assert parse("WHY TASK 3 SLOWER WITH DESPITE WIDTH 0").despite_width == 0


def test_features_are_checked_against_the_given_list() -> None:
    features = ["job_id", "input_size", "hostname", "duration"]
    atoms = despite("jobID isSame = T AND input size compare = SIM", features=features)
    assert [a.feature for a in atoms] == ["jobID", "input_size"]
    with pytest.raises(PxqlError) as caught:
        despite("hostnme isSame = T", features=features)
    assert caught.value.message == "unknown feature 'hostnme' (did you mean 'hostname'?)"
    assert caught.value.suggestions == ["hostname"]


def test_misspelled_pair_suffix_is_told_even_with_a_scalar_value() -> None:
    with pytest.raises(PxqlError) as caught:
        despite("duration comare = 5")
    assert caught.value.suggestions == ["compare"]
    # ... unless the whole name is a known feature.
    (atom,) = despite("num compares = 5", features=["num_compares", "duration"])
    assert atom.feature == "num_compares"


def test_resolve_name_ignores_case_and_separators() -> None:
    assert resolve_name("jobID", ["job_id", "x"]) == "job_id"
    assert resolve_name("pig script", ["pigscript"]) == "pigscript"
    assert resolve_name("nope", ["x"]) is None


@pytest.mark.parametrize("bad", [None, 3, b"\xff\xfe", ["FOR"]])
def test_non_text_input_is_a_pxql_error(bad) -> None:
    with pytest.raises(PxqlError):
        parse(bad)


def test_bytes_are_decoded() -> None:
    assert parse(b"WHY TASK 3 SLOWER") == parse("WHY TASK 3 SLOWER")


def test_error_fields() -> None:
    with pytest.raises(PxqlError) as caught:
        parse("FOR T1, T2\nOBSERVED duration compare = GT\nEXPECTD duration compare = SIM")
    err = caught.value
    assert (err.line, err.column, err.span) == (3, 1, (42, 49))
    assert err.expected == ["AND", "EXPECTED"]
    assert err.suggestions == ["EXPECTED"]
    assert err.exit_code == 2


def test_long_lines_are_shown_as_a_window_around_the_error() -> None:
    atoms = " AND ".join(f"f{i} = {i}" for i in range(200))
    with pytest.raises(PxqlError) as caught:
        parse(f"FOR T1, T2 DESPITE {atoms} AND oops compare = 1{TAIL}")
    source_line, caret_line = str(caught.value).split("\n")[1:]
    assert len(source_line) < 140
    assert source_line.startswith("  ...") and source_line.endswith("...")
    assert source_line[caret_line.index("^") :].startswith("1")
