"""Mutation testing: ``./dev mutate [PATH ...]`` (PATH a module or folder of perfx's layers,
such as isolation/shuffle.py; by default isolation/, explain/gap*.py and logs/progress*.py).

mutmut names a mutant after the module path of its file and activates it only where the code
runs under that name, so it cannot mutate perfx's top-level folders in place (the package
maps ``perfx.isolation`` to ``isolation/``). Each module is mutated in a temporary copy of
its own, laid out as the ``perfx`` namespace, with the tests and pyproject.toml
([tool.mutmut]: which tests run against the mutants, all fast and Spark-free) beside it, so
that mutmut's own summary line counts that module's mutants alone. A module's score is killed / all its mutants:
a mutant no fast test reaches counts as a survivor, as do equivalent ones (docs/mutation.md).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("explain", "grammar", "isolation", "logs", "paper")
DEFAULT = ("isolation", "explain/gap*.py", "logs/progress*.py")

# mutmut's progress line: "411/678  🎉 383 🫥 0  ⏰ 0  🤔 0  🙁 28  🔇 0  🧙 0", whose last state
# is its summary of a run: the mutants run (of all it made), then how many were killed, not
# reached by any test, timed out, suspicious, survived, skipped, caught by a type check.
SUMMARY = re.compile(
    r"\d+/\d+\s+🎉 (\d+) 🫥 (\d+)\s+⏰ (\d+)\s+🤔 (\d+)\s+🙁 (\d+)\s+🔇 (\d+)\s+🧙 (\d+)"
)


def modules(paths: list[str]) -> list[Path]:
    """The .py files (relative to the repository) that ``paths`` name, folders expanded."""
    found: list[Path] = []
    for path in paths or DEFAULT:
        matches = sorted(ROOT.glob(path))
        if not matches:
            raise SystemExit(f"./dev mutate: no such module or folder: {path}")
        for match in matches:
            files = sorted(match.rglob("*.py")) if match.is_dir() else [match]
            for file in files:
                relative = file.relative_to(ROOT)
                if relative.parts[0] not in LAYERS or file.suffix != ".py":
                    raise SystemExit(f"./dev mutate: {path} is not in {', '.join(LAYERS)}")
                if file.name != "__init__.py" and relative not in found:
                    found.append(relative)
    return found


def namespace_copy(tree: Path, module: Path) -> None:
    """``tree/perfx`` as the installed package lays it out, the tests beside it and
    pyproject.toml with mutmut told to mutate only ``module``."""
    caches = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "perfx", tree / "perfx", ignore=caches)
    for layer in LAYERS:
        shutil.copytree(ROOT / layer, tree / "perfx" / layer, ignore=caches)
    shutil.copytree(ROOT / "tests", tree / "tests", ignore=caches)
    config = (ROOT / "pyproject.toml").read_text()
    if "[tool.mutmut]\n" not in config:
        raise SystemExit("./dev mutate: pyproject.toml has no [tool.mutmut] table")
    only = f'only_mutate = ["perfx/{module.as_posix()}"]'
    config = config.replace("[tool.mutmut]\n", f"[tool.mutmut]\n{only}\n")
    (tree / "pyproject.toml").write_text(config)


def mutmut(tree: Path, *args: str) -> str:
    """Runs mutmut in ``tree``; its output, or an exit with its last lines on failure."""
    done = subprocess.run(
        [str(Path(sys.executable).with_name("mutmut")), *args],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    output = done.stdout.replace("\r", "\n")
    if done.returncode != 0:
        tail = "\n".join((output + done.stderr).splitlines()[-15:])
        raise SystemExit(f"./dev mutate: mutmut {' '.join(args)} failed:\n{tail}")
    return output


def score(module: Path) -> tuple[int, int]:
    """Runs ``module``'s mutants in a tree of their own (mutmut's summary counts every mutant
    of its tree); prints mutmut's summary and the survivors; (killed, all)."""
    with tempfile.TemporaryDirectory(prefix="perfx-mutate-") as folder:
        tree = Path(folder)
        namespace_copy(tree, module)
        output = mutmut(tree, "run")
        results = mutmut(tree, "results")
    lines = [line.strip() for line in output.splitlines() if SUMMARY.search(line)]
    if not lines:
        print(f"{module}: no mutants")
        return 0, 0
    summary = lines[-1].lstrip("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ ")
    counts = [int(n) for n in SUMMARY.search(summary).groups()]
    killed, total = counts[0], sum(counts)
    print(f"{module}: {summary}")
    print(f"    killed {killed}/{total} = {100 * killed / total:.1f} %", flush=True)
    for line in results.splitlines():
        name, _, status = line.strip().partition(": ")
        if status == "survived":
            print(f"    survived: {name}")
    return killed, total


def main(paths: list[str]) -> int:
    print("legend: 🎉 killed 🫥 no test reaches it ⏰ timeout 🤔 suspicious 🙁 survived 🔇 skipped")
    results = [score(module) for module in modules(paths)]
    killed = sum(k for k, _ in results)
    total = sum(t for _, t in results)
    print(f"\nall: killed {killed}/{total} = {100 * killed / max(total, 1):.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
