"""The one way a test names a file of its data (tests/data): ``fixture_log("spark-events/...")``
for any of it, ``public_log("OWNER__REPO/...")`` for the logs of public repositories (their
folder's SOURCES.md says where each comes from and under which licence).

Tests read only these files, inside the repository, so that a clone runs its tests alone. A
name that is not there fails at once, saying which file is missing, rather than as a
reader's error about an empty log."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
"""tests/data: real Spark and Hadoop logs, with Spark's own expected answers beside some."""
PUBLIC = DATA / "public"
"""tests/data/public: event logs and job histories published in public repositories, one
folder per repository (``OWNER__REPO``)."""


def fixture_log(name: str) -> Path:
    """``tests/data/NAME`` (a file or a folder; ``/`` separates folders), which must exist."""
    path = DATA / name
    if not path.exists():
        raise FileNotFoundError(f"no test data {path.relative_to(REPO)}")
    return path


def public_log(name: str) -> Path:
    """``tests/data/public/NAME``: a public repository's log (``OWNER__REPO/file``) or its
    folder (``OWNER__REPO``)."""
    return fixture_log(f"public/{name}")
