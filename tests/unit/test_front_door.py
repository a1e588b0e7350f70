"""One front door: ``perfx.open`` (the README's Python example) and the CLI give the same
answers and JSON on the same log; every string from a log, a record or a query is printed as
text; the REPL survives Ctrl-C and checks ``\\set`` at once; completion is scoped to the
query's entity; batch answers every query it can."""

from __future__ import annotations

import contextlib
import io
import json
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import perfx
from perfx.batch import expand, read_queries
from perfx.cli import cli
from perfx.commands.options import log_note
from perfx.completer import PxqlCompleter
from perfx.logs.model import log_notes
from perfx.repl import ReplSession
from perfx.terminal import SafeConsole
from tests.data_files import fixture_log, public_log

REPO = Path(__file__).resolve().parents[2]
GROUPON = str(public_log("groupon__sparklint/application_1472176676028_407508_1"))
LOCAL = fixture_log("spark-events/local-1430917381534")


def _cli(args: list[str], **env: str) -> str:
    result = CliRunner().invoke(cli, args, env={"COLUMNS": "100", **env}, terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


def _readme_python_example() -> str:
    text = (REPO / "README.md").read_text()
    section = text.split("## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_python_example_prints_what_perfx_explain_prints(monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("COLUMNS", "100")
    code = _readme_python_example()
    path, query = re.search(
        r'perfx\.open\("([^"]+)"\)\n.*?explain\("([^"]+)"\)', code, re.S
    ).groups()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})
    from_cli = _cli(["explain", "--log", path, query])
    assert printed.getvalue().startswith(from_cli)
    assert "GC time was higher" in from_cli


@pytest.mark.parametrize(
    "method, args, command",
    [
        ("stragglers", (), ["stragglers"]),
        (
            "whatif",
            (("gc", "network,disk"),),
            ["whatif", "--without", "gc", "--without", "network,disk"],
        ),
        ("skew", (), ["skew"]),
        ("features", ("stage",), ["features", "--entity", "stage"]),
        ("summary", (), None),
    ],
)
def test_every_cli_json_is_the_sessions(method, args, command):
    result = getattr(perfx.open(LOCAL), method)(*args).to_dict()
    if command is None:  # perfx logs takes paths, not --log
        command = ["logs", str(LOCAL)]
    else:
        command = [*command, "--log", str(LOCAL)]
    assert json.loads(_cli([*command, "--format", "json"])) == json.loads(json.dumps(result))


def test_features_are_the_same_for_python_and_the_cli():
    names = perfx.open(LOCAL).features("task").names
    listed = json.loads(_cli(["features", "--log", str(LOCAL), "--format", "json"]))
    assert names == [f["name"] for f in listed["features"]]
    assert "straggler_cause" in names  # the straggler features, on every path


def test_a_question_naming_no_straggler_feature_skips_the_straggler_analysis():
    """The straggler features are symptoms the search never proposes: a question that names
    none is answered without finding every stage's stragglers (0.7 s of a first explain on
    150,000 tasks), as it is with them; one that names one is asked of the log that has it."""
    plain = perfx.open(GROUPON)
    tasks = plain.raw.tasks
    slowest = str(tasks["id"].iloc[tasks["duration"].idxmax()])
    answer = plain.explain(f"WHY TASK '{slowest}' SLOWER")
    note = log_note(plain)  # what the command prints after the answer
    assert "straggler_analysis" not in plain.__dict__ and "log" not in plain.__dict__
    with_features = perfx.open(GROUPON)
    assert with_features.log is not None  # built first: asked of the view with them
    assert with_features.explain(f"WHY TASK '{slowest}' SLOWER").to_dict() == answer.to_dict()
    assert note == log_notes(with_features.log)
    named = perfx.open(GROUPON)
    named.explain(f"WHY TASK '{slowest}' SLOWER DESPITE straggler_cause isSame = T")
    assert "straggler_analysis" in named.__dict__


# -- text from logs, records and queries is text ------------------------------------------

HOSTILE = "[bold]h0[/] [/]\x1b[31mred\x1b[0m"


