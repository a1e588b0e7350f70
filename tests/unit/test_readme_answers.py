"""The answers pasted in the README's "Reading an answer" are what perfx prints today: each
``$ perfx explain ...`` line in that section is run (at the 100 columns it was pasted at) and
its output compared with the text under it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfx.cli import cli

REPO = Path(__file__).resolve().parents[2]


def _examples() -> list[tuple[str, str]]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Reading an answer", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    parts = re.split(r"^\$ (perfx explain .*)$", block, flags=re.M)[1:]
    return [(parts[k], parts[k + 1].strip("\n")) for k in range(0, len(parts), 2)]


EXAMPLES = _examples()


def test_the_section_has_examples():
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("command, pasted", EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_pasted_answer_is_what_perfx_prints(command, pasted, monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("COLUMNS", "100")
    result = CliRunner().invoke(cli, shlex.split(command)[1:], terminal_width=100)
    assert result.exit_code == 0, result.output
    assert result.output.strip("\n") == pasted
