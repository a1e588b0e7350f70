"""The log fuzzer: damage a shipped log (damage.py), then run what a user runs on it —
``perfx logs``, ``explain``, ``stragglers``, ``whatif`` and ``report`` — in this process,
through the CLI's own entry point (``perfx.cli.main``: its exit codes, its one-line errors).

What must hold for every damaged log: each command exits 0, 1 or 2 (an answer, a user error
such as "not a log" or "no such task", a usage error), never 70 (an internal error) and never
with a traceback. For damage that keeps every event whole (duplicated, swapped or shuffled
lines) the answers are the undamaged log's, but for the note saying what was skipped.

Shared by the suite (tests/logs/test_fuzz.py, a few dozen cases) and ``./dev bench fuzz``
(hundreds).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

import zstandard

from perfx.cli import main
from perfx.user_errors import user_error_types
from tests.data_files import PUBLIC, fixture_log
from tests.logs import damage

SOURCES: dict[str, tuple[Path, int]] = {
    "spark-2.3": (PUBLIC / "qubole__sparklens" / "local-1532512550423", 0),
    "spark-1.5": (PUBLIC / "linkedin__dr-elephant" / "event_log_1", 0),
    "spark-yarn": (PUBLIC / "groupon__sparklint" / "event_log_1", 0),
    "spark-zstd": (
        PUBLIC
        / "kubeflow__mcp-apache-spark-history-server"
        / "application_1713000000000_0001_1.zstd",
        0,
    ),
    "mapreduce": (
        fixture_log(
            "hadoop-jhist/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist"
        ),
        2,
    ),
}
"""Small shipped logs of each kind: name -> (path, header lines that stay in place: a job
history's ``Avro-Json`` line and schema)."""

ALLOWED_EXITS = (0, 1, 2)
COMMANDS = ("logs", "stragglers", "whatif", "explain", "report")


@dataclass(frozen=True)
class Case:
    """One damaged log: its source, the damages done to its lines in order, then the codec
    it is stored with (None: as it came, decompressed) and whether the compressed bytes were
    cut, and the (often misleading) name it is stored under."""

    source: str
    damages: tuple[str, ...]
    seed: int
    codec: str | None = None
    cut_compressed: bool = False
    name: str = "events.log"

    @property
    def whole(self) -> bool:
        """Every event still there, whole: same answers as the undamaged log."""
        return not self.cut_compressed and all(d in damage.WHOLE for d in self.damages)

    def write(self, folder: Path) -> Path:
        path, header = SOURCES[self.source]
        data = plain_bytes(path)
        rng = random.Random(self.seed)
        for name in self.damages:
            data = damage.DAMAGES[name](data, rng, header)
        if self.codec is not None:
            data = damage.COMPRESSORS[self.codec](data)
            if self.cut_compressed:
                data = data[: rng.randrange(1, len(data))] if data else data
        folder.mkdir(parents=True, exist_ok=True)
        out = folder / self.name
        out.write_bytes(data)
        return out


@functools.cache
def plain_bytes(path: Path) -> bytes:
    """A shipped log's decompressed bytes (the damage is done to lines)."""
    data = path.read_bytes()
    if data.startswith(b"\x28\xb5\x2f\xfd"):  # Spark writes several frames
        with zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True) as f:
            return f.read()
    return data


@dataclass(frozen=True)
class Run:
    """What one command printed and its exit code."""

    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> dict | None:
        """The stable JSON an answer printed, without the note on skipped lines (None when
        the command failed)."""
        if self.exit_code != 0:
            return None
        data = json.loads(self.stdout)
        data.pop("log_note", None)
        return data


def run_cli(argv: list[str]) -> Run:
    """``perfx ARGV`` in this process, as the console script runs it."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else 1
    return Run(code, out.getvalue(), err.getvalue())


@functools.cache
def question(source: str) -> str:
    """What to ask: why a slow task of the undamaged log was slow, the slowest one whose
    question the undamaged log answers (the slowest task may be alone in its stage)."""
    from perfx.session import open as open_session

    session = open_session([SOURCES[source][0]])
    ids = session.raw.tasks.sort_values(["duration", "id"], ascending=False)["id"]
    for task in ids.head(10):
        asked = f"WHY TASK '{task}' SLOWER"
        try:
            session.explain(asked)
        except user_error_types():  # a question this log cannot answer: the next task
            continue
        return asked
    return f"WHY TASK '{ids.iloc[0]}' SLOWER"


def run_commands(path: Path, source: str, folder: Path, report: bool = True) -> dict[str, Run]:
    """Each command on the log at ``path`` (``report`` writes its page into ``folder``)."""
    log = str(path)
    argvs = {
        "logs": ["logs", log, "--format", "json"],
        "stragglers": ["stragglers", "--log", log, "--format", "json"],
        "whatif": ["whatif", "--log", log, "--format", "json"],
        "explain": ["explain", "--log", log, "--format", "json", question(source)],
        "report": [
            "report",
            "--log",
            log,
            "--questions",
            "2",
            "--format",
            "json",
            "--out",
            str(folder / "report.html"),
        ],
    }
    if not report:
        del argvs["report"]
    return {command: run_cli(argv) for command, argv in argvs.items()}


def problems(runs: dict[str, Run]) -> list[str]:
    """What went wrong: an exit code other than 0, 1 or 2, or a traceback."""
    found = []
    for command, run in runs.items():
        if run.exit_code not in ALLOWED_EXITS:
            found.append(f"{command}: exit {run.exit_code}: {run.stderr.strip()[-300:]}")
        if "Traceback" in run.stdout + run.stderr:
            found.append(f"{command}: traceback: {run.stderr.strip()[-300:]}")
    return found


def comparable(command: str, run: Run) -> object:
    """What of a command's output a log with whole events must reproduce: the answer (for
    ``logs``, the counts; for ``report``, its questions and answers)."""
    data = run.json()
    if data is None:
        return (run.exit_code, run.stderr)
    if command == "logs":
        return {k: data[k] for k in ("apps", "jobs", "stages", "tasks", "spark_versions")}
    if command == "report":
        return data["items"]
    return data


@functools.cache
def undamaged(source: str, report: bool) -> dict[str, object]:
    """The answers of the undamaged log, once per source."""
    with tempfile.TemporaryDirectory() as folder:
        runs = run_commands(SOURCES[source][0], source, Path(folder), report)
    assert not problems(runs), problems(runs)
    return {command: comparable(command, run) for command, run in runs.items()}


def examine(case: Case, folder: Path, report: bool = True) -> tuple[list[str], dict[str, Run]]:
    """Everything wrong with perfx on ``case`` (empty: nothing), and what each command did."""
    path = case.write(folder / "log")
    runs = run_commands(path, case.source, folder, report)
    found = problems(runs)
    if case.whole and not found:
        before = undamaged(case.source, report)
        for command, run in runs.items():
            if comparable(command, run) != before[command]:
                found.append(f"{command}: answer differs from the undamaged log's")
    return found, runs


def check(case: Case, folder: Path, report: bool = True) -> list[str]:
    """Everything wrong with perfx on ``case`` (empty: nothing)."""
    return examine(case, folder, report)[0]
