"""Event-log load throughput and peak memory: perfx's reader against a plain
``json.loads``-per-line loop, on synthetic uncompressed logs of two sizes.

The logs repeat the real task events of ``app-20200706201101-0003`` (Spark 3.1: TaskStart
and TaskEnd with accumulables, executor metrics and push-shuffle metrics) under new task ids,
between that app's own header and footer events; one log also interleaves the app's other
events (SQL, executor metrics, block managers), to show that memory follows the tasks, not the
file. Each measurement runs in a fresh
single-threaded subprocess that reports its wall time (after imports: pandas' import is a
fixed cost, not throughput) and peak RSS, so the two readers are measured alike on the same
(noisy, shared) machine in the same run: REPEATS times each, interleaved, best time kept.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from perfx.logs.eventlog.build import HANDLERS
from tests.conftest import DATA

TEMPLATE = DATA / "spark-events" / "app-20200706201101-0003"
CASES = ((200, 0), (200, 200), (400, 0))
"""(MB of task events, MB of other events) per synthetic log: the second has the first's
tasks plus as many bytes of events perfx does not read; the third twice the tasks."""
REPEATS = 3
"""Runs of each reader per log, interleaved; the fastest of each counts (the machine is shared:
a slow run measures the neighbours, not the reader)."""
TASK_ID = re.compile(rb'"Task ID":\d+')
TASK_EVENTS = (b'{"Event":"SparkListenerTaskStart"', b'{"Event":"SparkListenerTaskEnd"')

PEAK_RSS = """
import resource
def peak_rss():
    # VmHWM, not ru_maxrss: a child's ru_maxrss starts at its parent's RSS at fork time
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
def child_peak_rss():
    # the largest peak RSS of this process's children (the reader of a large log's second
    # half: logs.eventlog.halves), the pages they share with it from the fork included
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
"""

PERFX = (
    PEAK_RSS
    + """
import sys, time
from perfx.logs.loader import load_log
t0 = time.perf_counter()
log = load_log(sys.argv[1], cache=False)
seconds = time.perf_counter() - t0
tables = sum(int(t.memory_usage(deep=True).sum()) for t in (log.tasks, log.stages, log.jobs, log.apps))
print(seconds, peak_rss(), len(log.tasks), tables, child_peak_rss())
"""
)

BASELINE = (
    PEAK_RSS
    + """
import json, sys, time
t0 = time.perf_counter()
tasks = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        event = json.loads(line)
        tasks += event["Event"] == "SparkListenerTaskEnd"
seconds = time.perf_counter() - t0
print(seconds, peak_rss(), tasks, 0)
"""
)

IDLE = (
    PEAK_RSS
    + """
