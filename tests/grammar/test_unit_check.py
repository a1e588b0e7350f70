"""A number written with a unit must measure what its feature does: given each feature's unit
(the registry's), ``gc_time < 128MB`` is a one-line error with a caret under the value, while
plain numbers and matching units pass."""

from __future__ import annotations

import pytest

from perfx.grammar.errors import PxqlError
from perfx.grammar.parser import parse
from perfx.logs.loader import load_log
from perfx.logs.registry import ENTITIES
from tests.data_files import public_log

LOG = public_log("qubole__sparklens/local-1532512550423")


@pytest.fixture(scope="module")
def units() -> dict[str, str]:
    """Every feature name and alias of a real log with its unit, as the engine knows them."""
    registry = load_log(LOG).registry
    specs = [spec for entity in ENTITIES for spec in registry.specs(entity)]
    return {name: spec.unit for spec in specs for name in (spec.name, *spec.aliases)}


def error(query: str, units: dict[str, str]) -> PxqlError:
    with pytest.raises(PxqlError) as raised:
        parse(query, features=units)
    return raised.value


def test_a_size_for_a_time_is_underlined(units) -> None:
    err = error("WHY TASK 3 SLOWER DESPITE gc_time < 128MB", units)
    assert str(err) == (
        "line 1, column 37: 128MB is a size, but 'gc_time' is a time (ms)\n"
        "  WHY TASK 3 SLOWER DESPITE gc_time < 128MB\n"
        "                                      ^^^^^"
    )
    assert err.span == (36, 41)


@pytest.mark.parametrize(
    "query, message, underlined",
    [
        (
            "FOR T1, T2 OBSERVED input_bytes > 2s EXPECTED duration compare = SIM",
            "2s is a time, but 'input_bytes' is a size (bytes)",
            "2s",
        ),
        (
            "WHY TASK 3 SLOWER DESPITE records_in compare = SIM AND input_records > 5 min",
            "5min is a time, but 'input_records' is a count",
            "5 min",
        ),
        (
            "WHY TASK 3 SLOWER DESPITE gc_time diff = (1s, 1KB)",
            "1KB is a size, but 'gc_time' is a time (ms)",
            "(1s, 1KB)",
        ),
        (
            "WHY TASK 3 SLOWER DESPITE host = 1GB",
            "1GB is a size, but 'host' is not measured in any unit",
            "1GB",
        ),
        (
            "WHY TASK 3 SLOWER DESPITE GC Time < 1 GB",
            "1GB is a size, but 'GC_Time' is a time (ms)",
            "1 GB",
        ),  # as written
    ],
)
def test_every_unit_mismatch_is_told(units, query: str, message: str, underlined: str) -> None:
    err = error(query, units)
    assert err.message == message
    assert query[err.span[0] : err.span[1]] == underlined


@pytest.mark.parametrize(
    "query",
    [
        "WHY TASK 3 SLOWER DESPITE gc_time < 2s AND input_bytes >= 128MB",
        "WHY TASK 3 SLOWER DESPITE gc_time < 128 AND input_records > 1000 AND host = 5",  # plain numbers fit all
        "WHY TASK 3 SLOWER DESPITE gc_time diff = (1s, 300ms) AND input_bytes compare = SIM",
        "WHY TASK 3 SLOWER DESPITE cpu_time < 1min",  # an alias (of executor_cpu_time) has its feature's unit
    ],
)
def test_fitting_numbers_pass(units, query: str) -> None:
    parse(query, features=units)


def test_a_list_of_names_checks_no_units(units) -> None:
    parse("WHY TASK 3 SLOWER DESPITE gc_time < 128MB", features=list(units))
    parse("WHY TASK 3 SLOWER DESPITE anything < 128MB")


def test_perfx_explain_checks_units_against_the_logs_features(capsys):
    from perfx.cli import main

    log = public_log("groupon__sparklint/spark_event_log_example")
    with pytest.raises(SystemExit) as done:
        main(["explain", "--log", str(log), "WHY TASK 42 SLOWER DESPITE gc_time < 128MB"])
    err = capsys.readouterr().err
    assert done.value.code == 2
    assert (
        "128MB is a size, but 'gc_time' is a time (ms)" in err
        and "^^^^^" in err
        and "Traceback" not in err
    )
