"""The REPL answers as the CLI does (issue 24): ``\\stragglers``, ``\\whatif`` and ``\\skew``
print the command's summary first and its tables cut at 40 rows, every row with ``all``."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner

from perfx.cli import cli
from perfx.repl import ReplSession
from perfx.terminal import SafeConsole
from tests.data_files import public_log

pytestmark = pytest.mark.slow  # every REPL answer on a 3.5 MB log, beside the CLI's

LOG = public_log("NVIDIA__spark-rapids-tools/nds_q88_photon_db_13_3.zstd")


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


def test_report_writes_the_page_perfx_report_writes(session, tmp_path):
    out = tmp_path / "q88.html"
    session.execute(f"\\report {out}")
    said = _said(session)
    # the console folds the line where the temporary folder's path is long (a worker's is)
    assert said.replace("\n", "").endswith(f"report written to {out}")
    assert "questions answered" in said
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "nds_q88_photon_db_13_3" in page
    session.execute(f"\\report {tmp_path / 'missing' / 'x.html'}")
    assert "no folder" in _said(session)


def test_ids_are_offered_slowest_first_with_their_duration(session):
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from perfx.completer import IDS_SHOWN, PxqlCompleter
    from perfx.grammar.printer import id_to_pxql

    tasks = session.log.tasks
    slowest = tasks.sort_values("duration", ascending=False, kind="stable")["id"].astype(str)
    completer = PxqlCompleter(session.feature_names, lambda: [], session.entity_ids)
    offered = list(completer.get_completions(Document("WHY TASK "), CompleteEvent()))
    assert len(offered) == min(IDS_SHOWN, len(tasks))
    first = offered[0]
    assert first.text == id_to_pxql(slowest.iloc[0])
    assert first.display_meta_text[:1].isdigit()
    typed = f"WHY TASK {slowest.iloc[5][:-1]}"
    narrowed = [c.text for c in completer.get_completions(Document(typed), CompleteEvent())]
    assert id_to_pxql(slowest.iloc[5]) in narrowed
    assert all(text.startswith(slowest.iloc[5][:-1]) for text in narrowed)
