"""The README documents every command: each has a row in its Commands table, and the row names
every option the command takes (``--format`` and ``--help``, common to all, are described
above the table)."""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import pytest

from perfx.cli import COMMANDS

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
TABLE = README.split("## Commands", 1)[1].split("\n## ", 1)[0]
COMMON = {"--format", "--help", "--app", "--header", "--no-cache"}
"""Described once above the table: every command takes --format and --help, and every
command that reads logs --app and --header for a REST API, and --no-cache."""


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_readme_documents_the_command_and_its_options(name):
    rows = [line for line in TABLE.splitlines() if re.search(rf"`perfx {name}\b", line)]
    assert rows, f"README's Commands table has no row for perfx {name}"
    command = pkgutil.resolve_name(COMMANDS[name])
    options = {o for p in command.params for o in p.opts if o.startswith("--")} - COMMON
    missing = sorted(o for o in options if not any(o in row for row in rows))
    assert not missing, f"perfx {name}: the README's row does not mention {', '.join(missing)}"


def test_the_common_options_are_described_above_the_table():
    above = TABLE.split("| command |", 1)[0]
    assert "--format text|json" in above and "--help" in above
    assert "--app" in above and "--header" in above and "--no-cache" in above
