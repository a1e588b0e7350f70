"""Mutation testing: ``./dev mutate [PATH ...]`` (PATH a module or folder of perfx's layers,
such as isolation/shuffle.py; by default isolation/, explain/gap*.py and logs/progress*.py).

mutmut names a mutant after the module path of its file and activates it only where the code
runs under that name, so it cannot mutate perfx's top-level folders in place (the package
maps ``perfx.isolation`` to ``isolation/``). Each module is mutated in a temporary copy of
its own, laid out as the ``perfx`` namespace, with the tests and pyproject.toml
([tool.mutmut]: which tests run against the mutants, all fast and Spark-free) beside it, so
that mutmut's own summary line counts that module's mutants alone. A module's score is
killed / all its mutants (one no fast test reaches is not killed), and killed / all but the
equivalent ones (CONTRIBUTING.md, "Mutation testing", says why each cannot be killed).
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


# mutmut stops, exit 1, when none of the tests reaches a mutant of the module (or it has none)
UNREACHED = "we could not find any test case for any mutant"
MUTANT = re.compile(r"^\s*def x[_ǁ].*__mutmut_\d+\(", re.MULTILINE)


def mutmut(tree: Path, *args: str) -> str:
    """Runs mutmut in ``tree``; its output, or an exit with its last lines on failure (not
    when it stops because no test reaches a mutant)."""
    done = subprocess.run(
        [str(Path(sys.executable).with_name("mutmut")), *args],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    output = done.stdout.replace("\r", "\n")
    if done.returncode != 0 and UNREACHED not in output:
        tail = "\n".join((output + done.stderr).splitlines()[-15:])
        raise SystemExit(f"./dev mutate: mutmut {' '.join(args)} failed:\n{tail}")
    return output


# Why no test can kill a mutant (CONTRIBUTING.md, "Mutation testing", lists them). A
# surviving mutant is equivalent when its module, its line and its mutated line are one of
# EQUIVALENT's, or when it only drops a column's type in lineage.py (SCHEMA_CAST).
CASE = "DuckDB reads SQL keywords and names case-insensitively"
BY_NAME = (
    "DuckDB finds a Python DataFrame by its variable name (current) where no view has that "
    "name, and unregistering a name never registered does nothing"
)
ONE_KEY = "step has one row per out_id of the table and no other column in common with it"
TIE = "on equal values the update writes what is already there"
FULL_ONLY = "the inputs buffer is read only in full lineage"
FALSY = "PartitionRows tests output for truth, and None is false"
WHOLE_NS = "the rows are written as whole ns (int64), which truncates path + x.5 to path + x"
NO_RECORD = "a partition with no record has no share to use"
EMPTY = "full_outer calls left_outer and right_outer only when one side is empty, as None is"
EXCERPT = "excerpt() writes repr() of anything that is not a string, as add_key does"
SCHEMA_CAST = (
    "Table.from_arrays casts every column to SCHEMA's type, and the inferred type holds "
    "every value exactly (ints as int64, strings, float ms)"
)
EQUIVALENT = {
    "isolation/propagation.py": [
        ('con.register("current", current)', 'con.register("XXcurrentXX", current)', BY_NAME),
        ('con.register("current", current)', 'con.register("CURRENT", current)', CASE),
        ('con.unregister("current")', 'con.unregister("XXcurrentXX")', BY_NAME),
        ('con.unregister("current")', 'con.unregister("CURRENT")', CASE),
        ('con.register("final", final_table)', 'con.register("FINAL", final_table)', CASE),
        (
            '"CREATE TEMP TABLE known AS SELECT out_id, 0.0::DOUBLE AS total, "',
            '"create temp table known as select out_id, 0.0::double as total, "',
            CASE,
        ),
        (
            '"CREATE TEMP TABLE known AS SELECT out_id, 0.0::DOUBLE AS total, "',
            '"CREATE TEMP TABLE KNOWN AS SELECT OUT_ID, 0.0::DOUBLE AS TOTAL, "',
            CASE,
        ),
        (
            '"out_id AS source FROM current LIMIT 0"',
            '"out_id as source from current limit 0"',
            CASE,
        ),
        (
            '"out_id AS source FROM current LIMIT 0"',
            '"OUT_ID AS SOURCE FROM CURRENT LIMIT 0"',
            CASE,
        ),
        (
            '"INSERT INTO known SELECT out_id, total_latency_ms, most_impactful_source FROM step"',
            '"insert into known select out_id, total_latency_ms, most_impactful_source from step"',
            CASE,
        ),
        (
            'result.append(out.merge(step, on="out_id", how="left"))',
            'result.append(out.merge(step, on=None, how="left"))',
            ONE_KEY,
        ),
        (
            'result.append(out.merge(step, on="out_id", how="left"))',
            'result.append(out.merge(step, how="left"))',
            ONE_KEY,
        ),
        (
            'result.append(out.merge(step, on="out_id", how="left"))',
            'result.append(out.merge(step, on="out_id", ))',
            ONE_KEY,
        ),
    ],
    "isolation/shuffle.py": [
        (
            "if path > group[PATH] or (path == group[PATH] and source < group[SOURCE]):",
            "if path > group[PATH] or (path == group[PATH] and source <= group[SOURCE]):",
            TIE,
        ),
        ("elif rest > group[REST]:", "elif rest >= group[REST]:", TIE),
        ("if path > group[OTHER]:", "if path >= group[OTHER]:", TIE),
        (
            "if inputs.get(input_id, NO_LATENCY) < path:",
            "if inputs.get(input_id, NO_LATENCY) <= path:",
            TIE,
        ),
        (
            "if (payload[2], -payload[3]) > (first[2], -first[3]):",
            "if (payload[2], -payload[3]) >= (first[2], -first[3]):",
            TIE,
        ),
        ("{} if full else None,", "{} if (full) or True else None,", FULL_ONLY),
        ("[] if full else None,", "[] if (full) or True else None,", FULL_ONLY),
        (
            "rows = PartitionRows(full, output=False, keyed=True)",
            "rows = PartitionRows(full, output=None, keyed=True)",
            FALSY,
        ),
        (
            "rows = PartitionRows(full, output=False)",
            "rows = PartitionRows(full, output=None)",
            FALSY,
        ),
        ("share = group[COUNT] * spent // seen", "share = group[COUNT] * spent / seen", WHOLE_NS),
        (
            "share = spent // len(tagged) if tagged else 0",
            "share = spent // len(tagged) if tagged else 1",
            NO_RECORD,
        ),
        (
            "yield from left_outer(key, lefts, rights)",
            "yield from left_outer(key, lefts, None)",
            EMPTY,
        ),
        (
            "yield from right_outer(key, lefts, rights)",
            "yield from right_outer(key, None, rights)",
            EMPTY,
        ),
    ],
    "isolation/lineage.py": [
        (
            "self.keys.append(excerpt(key if isinstance(key, str) else repr(key), EXCERPT_WIDTH))",
            "self.keys.append(excerpt(key if (isinstance(key, str)) or True else repr(key), EXCERPT_WIDTH))",
            EXCERPT,
        ),
    ],
}
TYPE = re.compile(
    r"dtype=np\.int64|pa\.list_\(pa\.(int64|float64)\(\)\)|pa\.(int32|int64|string)\(\)|np\.int(32|64)"
)


def equivalent(module: Path, line: str, mutated: str) -> str | None:
    """Why the mutant that turned ``line`` into ``mutated`` in ``module`` cannot be killed,
    or None."""
    for before, after, why in EQUIVALENT.get(module.as_posix(), []):
        if (line, mutated) == (before, after):
            return why
    if module.as_posix() == "isolation/lineage.py":
        for match in TYPE.finditer(line):
            dropped = ("dtype=None", "") if match.group().startswith("dtype") else ("None", "")
            if mutated in (line[: match.start()] + d + line[match.end() :] for d in dropped):
                return SCHEMA_CAST
    return None


def change(tree: Path, name: str) -> tuple[str, str]:
    """The line a mutant changes and what it became (mutmut show's diff)."""
    diff = mutmut(tree, "show", name).splitlines()
    removed = [
        line[1:].strip() for line in diff if line.startswith("-") and not line.startswith("---")
    ]
    added = [
        line[1:].strip() for line in diff if line.startswith("+") and not line.startswith("+++")
    ]
    return " / ".join(removed), " / ".join(added)


def score(module: Path) -> tuple[int, int, int]:
    """Runs ``module``'s mutants in a copy of their own (mutmut's summary counts every mutant
    of its copy); prints mutmut's summary, the equivalent mutants and the survivors;
    (killed, all, equivalent)."""
    with tempfile.TemporaryDirectory(prefix="perfx-mutate-") as folder:
        tree = Path(folder)
        namespace_copy(tree, module)
        output = mutmut(tree, "run")
        if UNREACHED in output:
            mutated = (tree / "mutants" / "perfx" / module).read_text(encoding="utf-8")
            total = len(MUTANT.findall(mutated))
            print(f"{module}: {total} mutants; mutmut: Stopping early, because {UNREACHED}.")
            return 0, total, 0
        survivors = []
        for line in mutmut(tree, "results").splitlines():
            name, _, status = line.strip().partition(": ")
            if status == "survived":
                survivors.append((name, *change(tree, name)))
    lines = [line.strip() for line in output.splitlines() if SUMMARY.search(line)]
    if not lines:
        print(f"{module}: no mutants")
        return 0, 0, 0
    summary = lines[-1].lstrip("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ ")
    counts = [int(n) for n in SUMMARY.search(summary).groups()]
    killed, total = counts[0], sum(counts)
    print(f"{module}: {summary}")
    reasons = {name: equivalent(module, line, mutated) for name, line, mutated in survivors}
    same = sum(1 for why in reasons.values() if why)
    print(
        f"    killed {killed}/{total} = {100 * killed / total:.1f} %; "
        f"{same} equivalent; killed of the others "
        f"{killed}/{total - same} = {100 * killed / max(total - same, 1):.1f} %",
        flush=True,
    )
    for name, line, mutated in survivors:
        verdict = f"equivalent: {reasons[name]}" if reasons[name] else "SURVIVED"
        print(f"    {name}: {verdict}\n        {line}\n     -> {mutated}")
    return killed, total, same


def main(paths: list[str]) -> int:
    print("legend: 🎉 killed 🫥 no test reaches it ⏰ timeout 🤔 suspicious 🙁 survived 🔇 skipped")
    results = [score(module) for module in modules(paths)]
    killed = sum(r[0] for r in results)
    total = sum(r[1] for r in results)
    same = sum(r[2] for r in results)
    print(
        f"\nall: killed {killed}/{total} = {100 * killed / max(total, 1):.1f} %; "
        f"of the non-equivalent {killed}/{total - same} = "
        f"{100 * killed / max(total - same, 1):.1f} %"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