from perfx.logs.loader import load_log
print(0, peak_rss(), 0, 0)
"""
)


def synthesise(
    path: Path, task_mb: int, other_mb: int, task_count: int | None = None, app_id: str = ""
) -> int:
    """Write a log holding about ``task_mb`` MB of task events and ``other_mb`` MB of other
    events (the template's SQL, executor-metric and block-manager events, which perfx skips),
    interleaved as in a real log; returns its size in bytes. With ``task_count``, the log holds
    that many tasks (rounded up to whole copies of the template's) instead of ``task_mb``;
    with ``app_id``, the application is named so instead of the template's."""
    data = TEMPLATE.read_bytes()
    if app_id:
        data = data.replace(
            b'"App ID":"%s"' % TEMPLATE.name.encode(), b'"App ID":"%s"' % app_id.encode()
        )
    lines = data.splitlines(keepends=True)
    tasks = [line for line in lines if line.startswith(TASK_EVENTS)]
    first = lines.index(tasks[0])
    head = [line for line in lines[:first] if not line.startswith(TASK_EVENTS)]
    tail = [line for line in lines[first:] if not line.startswith(TASK_EVENTS)]
    handled = tuple(b'{"Event":"%s"' % name.encode() for name in HANDLERS)
    others = [line for line in lines if not line.startswith(handled)]
    tasks_of_template = [line for line in tasks if line.startswith(TASK_EVENTS[1])]
    pieces = [TASK_ID.split(line, maxsplit=1) for line in tasks]
    ids = [int(TASK_ID.search(line).group()[len(b'"Task ID":') :]) for line in tasks]
    stride = max(ids) + 1
    written = task_bytes = other_bytes = other_index = 0
    with open(path, "wb", buffering=1 << 20) as out:
        for line in head:
            written += out.write(line)
        repetition = 0
        while (
            repetition * len(tasks_of_template) < task_count
            if task_count is not None
            else task_bytes < task_mb * 1_000_000
        ):
            # a task's start and end keep sharing an id: original id + repetition * stride
            for (before, after), task_id in zip(pieces, ids):
                task_bytes += out.write(
                    before + b'"Task ID":%d' % (task_id + repetition * stride) + after
                )
            while other_mb and other_bytes < task_bytes * other_mb / task_mb:
                other_bytes += out.write(others[other_index % len(others)])
                other_index += 1
            repetition += 1
        for line in tail:
            written += out.write(line)
    return written + task_bytes + other_bytes


def measure(script: str, path: Path, home: Path | None = None) -> tuple[float, int, int, int, int]:
    """(seconds, peak RSS, tasks, table bytes, its children's largest peak RSS) of ``script``
    on the log at ``path``, in a fresh process (with ``home`` as its PERFX_HOME)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if home is not None:
        env["PERFX_HOME"] = str(home)
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    seconds, rss, tasks, tables, *child = done.stdout.split()
    return float(seconds), int(rss), int(tasks), int(tables), int(child[0]) if child else 0


def main() -> None:
    idle_rss = measure(IDLE, TEMPLATE)[1]
    rows = []
    with tempfile.TemporaryDirectory(prefix="perfx-bench-") as tmp:
        for task_mb, other_mb in CASES:
            path = Path(tmp) / f"synthetic-{task_mb}-{other_mb}"
            size = synthesise(path, task_mb, other_mb)
            perfx_runs, base_runs = [], []
            for _ in range(REPEATS):  # interleaved, so that both see the same load spikes
                perfx_runs.append(measure(PERFX, path))
                base_runs.append(measure(BASELINE, path))
            perfx_s, perfx_rss, tasks, tables, _ = min(perfx_runs)
            base_s, base_rss, base_tasks, _, _ = min(base_runs)
            assert tasks == base_tasks, (tasks, base_tasks)
            path.unlink()
            rows.append(
                {
                    "file_mb": size / 1e6,
                    "other_events_mb": other_mb,
                    "tasks": tasks,
                    "perfx_mb_s": size / 1e6 / perfx_s,
                    "baseline_mb_s": size / 1e6 / base_s,
                    "speedup": base_s / perfx_s,
                    "perfx_peak_rss_mb": perfx_rss / 1e6,
                    "baseline_peak_rss_mb": base_rss / 1e6,
                    "tables_mb": tables / 1e6,
                    "rss_per_task_kb": (perfx_rss - idle_rss) / tasks / 1e3,
                }
            )
    print(
        f"perfx load_log vs json.loads per line: uncompressed synthetic Spark 3.1 logs, best of {REPEATS};"
    )
    print(
        "perfx reads a log of 64 MB or more on two cores (a forked child reads its second half: "
        "logs.eventlog.halves), json.loads on one;"
    )
    print(f"same run; idle perfx process (pandas imported) {idle_rss / 1e6:.0f} MB RSS")
    header = (
        "file MB",
        "other ev. MB",
        "tasks",
        "perfx MB/s",
        "json MB/s",
        "speedup",
        "perfx peak MB",
        "json peak MB",
        "tables MB",
        "RSS/task KB",
    )
    print(" | ".join(f"{h:>13}" for h in header))
    for r in rows:
        values = (
            f"{r['file_mb']:.0f}",
            f"{r['other_events_mb']}",
            f"{r['tasks']}",
            f"{r['perfx_mb_s']:.0f}",
            f"{r['baseline_mb_s']:.0f}",
            f"{r['speedup']:.2f}x",
            f"{r['perfx_peak_rss_mb']:.0f}",
            f"{r['baseline_peak_rss_mb']:.0f}",
            f"{r['tables_mb']:.0f}",
            f"{r['rss_per_task_kb']:.2f}",
        )
        print(" | ".join(f"{v:>13}" for v in values))
    print(
        "Peak memory follows the tasks the log holds (the tables perfx returns), not the file's bytes:"
    )
    print("rows 1-2 hold the same tasks in files of 200 and 400 MB; row 3 holds twice the tasks.")
    print("RSS/task = (perfx peak RSS - idle process) / tasks.")
    print(json.dumps({"rows": rows, "targets": {"mb_s": 100, "speedup": 2.0}}))
    with tempfile.TemporaryDirectory(prefix="perfx-bench-") as tmp:
        folder_on_every_core(Path(tmp))
        in_progress_read_on(Path(tmp))
        for task_count in COMMAND_TASKS:
            commands(Path(tmp), task_count)


# -- a folder of logs read on every core (logs.eventlog.shares) --------------------------------

FOLDER_LOGS = 4
"""Applications of the generated folder: the 150,000 tasks of the commands' log in four logs."""

ONE_CORE = "import perfx.logs.background as b\nb.can_fork = lambda: False\n" + PERFX
"""``PERFX`` with nothing forked: every log read in order, in the one process."""


def folder_on_every_core(tmp: Path) -> None:
    """load_log of a folder of ``FOLDER_LOGS`` applications on one core and on every core."""
    folder = tmp / "folder"
    folder.mkdir()
    size = sum(
        synthesise(folder / f"app-{k}", 0, 0, TARGETED // FOLDER_LOGS, app_id=f"app-folder-{k}")
        for k in range(FOLDER_LOGS)
    )
    one_runs, every_runs = [], []
    for _ in range(REPEATS):
        one_runs.append(measure(ONE_CORE, folder))
        every_runs.append(measure(PERFX, folder))
    (one_s, one_rss, tasks, _, _), (every_s, every_rss, every_tasks, _, every_child) = (
        min(one_runs),
        min(every_runs),
    )
    assert tasks == every_tasks, (tasks, every_tasks)
    print(
        f"\na folder of {FOLDER_LOGS} logs, {tasks} tasks, {size / 1e6:.0f} MB, best of {REPEATS}: "
        f"load_log on one core {one_s:.2f} s ({one_rss / 1e6:.0f} MB), on {os.cpu_count()} cores "
        f"{every_s:.2f} s ({every_rss / 1e6:.0f} MB; its children {every_child / 1e6:.0f} MB): "
        f"{one_s / every_s:.2f}x"
    )
    print(
        json.dumps(
            {
                "folder": {
                    "logs": FOLDER_LOGS,
                    "tasks": tasks,
                    "one_core_s": one_s,
                    "every_core_s": every_s,
                }
            }
        )
    )
    shutil.rmtree(folder)


# -- an in-progress log read on from where its last read stopped (logs.eventlog.growing) ----

CACHED = PERFX.replace("cache=False", "cache=True")
"""``PERFX`` through the table cache."""
GROWTH = 0.01
"""The share of its tasks an in-progress log gains between two reads."""


def in_progress_read_on(tmp: Path) -> None:
    """load_log of an in-progress 150,000-task log through the cache: its first read, then
    after it grew by ``GROWTH`` of its tasks (read on from where the first stopped), against
    a whole read of the grown log."""
    whole = tmp / "whole"
    synthesise(whole, 0, 0, TARGETED)
    lines = whole.read_bytes().splitlines(keepends=True)
    cut = len(lines) - int(len(lines) * GROWTH)
    path = tmp / "app-growing.inprogress"
    firsts, ons, wholes = [], [], []
    for repeat in range(REPEATS):
        home = tmp / f"home-growing-{repeat}"
        path.write_bytes(b"".join(lines[:cut]))
        firsts.append(measure(CACHED, path, home))
        with open(path, "ab") as log:
            log.write(b"".join(lines[cut:]))
        ons.append(measure(CACHED, path, home))
        wholes.append(measure(PERFX, path))
    (first_s, first_rss, *_), (on_s, on_rss, tasks, *_), (whole_s, whole_rss, whole_tasks, *_) = (
        min(firsts),
        min(ons),
        min(wholes),
    )
    assert tasks == whole_tasks, (tasks, whole_tasks)
    print(
        f"\nan in-progress log of {tasks} tasks, best of {REPEATS}: first read through the cache "
        f"{first_s:.2f} s ({first_rss / 1e6:.0f} MB); after {GROWTH:.0%} more tasks, read on "
        f"{on_s:.2f} s ({on_rss / 1e6:.0f} MB) against a whole read {whole_s:.2f} s "
        f"({whole_rss / 1e6:.0f} MB): {whole_s / on_s:.2f}x"
    )
    print(json.dumps({"in_progress": {"first_s": first_s, "read_on_s": on_s, "whole_s": whole_s}}))
    for file in (whole, path):
        file.unlink()


if __name__ == "__main__":
    main()


# -- whole commands on a 150,000-task log (issue 26) ------------------------------------------

COMMAND_TASKS = (150_000, 1_000_000)
"""Tasks of the generated logs the commands are timed on: the targets are the 150,000-task
log's; the 10^6-task log (3.3 GB) shows how the same commands scale, without the report and
the History Server (which would need more than this machine's memory for it)."""
TARGETED = 150_000

FLOOR = (
    PEAK_RSS
    + """
import sys, time
from perfx.logs.eventlog.lines import TASK_END_PREFIXES
from perfx.logs.eventlog.fastend import _DECODE
t0 = time.perf_counter()
tasks = 0
with open(sys.argv[1], "rb", buffering=1 << 20) as f:
    for line in f:
        if line.startswith(TASK_END_PREFIXES):
            _DECODE(line)
            tasks += 1
seconds = time.perf_counter() - t0
print(seconds, peak_rss(), tasks, 0)
"""
)
"""perfx's floor: the file read line by line and each TaskEnd decoded by the typed msgspec
decoder (logs.eventlog.fastend), nothing built."""

COMMAND = (
    PEAK_RSS
    + """
import atexit, sys, time
t0 = time.perf_counter()
atexit.register(
    lambda: print("MEASURED", time.perf_counter() - t0, peak_rss(), child_peak_rss(), file=sys.stderr)
)
sys.argv = ["perfx", *sys.argv[1:]]
from perfx.cli import run
run()
"""
)
"""A whole perfx command in this process, reporting its peak RSS at exit: the console
script's own entry (``perfx.cli.run``), which also ends the process as the script does."""


def run_command(
    args: list[str], home: Path, codes: tuple[int, ...] = (0,)
) -> tuple[float, int, int]:
    """(wall seconds of the whole process, its peak RSS, its children's largest peak RSS) of
    ``perfx ARGS``, which must exit with one of ``codes``."""
    env = dict(os.environ, PERFX_HOME=str(home))
    env.pop("PERFX_CACHE", None)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", COMMAND, *args], capture_output=True, text=True, env=env
    )
    seconds = time.perf_counter() - started
    measured = [line for line in done.stderr.splitlines() if line.startswith("MEASURED")]
    if done.returncode not in codes or not measured:
        raise RuntimeError(f"perfx {' '.join(args)} failed: {done.stderr[-2000:]}")
    _, _, rss, child = measured[-1].split()
    return seconds, int(rss), int(child)


def slow_pair(path: Path) -> tuple[str, str]:
    """The slowest task and the fastest: the pair ``explain`` is asked about (the generated
    log's stages repeat one stage's tasks, all alike, so the two are of different stages)."""
    from perfx.logs.loader import load_log

    tasks = load_log(path, cache=False).tasks
    ids = tasks["id"].astype(str)
    return ids[tasks["duration"].idxmax()], ids[tasks["duration"].idxmin()]


def commands(tmp: Path, task_count: int) -> None:
    """perfx's load against its typed-decode floor, then each command first (no cache entry)
    and cached (the entry the first call kept), whole processes, with their peak memory."""
    path = tmp / f"app-{task_count}-tasks"
    size = synthesise(path, 0, 0, task_count)
    load_runs, floor_runs = [], []
    for _ in range(REPEATS):
        load_runs.append(measure(PERFX, path))
        floor_runs.append(measure(FLOOR, path))
    load_s, load_rss, tasks, _, load_child = min(load_runs)
    floor_s, _, floor_tasks, _, _ = min(floor_runs)
    assert tasks == floor_tasks, (tasks, floor_tasks)
    print(f"\n{tasks} tasks, {size / 1e6:.0f} MB uncompressed; load {os.getloadavg()[0]:.1f}")
    print(
        f"load_log {load_s:.2f} s ({load_rss / 1e6:.0f} MB; its reading child {load_child / 1e6:.0f} MB) "
        f"vs typed-decode floor {floor_s:.2f} s: "
        f"{load_s / floor_s:.2f}x (target <= 1.3x)"
    )
    out = tmp / "report.html"
    targeted = task_count == TARGETED
    asked = {
        "--help": ["--help"],  # the process's own start and imports: the floor of every command
        "explain": [
            "explain",
            "--log",
            str(path),
            "WHY TASK '{}' SLOWER THAN TASK '{}'".format(*slow_pair(path)),
        ],
        "stragglers": ["stragglers", "--log", str(path)],
        "report": ["report", "--log", str(path), "--out", str(out)],
    }
    if not targeted:
        del asked["report"]
    targets: dict[str, tuple] = {
        "--help": (None, None, None),
        "explain": (2.0, 0.7, 400) if targeted else (None, None, None),
        "stragglers": (2.0, 0.7, None) if targeted else (None, None, None),
        "report": (8.0, None, None),
    }
    print(
        f"whole processes, best of {REPEATS if targeted else 1} (each first call in an empty home)"
    )
    print(
        f"{'command':>11} | {'first s':>8} | {'cached s':>8} | {'first MB':>8} | {'child MB':>8} | "
        f"{'cached MB':>9} | targets"
    )
    rows = {}
    repeats = REPEATS if targeted else 1
    for name, args in asked.items():
        codes = (0, 1) if name == "report" else (0,)  # report: 1 if a question went unanswered
        firsts, cacheds = [], []
        for repeat in range(repeats):  # the fastest of each counts, as for the load above
            home = tmp / f"home-{name}-{repeat}"  # empty: the first call reads the log
            firsts.append(run_command(args, home, codes))
            cacheds.append(run_command(args, home, codes))
        (first, first_rss, first_child), (cached, cached_rss, _) = min(firsts), min(cacheds)
        rows[name] = {
            "first_s": first,
            "cached_s": cached,
            "first_mb": first_rss / 1e6,
            "first_child_mb": first_child / 1e6,
            "cached_mb": cached_rss / 1e6,
        }
        first_t, cached_t, mb_t = targets[name]
        said = ", ".join(
            f"{what} <= {target}{unit}"
            for what, target, unit in (
                ("first", first_t, " s"),
                ("cached", cached_t, " s"),
                ("peak", mb_t, " MB"),
            )
            if target
        )
        print(
            f"{name:>11} | {first:8.2f} | {cached:8.2f} | {first_rss / 1e6:8.0f} | "
            f"{first_child / 1e6:8.0f} | {cached_rss / 1e6:9.0f} | {said}"
        )
    print(json.dumps({"tasks": task_count, "load_s": load_s, "floor_s": floor_s, "commands": rows}))
    if targeted:
        history_server_replay(tmp, path, load_s, load_rss, load_child)
    path.unlink()


def _get(url: str) -> object:
    with urllib.request.urlopen(url, timeout=600) as answer:
        return json.load(answer)


def _java_peak_rss() -> int:
    """The peak RSS of the History Server this process started (its child JVM)."""
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
            cmdline = (status.parent / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(next(ln.split()[1] for ln in text.splitlines() if ln.startswith("PPid:")))
        if parent == os.getpid() and b"HistoryServer" in cmdline:
            peak_kb = next(ln.split()[1] for ln in text.splitlines() if ln.startswith("VmHWM:"))
            return int(peak_kb) * 1024
    return 0


def history_server_replay(
    tmp: Path, path: Path, load_s: float, load_rss: int, load_child: int
) -> None:
    """Spark's History Server (from the pyspark installation) on a folder holding the log:
    the time from its start to its first answer for the app's jobs and then for the task
    details of its largest stage, and its peak memory, against perfx's load of the same log."""
    from tests.rest.history_server import history_server

    folder = tmp / "history"
    folder.mkdir()
    started = time.perf_counter()
    with history_server([path], folder, 1, heap="4g") as url:
        listed = time.perf_counter() - started
        (app,) = _get(f"{url}/api/v1/applications")
        base = f"{url}/api/v1/applications/{app['id']}"
        jobs = _get(f"{base}/jobs")
        jobs_s = time.perf_counter() - started
        stages = _get(f"{base}/stages")
        largest = max(stages, key=lambda s: s["numTasks"])
        tasks = _get(
            f"{base}/stages/{largest['stageId']}/{largest['attemptId']}/taskList?length=1000000"
        )
        tasks_s = time.perf_counter() - started
        java_rss = _java_peak_rss()
    print(
        f"History Server ({len(jobs)} jobs, {len(tasks)} task details of stage "
        f"{largest['stageId']}): apps listed {listed:.1f} s, /jobs {jobs_s:.1f} s, task details "
        f"{tasks_s:.1f} s, peak {java_rss / 1e6:.0f} MB"
    )
    print(
        f"perfx load_log {load_s:.2f} s, {load_rss / 1e6:.0f} MB: /jobs {jobs_s / load_s:.1f}x, "
        f"task details {tasks_s / load_s:.1f}x slower; {java_rss / max(load_rss, 1):.1f}x the memory "
        f"({java_rss / max(load_rss + load_child, 1):.1f}x counting its reading child's whole RSS, "
        "the pages it shares with perfx too) "
        "(targets: >= 10x, >= 5x)"
    )
