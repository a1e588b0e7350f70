"""``perfx parse``: output, exit codes, stdin, and errors on stderr without a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from perfx.cli import cli

from .golden import FIXTURES, read_json, read_sections


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, ["parse", *args], input=input)


def test_text_prints_the_canonical_query() -> None:
    result = run("WHY TASK 33 SLOWER THAN TASK 22 DESPITE blocksize >= 128 MB")
    assert result.exit_code == 0
    assert result.output == (
        "FOR T1, T2 WHERE T1.TaskID = 33 AND T2.TaskID = 22\n"
        "DESPITE blocksize >= 128MB\n"
        "OBSERVED duration compare = GT\n"
        "EXPECTED duration compare = SIM\n"
    )


def test_json_prints_the_documented_tree() -> None:
    query = read_sections(FIXTURES / "valid.pxql")["design-example"]
    result = run("--format", "json", query)
    assert result.exit_code == 0
    assert json.loads(result.output) == read_json(FIXTURES / "valid.json")["design-example"]
    assert (
        result.output
        == json.dumps(json.loads(result.output), indent=2, sort_keys=True, ensure_ascii=False)
        + "\n"
    )


def test_dash_reads_stdin() -> None:
    result = run("-", input="WHY JOB 7 SAME AS JOB 3\n")
    assert result.exit_code == 0
    assert result.output.startswith("FOR J1, J2 WHERE J1.JobID = 7 AND J2.JobID = 3\n")


def test_features_option() -> None:
    ok = run("--features", "duration,hostname", "WHY TASK 1 SLOWER DESPITE hostname isSame = T")
    assert ok.exit_code == 0
    bad = run("--features", "duration,hostname", "WHY TASK 1 SLOWER DESPITE hostnme isSame = T")
    assert bad.exit_code != 0
    assert "did you mean 'hostname'?" in str(bad.exception)


def test_help_documents_the_options() -> None:
    result = run("--help")
    assert result.exit_code == 0
    for word in ("QUERY", "--format", "--features", "stdin", "status 2"):
        assert word in result.output


@pytest.mark.parametrize(
    "query",
    [
        "FOR J1, J2 WHERE J1.JobID = ? and J2.JobID = ? OBSERVED duration comare = GT EXPECTED duration compare = SIM"
    ],
)
def test_bad_query_exits_2_with_the_error_on_stderr(query: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "perfx.cli", "parse", query],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "perfx: line 1, column 66: unknown pair feature 'comare' (did you mean 'compare'?)\n"
        "  FOR J1, J2 WHERE J1.JobID = ? and J2.JobID = ? OBSERVED duration comare = GT EXPECTED duration compare = SIM\n"
        "                                                                   ^^^^^^\n"
    )
    assert "Traceback" not in result.stderr


def test_good_query_exits_0_end_to_end() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "perfx.cli", "parse", "--format", "json", "WHY TASK 3 FASTER"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["observed"][0]["value"] == {"type": "ordering", "value": "LT"}
