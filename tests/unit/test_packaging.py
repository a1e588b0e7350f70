"""The package layout of docs/design.md: top-level folders mapped into one ``perfx`` namespace."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[2]


def _setuptools_config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_subpackage_is_listed():
    config = _setuptools_config()
    listed = set(config["packages"])
    found = set()
    for package, folder in config["package-dir"].items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            relative = init.parent.relative_to(root)
            found.add(".".join([package, *relative.parts]))
    assert found - listed == set(), "sub-packages missing from pyproject's packages list"
    assert listed - found == set(), "listed packages with no __init__.py"


def test_namespace_maps_to_top_level_folders():
    import importlib

    for name, folder in [
        ("grammar", "grammar"),
        ("logs", "logs"),
        ("explain", "explain"),
        ("isolation", "isolation"),
        ("paper", "paper"),
    ]:
        module = importlib.import_module(f"perfx.{name}")
        assert Path(module.__file__).parent == REPO / folder


def test_no_public_name_is_spelled_like_a_subpackage():
    """``perfx.explain`` once was a function or a package depending on import order; the
    public API now names no subpackage, and every name loads whatever was imported first."""
    import inspect
    import pkgutil

    import perfx
    import perfx.explain.engine  # binds perfx.explain to the subpackage

    subpackages = {m.name for m in pkgutil.iter_modules(perfx.__path__)} | {
        "explain",
        "grammar",
        "isolation",
        "logs",
    }
    assert set(perfx.__all__) == set(perfx._API)
    assert not subpackages & set(perfx.__all__)
    for name in perfx.__all__:
        assert getattr(perfx, name) is not None
    assert list(inspect.signature(perfx.open).parameters)[:1] == ["paths"]
    assert "run" in inspect.signature(perfx.Session.explain).parameters


def test_lower_layers_never_import_the_front():
    """Imports flow one way: nothing below imports perfx's front (perfx/*.py, perfx.commands)."""
    front = sorted({p.stem for p in (REPO / "perfx").glob("*.py")} - {"__init__"} | {"commands"})
    pattern = re.compile(
        rf"\bperfx\.({'|'.join(front)})\b|^\s*from perfx import|^\s*import perfx\s*$", re.M
    )
    offenders = [
        f"{path.relative_to(REPO)}: {match.group(0).strip()}"
        for folder in ("grammar", "logs", "explain", "isolation", "paper")
        for path in (REPO / folder).rglob("*.py")
        for match in pattern.finditer(path.read_text())
    ]
    assert offenders == []


def test_import_perfx_grammar_stays_light():
    code = "import sys, perfx.grammar; print('pandas' in sys.modules, 'pyspark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_reading_a_local_event_log_imports_no_store_cache_or_http_library():
    """Arrow's datasets, Parquet, its S3/GCS/HDFS filesystems and urllib's HTTP stack are
    imported by the code that reads a store, a cache entry or a REST API, not by every
    reader of a local log: together 13-20 MB of the process's memory. Nor is the query
    parser's library (lark) imported by what prints an answer: 40 ms of every command that
    parses no query (issue 26's cached ``stragglers``)."""
    log = Path(__file__).parents[1] / "data/public/groupon__sparklint/event_log_1"
    code = (
        "import sys; from perfx.logs.loader import load_log; "
        f"assert len(load_log({str(log)!r}, cache=False).tasks); "
        "import perfx.terminal, perfx.results.stragglers, perfx.explain.wording; "
        "print(sorted(m for m in ('pyarrow.dataset', 'pyarrow.parquet', 'pyarrow.fs', "
        "'urllib.request', 'urllib.error', 'lark') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]"]


def test_data_files_the_code_opens_are_package_data():
    # A wheel carries only what package-data lists: the grammar, the fixture sample, and the
    # quiet log4j2 configuration of the Spark sessions perfx starts.
    from fnmatch import fnmatch

    from perfx.isolation.runner import QUIET_LOG4J

    config = _setuptools_config()
    folders = config["package-dir"]
    for path, package in (
        (QUIET_LOG4J, "perfx.isolation"),
        (REPO / "grammar" / "pxql.lark", "perfx.grammar"),
    ):
        assert path.is_file()
        relative = path.relative_to(REPO / folders[package]).as_posix()
        assert any(fnmatch(relative, pattern) for pattern in config["package-data"][package]), (
            relative
        )
