"""The repository stands alone: no test, benchmark or module reads a path outside it."""

from __future__ import annotations

import re
from pathlib import Path

from tests.data_files import DATA

REPO = Path(__file__).resolve().parents[2]
_SHARED = "sha" + "red"  # spelt in two, so that a search for such paths does not find this test
OUTSIDE = re.compile(
    rf"\.\./{_SHARED}|{_SHARED}/data|parent / \"{_SHARED}\"|PERFX_{_SHARED.upper()}_DATA"
)


def test_nothing_reaches_outside_the_repository():
    offenders = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for folder in ("tests", "perfx", "explain", "logs", "grammar", "isolation")
        for path in (REPO / folder).rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if OUTSIDE.search(line) and path != Path(__file__)
    ]
    assert offenders == []


def test_every_data_folder_says_where_it_comes_from():
    for folder in sorted(p for p in DATA.iterdir() if p.is_dir()):
        assert any((folder / name).is_file() for name in ("README.md", "SOURCES.md")), folder
