"""``ExplainOptions`` (explain/options.py) is the one home of the explanation options: built and
checked once, from flags, keywords or the REPL, before any log is read."""

from __future__ import annotations

import dataclasses

import pytest
from click.testing import CliRunner

import perfx.session
from perfx.cli import cli
from perfx.explain.errors import ExplainError
from perfx.explain.methods import METHODS
from perfx.explain.options import DEFAULT_SAMPLE, DEFAULT_WIDTH, METHOD_NAMES, ExplainOptions
from perfx.grammar.parser import parse
from tests.data_files import fixture_log

SMALL = fixture_log("spark-events/local-1426533911241")


def test_the_method_names_are_the_methods():
    assert set(METHOD_NAMES) == set(METHODS)


def test_an_options_value_is_frozen_and_checked_when_built():
    options = ExplainOptions()
    assert options.sample == DEFAULT_SAMPLE and options.method == "perfxplain"
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.sample = 10  # type: ignore[misc]
    for bad in ({"method": "nope"}, {"level": 4}, {"sample": 1}, {"width": 0}):
        with pytest.raises(ExplainError, match=f"option {next(iter(bad))}"):
            ExplainOptions(**bad)
    with pytest.raises(TypeError, match="unknown explanation option"):
        ExplainOptions.of(samples=10)


def test_the_query_fills_what_no_option_set():
    query = parse("WHY TASK 3 SLOWER THAN TASK 1 WITH WIDTH 2")
    assert ExplainOptions().for_query(query).width == 2
    assert ExplainOptions(width=4).for_query(query).width == 4
    assert ExplainOptions().for_query(parse("WHY TASK 3 SLOWER")).width == DEFAULT_WIDTH
    assert ExplainOptions.of(ExplainOptions(seed=5), width=None, sample=30) == ExplainOptions(
        seed=5, sample=30
    )


def test_a_bad_method_is_a_usage_error_before_any_log_is_read(monkeypatch):
    def no_reading(*args, **kwargs):
        raise AssertionError("a log was opened")

    monkeypatch.setattr(perfx.session, "open", no_reading)
    result = CliRunner().invoke(
        cli, ["explain", "--log", str(SMALL), "--method", "nope", "WHY TASK 1 SLOWER"]
    )
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--method'" in result.output and "'nope'" in result.output
    assert "a log was opened" not in result.output


def test_the_flags_carry_the_options_defaults_and_help():
    from perfx.commands.explain import explain

    flags = {p.name: p for p in explain.params}
    for name in ("width", "despite_width", "sample", "seed", "method", "level"):
        assert flags[name].default == ExplainOptions.default(name), name
        assert flags[name].help == ExplainOptions.help(name), name


def test_the_command_line_parses_the_query_once(monkeypatch, capsys):
    """The explain command parses the query before the log is read and that Query travels:
    the store's focus and the engine use it; the engine only checks its features."""
    import perfx.grammar.parser as parser
    from perfx.cli import main

    real = parser.parse
    parsed: list[str] = []

    def counting(text, **kwargs):
        parsed.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(parser, "parse", counting)
    query = "WHY TASK 'local-1426533911241/0' SLOWER"
    with pytest.raises(SystemExit) as done:
        main(["explain", "--log", str(SMALL), "--sample", "50", query])
    assert done.value.code == 0, capsys.readouterr().err
    assert parsed == [query]


def test_a_syntax_error_is_reported_before_any_log_is_read(monkeypatch, capsys):
    from perfx.cli import main

    def no_reading(*args, **kwargs):
        raise AssertionError("a log was opened")

    monkeypatch.setattr(perfx.session, "open", no_reading)
    with pytest.raises(SystemExit) as done:
        main(["explain", "--log", str(SMALL), "WHY TASK 3 SLOWR"])
    err = capsys.readouterr().err
    assert done.value.code != 0 and "SLOWR" in err and "a log was opened" not in err
