"""Every command that reads logs runs on every public log of the corpus without an internal
error: a log perfx cannot use is a one-line user error (exit 1 or 2), never exit 70.

The commands run as a user's do, with the table cache on (its default): the first command on
a log reads it and keeps its tables, the others read them back (``tests/logs/test_cache.py``
checks that every answer is the same either way)."""

from __future__ import annotations

import json

import pytest

from perfx.cli import main
from tests.data_files import PUBLIC

pytestmark = pytest.mark.slow  # every command on every log of the public corpus

CORPUS = PUBLIC
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())

COMMANDS = {
    "logs": lambda path: ["logs", path],
    "features": lambda path: ["features", "--log", path],
    "stragglers": lambda path: ["stragglers", "--log", path],
    "whatif": lambda path: ["whatif", "--log", path, "--without", "gc,stragglers"],
    "skew": lambda path: ["skew", "--log", path],
    "stragglers-json": lambda path: ["stragglers", "--log", path, "--format", "json"],
}


@pytest.fixture(scope="module", autouse=True)
def cache_on(tmp_path_factory):
    """The cache on, in a home of this module's own: no other test's entries are read."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PERFX_HOME", str(tmp_path_factory.mktemp("commands-home")))
        patch.delenv("PERFX_CACHE")
        yield


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("entry", MANIFEST, ids=[e["path"] for e in MANIFEST])
def test_command_runs_on_the_log(entry, command, capsys):
    with pytest.raises(SystemExit) as done:
        main(COMMANDS[command](str(CORPUS / entry["path"])))
    out, err = capsys.readouterr()
    assert done.value.code in (0, 1, 2), err
    assert "internal error" not in err and "Traceback" not in out + err
    if done.value.code:
        assert len(err.strip().splitlines()) == 1, err