@pytest.fixture(scope="module")
def hostile_log(tmp_path_factory) -> Path:
    """A real event log whose host and application name hold markup and ANSI escapes."""
    source = (LOCAL).read_text()
    text = source.replace('"localhost"', json.dumps(HOSTILE)).replace(
        '"Spark shell"', json.dumps("[blink red]shell " + HOSTILE)
    )
    assert text != source
    path = tmp_path_factory.mktemp("hostile") / "local-1430917381534"
    path.write_text(text)
    return path


def _shown(text: str) -> None:
    assert "\x1b" not in text  # no escape reaches the terminal
    assert "[bold]h0[/]" in text and "\\x1b[31mred" in text  # shown as written


def test_hostile_host_is_printed_as_text(hostile_log):
    out = _cli(["explain", "--log", str(hostile_log), "WHY TASK 3 SLOWER DESPITE host isSame = T"])
    _shown(out)


@pytest.mark.slow
def test_hostile_query_literal_is_a_readable_error():
    literal = "[/]exec0 [bold]x\x1b[31m"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfx.cli",
            "explain",
            "--log",
            GROUPON,
            f"WHY TASK 554 SLOWER THAN TASK 573 DESPITE host = '{literal}'",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("perfx: line 1, column 43: the pair (T1 = 554, T2 = 573)")
    assert "[/]exec0 [bold]x\\x1b[31m" in done.stderr and "\x1b" not in done.stderr


def test_hostile_app_name_is_kept_verbatim_in_json(hostile_log):
    skew = json.loads(
        _cli(
            [
                "skew",
                "--log",
                str(hostile_log),
                "--format",
                "json",
                "--min-excess",
                "0",
                "--factor",
                "1.01",
            ]
        )
    )
    names = {stage["app_name"] for stage in skew["stages"]}
    assert names == {"[blink red]shell " + HOSTILE}


def test_hostile_record_is_printed_as_text():
    from perfx.commands.culprits import print_culprits

    buffer = io.StringIO()
    console = SafeConsole(file=buffer, width=400, force_terminal=True)
    record = {
        "source": 1,
        "impact_ms": 900.0,
        "location": "in.txt:3",
        "excerpt": HOSTILE,
        "outputs": 3,
    }
    print_culprits(console, pd.DataFrame([record]), "culprits")
    shown = buffer.getvalue()
    assert "[bold]h0[/]" in shown and "\\x1b[31mred" in shown
    assert "\x1b[31mred" not in shown


# -- the REPL ---------------------------------------------------------------------------------


@pytest.fixture()
def repl() -> ReplSession:
    session = ReplSession(console=SafeConsole(file=io.StringIO(), width=120))
    session.load([str(LOCAL)])
    session.console.file.truncate(0)
    return session


def _printed(repl: ReplSession) -> str:
    text = repl.console.file.getvalue()
    repl.console.file.seek(0)
    repl.console.file.truncate(0)
    return text


@pytest.mark.slow
def test_ctrl_c_cancels_the_running_query_and_the_repl_goes_on(repl, monkeypatch):
    def slow(self, query, **options):
        time.sleep(30)

    monkeypatch.setattr(perfx.Session, "explain", slow)
    # the signal goes to the main thread, as a terminal's Ctrl-C does
    timer = threading.Timer(
        0.3, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)
    )
    timer.start()
    started = time.monotonic()
    assert repl.execute("WHY TASK 3 SLOWER") is True
    assert time.monotonic() - started < 10
    assert "cancelled" in _printed(repl)
    monkeypatch.undo()
    assert repl.execute("\\set width 2") is True
    assert repl.options["width"] == 2


@pytest.mark.parametrize(
    "line, message",
    [
        (
            "\\set method bogus",
            "unknown method 'bogus'; choose from peers, perfxplain, ruleofthumb, simbutdiff",
        ),
        ("\\set width 0", "option width: must be at least 1"),
        ("\\set despite_width -1", "option despite_width: must be at least 0"),
        (
            "\\set sample 5",
            "option sample: must be at least 6 (3 pairs behaving as OBSERVED and 3 as EXPECTED)",
        ),
        ("\\set format xml", "option format: is text or json"),
        ("\\set run no-such-run", "no-such-run"),
        ("\\set colour red", "unknown option 'colour'"),
    ],
)
def test_set_is_checked_at_once(repl, line, message):
    before = dict(repl.options)
    assert repl.execute(line) is True
    assert message in _printed(repl)
    assert repl.options == before


