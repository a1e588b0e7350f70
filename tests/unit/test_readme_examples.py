"""Every example in the README runs on the logs shipped in tests/data: each ``$ perfx ...``
line of a fenced block, each PXQL query of "Asking in PXQL" on the log that section names,
the Python example up to its traced run, and each command the commands table lists.
(test_readme_answers checks that the pasted answers are what perfx prints.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfx.cli import cli

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
SPARK_COMMANDS = {"isolate", "why", "verify", "demo"}
"""Commands that run a Spark job: an example of one runs on the tests' shared session."""


def _section(title: str) -> str:
    return README.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def _fenced(language: str | None = None) -> list[str]:
    pattern = rf"```{language or r'[a-z]*'}\n(.*?)```"
    return re.findall(pattern, README, re.S)


def command_examples() -> list[str]:
    """The ``$ perfx ...`` lines of every fenced block."""
    return [
        line.removeprefix("$ ")
        for block in _fenced()
        for line in block.splitlines()
        if line.startswith("$ perfx ")
    ]


def pxql_examples() -> tuple[str, list[str]]:
    """The log "Asking in PXQL" names and its queries: one per ``WHY`` line, and the lines
    from ``FOR`` on as one query."""
    section = _section("Asking in PXQL")
    log = re.search(r"`perfx explain --log (\S+) \"QUERY\"`", section).group(1)
    block = re.search(r"\n\n((?:    .*\n)+)", section).group(1)
    lines = [line.strip() for line in block.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("FOR "))
    return log, [*lines[:start], "\n".join(lines[start:])]


def _run(args: list[str], monkeypatch):
    monkeypatch.chdir(REPO)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, f"perfx {shlex.join(args)}: {result.output}"
    assert "Traceback" not in result.output
    return result


def test_the_readme_has_examples_of_each_kind():
    assert len(command_examples()) >= 3
    assert len(pxql_examples()[1]) >= 4


@pytest.mark.parametrize(
    "command",
    [
        # marked at collection, so that ./dev test --quick (-m "not spark") leaves them out
        pytest.param(
            c, id=c, marks=[pytest.mark.spark] if shlex.split(c)[1] in SPARK_COMMANDS else []
        )
        for c in command_examples()
    ],
)
def test_command_example_runs(command, monkeypatch, request):
    args = shlex.split(command)[1:]
    if args[0] in SPARK_COMMANDS:
        request.getfixturevalue("spark")
    for path in re.findall(r"tests/data/\S+", command):
        assert (REPO / path).exists(), f"{path} is not shipped"
    _run(args, monkeypatch)


@pytest.mark.parametrize("query", pxql_examples()[1])
def test_pxql_example_answers_on_the_log_it_names(query, monkeypatch):
    log = pxql_examples()[0]
    assert (REPO / log).exists()
    _run(["explain", "--log", log, query, "--format", "json"], monkeypatch)


def test_python_example_runs_up_to_its_traced_run(monkeypatch):
    """The part after ``run_traced`` re-runs a PySpark program on an input the reader
    supplies (``ratings/``); the part before reads a shipped log and answers on it."""
    code = _fenced("python")[0].split("from perfx.isolation.runner import run_traced")[0]
    assert "tests/data/" in code
    monkeypatch.chdir(REPO)
    exec(compile(code, "README.md", "exec"), {})


@pytest.mark.parametrize(
    "command", sorted(set(re.findall(r"^\| `perfx (\w+)", _section("Commands"), re.M)))
)
def test_listed_command_exists(command, monkeypatch):
    _run([command, "--help"], monkeypatch)
