"""Getting started (issue 24): the README shows the program contract of ``perfx isolate`` with
a complete program, the very file its example runs (test_readme_examples runs the ``$ perfx
isolate`` line on the tests' Spark session), and how to install perfx from a wheel, which
CI checks in a fresh virtual environment (``./dev test``, which ``.ci/run`` runs, runs
``./dev wheel`` before the whole suite)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()


def test_the_readme_program_is_the_example_file():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    example = (REPO / "docs" / "examples" / "rating_counts.py").read_text()
    assert example in blocks
    assert (
        "$ perfx isolate docs/examples/rating_counts.py --input tests/data/chain/ratings" in README
    )


def test_the_example_program_follows_the_contract():
    from perfx.isolation.runner import load_program

    module = load_program(str(REPO / "docs" / "examples" / "rating_counts.py"))
    assert callable(module.pipeline)
    assert module.scores("127142:2628763_4,2206105_4,802003_3") == [(4, 1), (4, 1), (3, 1)]


def test_ci_installs_the_wheel_in_a_fresh_venv_before_the_tests():
    ci = (REPO / ".ci" / "run").read_text()
    assert "exec ./dev test" in ci
    dev = (REPO / "dev").read_text()
    test_step = dev.split("\n  test)", 1)[1].split(";;", 1)[0]
    assert "checks" in test_step.split("pytest")[0]  # before the suite: lint and the wheel
    checks = dev.split("checks() {", 1)[1].split("\n}\n", 1)[0]
    assert "wheel" in checks and "lint" in checks
    body = dev.split("wheel() {", 1)[1].split("\n}\n", 1)[0]
    assert "python3 -m venv" in body and "--system-site-packages" not in body
    assert "perfx --version" in body and 'perfx" explain' in body
    assert "pip install" in README and "perfx-*.whl" in README