def test_completion_offers_the_querys_entitys_features(repl):
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    completer = PxqlCompleter(repl.feature_names, lambda: [])

    def complete(text: str) -> set[str]:
        return {c.text for c in completer.get_completions(Document(text), CompleteEvent())}

    task = complete("WHY TASK 3 SLOWER DESPITE gc_")
    stage = complete("WHY STAGE 1 SLOWER DESPITE gc_")
    assert "gc_time" in task and not any(name.endswith("_sum") for name in task)
    assert "gc_time_sum" in stage
    full = complete("FOR T1, T2 WHERE T1.TaskID = ? AND T2.TaskID = ? DESPITE gc_")
    assert full == task


# -- batch ------------------------------------------------------------------------------------

QUERIES = """\
-- three questions; the second misspells SLOWER
WHY TASK 30 SLOWER;

WHY TASK 31
  SLOWR;
WHY TASK 32 SLOWER
"""


def test_batch_answers_every_query_it_can_and_places_syntax_errors_in_the_file(tmp_path):
    queries = tmp_path / "q.pxql"
    queries.write_text(QUERIES)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli, ["batch", "--log", str(LOCAL), "--queries", str(queries), "--out", str(out)]
    )
    assert result.exit_code == 1
    assert f"2 of 3 questions answered; report written to {out}" in result.output
    assert (
        "not answered: WHY TASK 31\n  SLOWR: line 5, column 3: unexpected 'SLOWR'" in result.output
    )
    assert out.exists()


def test_batch_error_positions_are_the_files():
    items = expand(read_queries(QUERIES), [], source=QUERIES)
    assert [item.ok for item in items] == [True, False, True]
    assert items[1].error.startswith("line 5, column 3: ")
    assert "  SLOWR;" in items[1].error


def test_batch_says_how_many_stragglers_it_asked_about(tmp_path):
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli,
        ["batch", "--log", str(LOCAL), "--stragglers", "--top", "2", "--out", str(out)],
    )
    total = perfx.open(LOCAL).stragglers().to_dict()["stragglers"]
    assert total > 2
    assert f"questions about the 2 longest of {total} stragglers answered" in result.output


@pytest.mark.slow
def test_a_spinner_shows_once_work_takes_longer_than_the_delay():
    from perfx.terminal import working

    def run(seconds: float) -> str:
        buffer = io.StringIO()
        console = SafeConsole(file=buffer, force_terminal=True, width=80)
        with working("explaining", console, delay=0.2):
            time.sleep(seconds)
        return buffer.getvalue()

    assert "explaining ..." in run(1.0)
    assert run(0.0) == ""


def test_no_spinner_off_a_terminal():
    from perfx.terminal import working

    buffer = io.StringIO()
    with working("explaining", SafeConsole(file=buffer), delay=0.0):
        time.sleep(0.3)
    assert buffer.getvalue() == ""


def test_repl_options_refused_as_usage_errors():
    for args in (["--width", "0"], ["--sample", "1"], ["--run", "no-such-run"]):
        result = CliRunner().invoke(cli, ["repl", *args])
        assert result.exit_code == 2, (args, result.output)
        assert "internal error" not in result.output


def test_stragglers_of_a_store_without_stragglers_show_its_stages(tmp_path):
    from perfx.logs.store.ingest import ingest

    calm = fixture_log("spark-events/local-1422981759269")
    store = tmp_path / "store"
    ingest([str(calm)], str(store), workers=1)
    from_store = _cli(["stragglers", "--store", str(store)])
    from_log = _cli(["stragglers", "--log", str(calm)])
    assert "No successful tasks" not in from_store
    assert from_store.splitlines() == from_log.splitlines()
    assert from_log.splitlines() == [
        "No stragglers in 5 stages: every task's time per byte or duration is within 1.5x its "
        "stage's median."
    ]
