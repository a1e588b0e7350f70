"""Documents the code cites exist in the repository, and the ones a contributor needs are
there: a docstring pointing at a file nobody can open is worse than none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CODE = [
    p
    for folder in ("perfx", "paper", "explain", "isolation", "grammar", "logs", "tests")
    if (REPO / folder).is_dir()
    for p in (REPO / folder).rglob("*.py")
]
CITED = re.compile(r"\b((?:docs/)?[A-Z][A-Za-z_-]*\.md|docs/[\w/-]+\.md)\b")


@pytest.mark.parametrize("name", ["README.md", "CHANGELOG.md", "CONTRIBUTING.md", "docs/design.md"])
def test_the_document_exists(name):
    assert (REPO / name).is_file()


def test_every_document_cited_in_code_exists():
    missing = sorted(
        f"{path.relative_to(REPO)} cites {name}"
        for path in CODE
        for name in CITED.findall(path.read_text(encoding="utf-8"))
        if not (REPO / name).is_file()
        and not list(path.parent.glob(name))
        and name not in {"SOURCES.md", "LICENSE.md"}
    )
    assert not missing, missing


def test_the_package_is_typed():
    assert (REPO / "perfx" / "py.typed").is_file()
