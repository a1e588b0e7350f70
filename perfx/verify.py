"""``perfx verify RUN --without K``: proof by remediation (PerfDebug, section 5).

The traced run predicts what removing the top-K culprit records saves: each record's own
cost was kept in the stage that read it, with each partition's traced time
(isolation/costs.py), so the partitions of the stages that spent those costs are replayed
with and without them, on as many task slots as the traced run's event log shows; the
stages' time with and without them is the prediction. (Records without a kept cost, of runs
stored before costs were kept, fall back to the lineage's slowest output with and without
its most impactful source: its *remediated* latency.)
This re-runs the program plain — untraced, as in production — on the traced run's input and
on a copy without those records, and sets the measured job times beside the prediction.
Each is the median of ``repeats`` runs in one session, after a warm-up run, so that neither
pays for starting the JVM or the workers.
"""

from __future__ import annotations

import re
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from perfx.isolation.errors import IsolationError

LOCATION = re.compile(r"^(?P<path>.+)@(?P<offset>\d+)$")
"""``/data/day-10.txt@158103``: a text record's file and the byte offset of its line."""


@dataclass(frozen=True)
class Verification:
    run: str
    removed: list[str]
    before_ms: float
    after_ms: float
    predicted_before_ms: float
    predicted_after_ms: float
    repeats: int
    predicted: str = "the lineage predicted the slowest output"
    """Whose prediction the measured times stand beside (a script's UDF calls: its stage)."""

    @property
    def speedup(self) -> float:
        return self.before_ms / self.after_ms if self.after_ms > 0 else float("inf")

    @property
    def measured_saving_ms(self) -> float:
        return self.before_ms - self.after_ms

    @property
    def predicted_saving_ms(self) -> float:
        return self.predicted_before_ms - self.predicted_after_ms

    def to_dict(self) -> dict:
        return {
            "run": self.run,
            "removed": self.removed,
            "repeats": self.repeats,
            "job_ms": {"with": round(self.before_ms, 1), "without": round(self.after_ms, 1)},
            "speedup": round(self.speedup, 3),
            "predicted_ms": {
                "what": self.predicted,
                "with": round(self.predicted_before_ms, 1),
                "without": round(self.predicted_after_ms, 1),
            },
            "measured_saving_ms": round(self.measured_saving_ms, 1),
            "predicted_saving_ms": round(self.predicted_saving_ms, 1),
        }

    def lines(self) -> list[str]:
        ratio = (
            self.predicted_saving_ms / self.measured_saving_ms
            if self.measured_saving_ms > 0
            else float("nan")
        )
        return [
            f"removed {len(self.removed)} culprit record(s): " + ", ".join(self.removed),
            f"job time with them {self.before_ms / 1000:,.2f} s, without {self.after_ms / 1000:,.2f} s: "
            f"{self.speedup:.2f}x faster (median of {self.repeats} plain runs each)",
            f"{self.predicted} at {self.predicted_before_ms:,.0f} ms, "
            f"{self.predicted_after_ms:,.0f} ms without: a saving of {self.predicted_saving_ms:,.0f} ms "
            f"against {self.measured_saving_ms:,.0f} ms measured (predicted/measured {ratio:.2f})",
        ]


def without_records(source: str, locations: list[str], out: Path) -> Path:
    """A copy of the text input ``source`` (a file or a folder of files) without the lines
    starting at the given ``path@offset`` locations."""
    drop: dict[Path, set[int]] = {}
    for location in locations:
        match = LOCATION.match(location)
        if not match:
            raise IsolationError(
                f"cannot remove {location!r}: only text records located as path@offset can be"
            )
        drop.setdefault(Path(match["path"]).resolve(), set()).add(int(match["offset"]))
    root = Path(source.removeprefix("file:"))
    if root.is_dir():
        shutil.copytree(root, out)
        files = {f.resolve(): out / f.relative_to(root) for f in root.rglob("*") if f.is_file()}
    elif root.is_file():
        out.mkdir(parents=True)
        files = {root.resolve(): out / root.name}
        shutil.copy2(root, out / root.name)
    else:
        raise IsolationError(
            f"the traced run's input {source} is not a file or folder here (globs are not verified)"
        )
    missing = [str(p) for p in drop if p not in files]
    if missing:
        raise IsolationError(
            f"culprit record(s) in {', '.join(missing)}, outside the input {source}"
        )
    for original, offsets in drop.items():
        kept, at = [], 0
        with original.open("rb") as handle:
            for line in handle:
                if at not in offsets:
                    kept.append(line)
                at += len(line)
        files[original].write_bytes(b"".join(kept))
    return out if root.is_dir() else out / root.name


def rerun_master(meta: dict, master: str | None) -> str:
    """Where a run's program re-runs: on ``master`` where given, else on the one its traced
    run ran on (a script's own, say)."""
    from perfx.isolation.runner import DEFAULT_MASTER

    return master or meta.get("master") or DEFAULT_MASTER


