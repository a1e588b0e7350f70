"""The command group: every registered command loads and documents itself; errors are one
line with a non-zero exit code, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from perfx.cli import COMMANDS, cli
from tests.data_files import fixture_log
from tests.logs.fuzzing import run_cli


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help(name):
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: cli {name}") or result.output.startswith(
        f"Usage: perfx {name}"
    )
    assert len(result.output.splitlines()) > 3


def test_top_level_help_lists_every_command():
    result = CliRunner().invoke(cli, ["--help"])
    listed = {
        line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line.strip()
    }
    assert listed == set(COMMANDS)


def _perfx(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "perfx.cli", *args], capture_output=True, text=True
    )


def test_a_missing_log_is_one_line_and_exit_code_1(tmp_path):
    result = _perfx("logs", str(tmp_path / "nowhere"))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_bad_query_exits_2_with_a_caret():
    result = _perfx("parse", "WHY TASK 5 SLOWR")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "^" in result.stderr


@pytest.mark.parametrize(
    ("clause", "at", "said"),
    [
        ("DESPITE host compare = GT", "host compare = GT", "host is nominal: use 'host isSame'"),
        (
            "DESPITE input_bytes diff = (1, 2)",
            "input_bytes diff = (1, 2)",
            "input_bytes is numeric: use 'input_bytes compare'",
        ),
        ("DESPITE host isSame = GT", "GT", "'host isSame' takes T or F, not GT"),
    ],
)
def test_an_atom_its_feature_does_not_take_is_a_query_error_with_a_caret(clause, at, said):
    """Whether ``compare`` applies to ``host`` only the log says: it was an error of one line
    and exit 1, where ``host > 'a'`` had its caret and exit 2 (a probe of the CLI)."""
    query = f"WHY TASK 0 SLOWER THAN TASK 90 {clause}"
    log = str(fixture_log("spark-events/local-1430917381534"))
    result = run_cli(["explain", "--log", log, "--no-cache", query])  # as the console runs it
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    message, shown, caret = result.stderr.splitlines()
    assert message.startswith("perfx: line 1, column ") and said in message
    assert shown.strip() == query
    start = query.index(at)
    assert caret == " " * (2 + start) + "^" * len(at)


def test_a_pair_naming_one_task_twice_is_a_query_error_with_a_caret():
    log = str(fixture_log("spark-events/local-1430917381534"))
    result = run_cli(["explain", "--log", log, "--no-cache", "WHY TASK 33 SLOWER THAN TASK 33"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "perfx: line 1, column 30: the pair of interest names the same task twice",
        "  WHY TASK 33 SLOWER THAN TASK 33",
        "                               ^^",
    ]
