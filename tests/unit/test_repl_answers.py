"""The REPL answers as the CLI does (issue 24): ``\\stragglers``, ``\\whatif`` and ``\\skew``
print the command's summary first and its tables cut at 40 rows, every row with ``all``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfx.cli import cli
from perfx.repl import ReplSession
from perfx.terminal import SafeConsole

LOG = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "public"
    / "NVIDIA__spark-rapids-tools"
    / "nds_q88_photon_db_13_3.zstd"
)


@pytest.fixture(scope="module")
def session():
    repl = ReplSession(console=SafeConsole(file=io.StringIO(), width=120, color_system=None))
    assert repl.execute(f"\\log {LOG}")
    _said(repl)
    return repl


def _said(repl: ReplSession) -> str:
    text = repl.console.file.getvalue()
    repl.console.file.truncate(0)
    repl.console.file.seek(0)
    return text


def _cli(*args: str) -> str:
    return CliRunner(env={"COLUMNS": "120"}).invoke(cli, list(args)).output


@pytest.mark.parametrize("command", ["stragglers", "whatif", "skew"])
def test_a_repl_command_prints_what_the_cli_prints(session, command):
    session.execute(f"\\{command}")
    assert _said(session) == _cli(command, "--log", str(LOG))


def test_all_prints_every_row(session):
    session.execute("\\stragglers all")
    assert _said(session) == _cli("stragglers", "--log", str(LOG), "--all")
    session.execute("\\stragglers everything")
    assert "takes no argument but 'all'" in _said(session)