def verify(
    run: str,
    *,
    without: int = 1,
    store=None,
    master: str | None = None,
    repeats: int = 3,
    spark=None,
) -> Verification:
    """Measure the program's job time on the run's input with and without its top
    ``without`` culprit records, beside the traced run's prediction (module docstring)."""
    from perfx.chain import open_run
    from perfx.isolation.queries import top_culprits
    from perfx.isolation.runner import load_program, spark_session, traces_in

    stored = open_run(run, store)
    master = rerun_master(stored.meta, master)
    if stored.meta.get("script"):
        return _verify_script(stored, without, master, repeats, spark)
    culprits = top_culprits(stored, top=without)
    if culprits.empty:
        raise IsolationError(f"run {run} has no culprit records to remove")
    predicted = predict(stored, [int(s) for s in culprits.source])
    module = load_program(stored.meta["program"])
    work = Path(tempfile.mkdtemp(prefix="perfx-verify-"))
    # Spark's and the Python workers' output goes to a file, not our terminal; it is kept,
    # and the error names it, only when the re-run fails
    log = Path(tempfile.gettempdir()) / f"{work.name}.spark.log"
    try:
        remediated = without_records(stored.meta["input"], list(culprits.location), work / "input")
        session, created = (
            (spark, False)
            if spark is not None
            else spark_session(master, f"perfx verify {run}", log=str(log))
        )
        with traces_in(str(log) if created else None):
            try:
                sc = session.sparkContext
                _run_plain(module, sc, str(remediated))  # warm-up: workers, reader, code
                before = _median_ms(lambda: _run_plain(module, sc, stored.meta["input"]), repeats)
                after = _median_ms(lambda: _run_plain(module, sc, str(remediated)), repeats)
            finally:
                if created:
                    session.stop()
        log.unlink(missing_ok=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Verification(
        run, list(culprits.location), before, after, *predicted[:2], repeats, predicted[2]
    )


def predict(stored, sources: list[int]) -> tuple[float, float, str]:
    """(before ms, after ms, what was predicted) for removing the source records ``sources``
    of the stored run: the traced partitions of the Spark stages that spent the records'
    costs, run on the run's task slots with and without those costs (module docstring)."""
    from perfx.chain import traced_tasks
    from perfx.isolation.queries import outputs, partition_times, removed_costs

    removed = removed_costs(stored, sources)
    if removed.empty:
        slowest = outputs(stored, limit=1).iloc[0]
        return (
            float(slowest.latency_ms),
            float(slowest.remediated_ms),
            "the lineage predicted the slowest output",
        )
    try:
        slots = concurrent_slots(traced_tasks(stored))
    except IsolationError:  # no event log kept: as if one task ran at a time
        slots = 1
    times = partition_times(stored)
    taken = removed.groupby(["stage", "partition"])["cost_ms"].sum()
    before = after = 0.0
    stages = sorted(int(s) for s in set(removed.spark_stage))
    for stage in stages:
        mine = times[times.spark_stage == stage].set_index(["stage", "partition"])["traced_ms"]
        lighter = (mine - taken.reindex(mine.index, fill_value=0.0)).clip(lower=0.0)
        before += makespan(mine.tolist(), slots)
        after += makespan(lighter.tolist(), slots)
    names = ", ".join(map(str, stages))
    return (
        before,
        after,
        f"the traced run's tasks predicted Spark stage{'s' if len(stages) > 1 else ''} {names}",
    )


def concurrent_slots(tasks) -> int:
    """How many tasks the run ran at once, at most: its task slots."""
    events = sorted(
        [(float(t), 1) for t in tasks["launch_time"]]
        + [(float(t), -1) for t in tasks["finish_time"]],
        key=lambda e: (e[0], e[1]),
    )
    running = most = 0
    for _, change in events:
        running += change
        most = max(most, running)
    return max(most, 1)


def makespan(durations: list[float], slots: int) -> float:
    """The time ``slots`` slots take to run tasks of these durations, each started in order
    on the first free slot (as Spark launches a stage's tasks by partition)."""
    import heapq

    free = [0.0] * slots
    end = 0.0
    for duration in durations:
        start = heapq.heappop(free)
        end = max(end, start + duration)
        heapq.heappush(free, start + duration)
    return end


def _verify_script(stored, without: int, master: str, repeats: int, spark) -> Verification:
    """A script's run: its rows whose UDF calls cost the most in the slowest task removed
    where the script read them (the argument naming that input points at a copy without
    them), the script re-run plain, whole, with and without; the prediction is the stage's
    slowest task's UDF time with and without those rows' calls (``udf.stage_prediction``)."""
    import contextlib
    import os

    from perfx.isolation.runner import spark_session
    from perfx.isolation.script import run_plain
    from perfx.isolation.udf import (
        noted_words,
        stage_prediction,
        stored_calls,
        udf_culprits,
        under_noted,
    )

    meta = stored.meta
    calls = stored_calls(stored.store.local_dir(stored.run))
    if calls is None:
        raise IsolationError(
            f"run {stored.run}'s script called no Python UDF: perfx verify removes the rows "
            "whose UDF calls cost the most"
        )
    ranked = udf_culprits(calls, top=without)
    locations = [loc for loc in ranked.location if isinstance(loc, str)]
    cheap = int((ranked.location.isna() & under_noted(ranked.ms)).sum())
    if cheap:  # not located: a row this cheap is no culprit (udf.NOTED_NS)
        fewer = (
            f" (--without {len(ranked) - cheap} removes those that do)"
            if cheap < len(ranked)
            else ""
        )
        raise IsolationError(
            f"run {stored.run}: {cheap} of its top {without} rows cost under "
            f"{noted_words()} in their UDF calls: they do not stand out, and are not "
            f"located to be removed{fewer}"
        )
    if len(locations) < len(ranked):
        raise IsolationError(
            f"run {stored.run}: {len(ranked) - len(locations)} of the top {without} rows were "
            "not located in a text input the script read: they cannot be removed"
        )
    work = Path(tempfile.mkdtemp(prefix="perfx-verify-"))
    cwd = meta.get("cwd") or os.getcwd()
    try:
        args = list(meta.get("args", []))
        remediated = list(args)
        for number, source in enumerate(meta.get("inputs", [])):
            mine = [loc for loc in locations if _inside(loc, source, cwd)]
            if not mine:
                continue
            if source not in args:
                raise IsolationError(
                    f"run {stored.run}: the script read {source}, which is not one of its "
                    "arguments: perfx verify cannot point it at a copy"
                )
            copy = without_records(
                str(Path(cwd, source)), mine, work / f"input-{number}" / Path(source).name
            )
            remediated = [str(copy) if a == source else a for a in remediated]
        if remediated == args:
            raise IsolationError(f"run {stored.run}: its culprit rows are in none of its inputs")
        session, created = (
            (spark, False)
            if spark is not None
            else spark_session(master, f"perfx verify {stored.run}")
        )
        script = meta["program"]

        def run(arguments):
            with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
                run_plain(script, arguments, session)

        saved = os.getcwd()
        os.chdir(cwd)
        try:
            run(remediated)  # warm-up: workers, reader, code
            before, after = _alternated_ms(lambda: run(args), lambda: run(remediated), repeats)
        finally:
            os.chdir(saved)
            if created:
                session.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    predicted = _script_prediction(stored, ranked)
    if predicted is None:  # no event log of the traced run: its slowest task alone
        predicted = (
            *stage_prediction(calls, ranked),
            "the UDF calls predicted the stage's slowest task",
        )
    return Verification(stored.run, locations, before, after, *predicted[:2], repeats, predicted[2])


def _script_prediction(stored, ranked) -> tuple[float, float, str] | None:
    """(before ms, after ms, what) for removing the ``ranked`` rows (``udf_culprits``, all of
    one task): the traced run's tasks of their Spark stage, from its event log, run on its
    task slots with and without the rows' UDF time (as ``predict`` does for a program's
    records); None without the traced run's event log."""
    from perfx.chain import task_partitions
    from perfx.logs.loader import load_log

    where = stored.meta.get("event_log")
    if not where or not Path(where).exists():
        return None
    tasks = load_log([where]).tasks
    tasks = tasks[tasks["app_id"].astype(str) == str(stored.meta.get("app_id"))]
    if "status" in tasks.columns:
        tasks = tasks[tasks["status"] == "SUCCESS"]
    stage, partition = int(ranked.spark_stage.iloc[0]), int(ranked.partition.iloc[0])
    mine = tasks[tasks["stage_id"].astype(int) == stage]
    if mine.empty:
        return None
    durations = (
        mine.assign(partition=task_partitions(mine))
        .groupby("partition")["duration"]
        .max()
        .sort_index()
    )
    lighter = durations.copy()
    if partition in lighter.index:
        lighter[partition] = max(lighter[partition] - float(ranked["ms"].sum()), 0.0)
    slots = concurrent_slots(tasks)
    return (
        makespan(durations.tolist(), slots),
        makespan(lighter.tolist(), slots),
        f"the traced run's tasks predicted Spark stage {stage}",
    )


def _inside(location: str, source: str, cwd: str) -> bool:
    """Whether the ``path@offset`` location is a line of the input ``source``."""
    from perfx.isolation.udf import input_files

    path = Path(location.rsplit("@", 1)[0]).resolve()
    return path in {f.resolve() for f in input_files(str(Path(cwd, source)))}


def _alternated_ms(first, second, repeats: int) -> tuple[float, float]:
    """The median times (ms) of ``first`` and ``second`` run by turns: a machine whose load
    drifts during the runs then weighs on both alike, where all of one then all of the other
    put the drift into their difference (a script's rows cost a few hundred ms against runs
    of about a second)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for action, spent in ((first, times[0]), (second, times[1])):
            started = time.perf_counter()
            action()
            spent.append((time.perf_counter() - started) * 1000)
    return statistics.median(times[0]), statistics.median(times[1])


def _median_ms(action, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _run_plain(module, sc, input_path: str):
    """The program's pipeline on plain Spark: its dataset collected, or the value it returned
    (a program may end with an action)."""
    result = module.pipeline(sc, input_path)
    return result.collect() if hasattr(result, "collect") else result
