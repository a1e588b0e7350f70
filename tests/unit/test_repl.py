"""The REPL session: queries, backslash commands and errors, driven without a terminal."""

from __future__ import annotations

import io
import re

import pytest

from perfx.repl import ReplSession, history_path, query_is_complete
from perfx.terminal import SafeConsole
from tests.data_files import fixture_log


@pytest.fixture()
def session():
    return ReplSession(console=SafeConsole(file=io.StringIO(), width=120, color_system=None))


def output(session: ReplSession) -> str:
    text = session.console.file.getvalue()
    session.console.file.truncate(0)
    session.console.file.seek(0)
    return text


def test_a_query_before_a_log_is_loaded_says_how_to_load_one(session):
    assert session.execute("WHY TASK 5 SLOWER") is True
    assert output(session).strip() == "no log loaded: \\log PATH loads one"


def test_log_features_query_and_quit(session):
    log = fixture_log("spark-events/local-1430917381534")
    assert session.execute(f"\\log {log}")
    assert "loaded 1 path(s): 1 application (Spark 1.4.0-SNAPSHOT): 1 job, 2 stages, 110 tasks" in (
        output(session)
    )
    session.execute("\\features")
    assert "time_per_record" in output(session)
    session.execute("\\set width 1")
    session.execute("WHY TASK 5 SLOWER;")
    answer = " ".join(output(session).split())  # undo the console's line wrapping
    # Task 5 read what its peers read: its own code ran longer (time per record would only
    # say the duration again), as did the 7 tasks launched with it, each about 420 ms where
    # the stage's later tasks took 20-140 ms: the stage's start-up
    assert re.search(
        r"was slower than task local-1430917381534/43, most likely because its compute time was higher "
        r"\(339 ms against 16 ms\)\.",
        answer,
    ), answer
    assert "diagnosis: cold start: it opened its stage on its executor with 7 other tasks" in answer
    assert session.execute("\\q") is False


def test_query_errors_are_printed_with_their_caret(session):
    session.execute("WHY TASK 5 SLOWR")
    text = output(session)
    assert "did you mean" in text and "^" in text


def test_bad_commands_and_options_are_one_line_errors(session):
    session.execute("\\lgo x")
    assert (
        output(session).strip()
        == "unknown command \\lgo (did you mean \\log?); \\help lists the commands"
    )
    session.execute("\\set width wide")
    assert output(session).strip() == "option width takes a whole number, not 'wide'"
    session.execute("\\set colour red")
    assert output(session).startswith("unknown option 'colour'")


def test_enter_submits_complete_queries_and_continues_unfinished_ones():
    assert query_is_complete("WHY TASK 5 SLOWER")
    assert query_is_complete("\\help")
    assert not query_is_complete(
        "FOR T1, T2 WHERE T1.TaskID = 1 AND T2.TaskID = 2 OBSERVED duration compare ="
    )
    assert query_is_complete("WHY TASK 5 SLOWR")  # the error is not at the end: show it


def test_history_lives_under_xdg_state_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert history_path() == tmp_path / "perfx" / "history"
