"""One rule for names everywhere (grammar/names.py): the parser's checks, the registry, the
engine and the REPL match and suggest names the same way."""

from __future__ import annotations

from perfx.grammar.names import closest, completes, resolve_name
from perfx.logs.loader import load_log
from tests.data_files import fixture_log


def test_an_exact_spelling_wins_over_a_loose_one():
    assert resolve_name("job_id", {"jobid": "job_name", "job_id": "job_id"}) == "job_id"
    assert resolve_name("Job ID", ["job_id", "x"]) == "job_id"
    assert resolve_name("nope", ["job_id"]) is None


def test_did_you_mean_maps_aliases_to_their_name_once():
    known = {"duration": "duration", "hostname": "host", "host": "host", "gc_time": "gc_time"}
    assert closest("hostnme", known) == ["host"]
    assert closest("zzz", known) == []


def test_completion_ignores_case_and_separators():
    assert completes("jobI", "job_id") and completes("", "x") and not completes("gc", "host")


def test_the_registry_and_the_parser_agree_on_a_loosely_written_feature():
    log = load_log([fixture_log("spark-events/application_1628109047826_1317105")])
    spec = log.registry.resolve("task", "GC Time")
    assert spec is not None and spec.name == "gc_time"
    assert log.registry.suggest("task", "gc_tme")[0] == "gc_time"
