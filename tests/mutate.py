"""Mutation testing: ``./dev mutate [PATH ...]`` (PATH a module or folder of isolation/,
explain/ or logs/; by default isolation/, explain/gap*.py and logs/progress*.py).

mutmut names a mutant after the module path of its file and activates it only where the code
runs under that name, so it cannot mutate perfx's top-level folders in place (the package
maps ``perfx.isolation`` to ``isolation/``). The run works in a temporary copy laid out as
the ``perfx`` namespace, with the tests and pyproject.toml ([tool.mutmut]: which tests run
against the mutants, all fast and Spark-free) beside it, and runs mutmut once per module, so
each module gets the tool's own summary line. A module's score is killed / all its mutants:
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

# mutmut's progress line: "411/411  🎉 78 🫥 309  ⏰ 0  🤔 0  🙁 24  🔇 0  🧙 0"
SUMMARY = re.compile(r"(\d+)/(\d+)\s+🎉 (\d+) 🫥 (\d+)\s+⏰ (\d+)\s+🤔 (\d+)\s+🙁 (\d+)\s+🔇 (\d+)")


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


def namespace_copy(tree: Path, targets: list[Path]) -> None:
    """``tree/perfx`` as the installed package lays it out, the tests beside it and
    pyproject.toml with mutmut told to mutate only ``targets``."""
    caches = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "perfx", tree / "perfx", ignore=caches)
    for layer in LAYERS:
        shutil.copytree(ROOT / layer, tree / "perfx" / layer, ignore=caches)
    shutil.copytree(ROOT / "tests", tree / "tests", ignore=caches)
    config = (ROOT / "pyproject.toml").read_text()
    if "[tool.mutmut]\n" not in config:
        raise SystemExit("./dev mutate: pyproject.toml has no [tool.mutmut] table")
    mutated = ", ".join(f'"perfx/{module.as_posix()}"' for module in targets)
    config = config.replace("[tool.mutmut]\n", f"[tool.mutmut]\nonly_mutate = [{mutated}]\n")
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


def score(module: Path, tree: Path) -> tuple[int, int]:
    """Runs ``module``'s mutants; prints mutmut's summary and the survivors; (killed, all)."""
    name = "perfx." + ".".join(module.with_suffix("").parts)
    output = mutmut(tree, "run", f"{name}.*")
    lines = [line.strip() for line in output.splitlines() if SUMMARY.search(line)]
    if not lines:
        print(f"{module}: no mutants")
        return 0, 0
    summary = lines[-1].lstrip("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ ")
    total, killed = int(SUMMARY.search(summary).group(2)), int(SUMMARY.search(summary).group(3))
    print(f"{module}: {summary}")
    print(f"    killed {killed}/{total} = {100 * killed / total:.1f} %" if total else "")
    survivors = [
        line.split(":")[0].strip()
        for line in mutmut(tree, "results").splitlines()
        if line.strip().startswith(f"{name}.x") and line.rstrip().endswith("survived")
    ]
    for survivor in survivors:
        print(f"    survived: {survivor}")
    return killed, total


def main(paths: list[str]) -> int:
    targets = modules(paths)
    with tempfile.TemporaryDirectory(prefix="perfx-mutate-") as folder:
        tree = Path(folder)
        namespace_copy(tree, targets)
        print("legend: 🎉 killed 🫥 no test reaches it ⏰ timeout 🤔 suspicious 🙁 survived 🔇 skipped")
        results = {module: score(module, tree) for module in targets}
    killed = sum(k for k, _ in results.values())
    total = sum(t for _, t in results.values())
    print(f"\nall: killed {killed}/{total} = {100 * killed / max(total, 1):.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
