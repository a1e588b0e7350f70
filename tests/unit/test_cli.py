"""The command group: every registered command loads and documents itself; errors are one
line with a non-zero exit code, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from perfx.cli import COMMANDS, cli


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
