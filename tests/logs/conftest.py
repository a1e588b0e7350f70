"""Fixtures of the log readers' tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A PERFX_HOME of the test's own: the cache entries it counts or reads on from are its
    own (the suite's home is shared: tests/conftest.py)."""
    monkeypatch.setenv("PERFX_HOME", str(tmp_path / "home"))
    return tmp_path / "home"
