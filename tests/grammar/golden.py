"""Golden files of tests/fixtures/pxql, sqlglot-style: inputs and expected outputs side by side.

Files are sections, each headed ``==== name``. In ``errors.txt`` a section is the query, a
line ``---- error``, then ``str(PxqlError)`` exactly (the message line, the source line and
the caret line). Set ``PERFX_UPDATE_GOLDEN=1`` to rewrite the expected parts from the
current behaviour — then review the diff by eye before committing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pxql"
HEADER = "==== "
ERROR_MARK = "---- error"


def updating() -> bool:
    return os.environ.get("PERFX_UPDATE_GOLDEN") == "1"


def read_sections(path: Path) -> dict[str, str]:
    """``{name: body}`` in file order; a body has no trailing newline."""
    sections: dict[str, str] = {}
    text = path.read_text(encoding="utf-8")
    assert text.startswith(HEADER), f"{path} must start with a '{HEADER}name' line"
    for chunk in text[len(HEADER) :].split("\n" + HEADER):
        name, _, body = chunk.partition("\n")
        assert name not in sections, f"duplicate section {name!r} in {path}"
        sections[name.strip()] = body.rstrip("\n")
    return sections


def write_sections(path: Path, sections: dict[str, str]) -> None:
    path.write_text(
        "".join(f"{HEADER}{name}\n{body}\n" for name, body in sections.items()), encoding="utf-8"
    )


def read_errors(path: Path) -> dict[str, tuple[str, str]]:
    """``{name: (query, expected str(err))}``."""
    cases = {}
    for name, body in read_sections(path).items():
        query, mark, expected = body.partition("\n" + ERROR_MARK)
        assert mark, f"section {name!r} of {path} has no '{ERROR_MARK}' line"
        cases[name] = (query, expected.removeprefix("\n"))
    return cases


def write_errors(path: Path, cases: dict[str, tuple[str, str]]) -> None:
    write_sections(
        path,
        {name: f"{query}\n{ERROR_MARK}\n{expected}" for name, (query, expected) in cases.items()},
    )


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write_json(path: Path, data: dict) -> None:
    path.write_text(
        json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
