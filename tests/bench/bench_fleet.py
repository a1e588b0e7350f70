"""A fleet's history in a feature store: ingestion throughput with 1 and 2 local workers,
the store's size, and a ``WHY TASK ? SLOWER`` question against the store (latency, peak
RSS), against the in-memory reader in the same run.

The history: APPS applications of about TASKS_PER_APP tasks each (10^7 tasks in all), made
from the real events of ``local-1430917381534`` (Spark 1.3, 110 tasks over 6 stages): its
task events repeated under new task ids between its own header and footer, each copy of
the application under its own id, one in ten named alike (runs of ten applications), and
compressed with zstd as Spark 3 writes event logs. One worker ingests a tenth of the
history, two workers all of it. Every measurement runs in a fresh subprocess that reports
its wall time and peak RSS (VmHWM). The history and the store are written under /tmp and
deleted at the end.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zstandard

from tests.conftest import DATA

TEMPLATE = DATA / "spark-events" / "local-1430917381534"
TEMPLATE_APP = b"local-1430917381534"
APPS = 1000
TASKS_PER_APP = 10_000
ONE_WORKER_SHARE = 10
"""One worker ingests every tenth application (its throughput is per task and per file)."""
TASK_EVENTS = (b'{"Event":"SparkListenerTaskStart"', b'{"Event":"SparkListenerTaskEnd"')
TASK_ID = re.compile(rb'"Task ID":\d+')
MAX_RSS_GB = 2.0
MAX_SECONDS = 5.0

PEAK_RSS = """
def peak_rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
"""

LOAD = (
    PEAK_RSS
    + """
import sys, time
import perfx
t0 = time.perf_counter()
log = perfx.open([sys.argv[1]]).log
print(time.perf_counter() - t0, peak_rss(), len(log.tasks))
"""
)

INGEST = """
import sys, time
from perfx.logs.store.ingest import ingest
t0 = time.perf_counter()
report = ingest(sys.argv[3:], sys.argv[1], workers=int(sys.argv[2]))
assert not report.failed, report.failed[:3]
print(time.perf_counter() - t0, report.tasks, report.read)
"""

QUESTION = (
    PEAK_RSS
    + """
import sys, time
t0 = time.perf_counter()
import perfx
query, task = "WHY TASK ? SLOWER", sys.argv[2]
session = perfx.open([sys.argv[1]], questions=[(query, [task])])
log = session.log
loaded = time.perf_counter() - t0
answer = session.explain(query, bind=[task])
print(time.perf_counter() - t0, loaded, peak_rss(), len(log.tasks), "_".join(answer.to_dict()["query"].split()))
"""
)


def synthesise(folder: Path) -> tuple[int, int]:
    """Write the history; returns (tasks, uncompressed bytes)."""
    lines = TEMPLATE.read_bytes().splitlines(keepends=True)
    tasks = [line for line in lines if line.startswith(TASK_EVENTS)]
    first = lines.index(tasks[0])
    head = b"".join(line for line in lines[:first] if not line.startswith(TASK_EVENTS))
    tail = b"".join(line for line in lines[first:] if not line.startswith(TASK_EVENTS))
    pieces = [TASK_ID.split(line, maxsplit=1) for line in tasks]
    ids = [int(TASK_ID.search(line).group()[len(b'"Task ID":') :]) for line in tasks]
    stride = max(ids) + 1
    repeats = -(-TASKS_PER_APP // len(set(ids)))
    body = b"".join(
        before + b'"Task ID":%d' % (task_id + r * stride) + after
        for r in range(repeats)
        for (before, after), task_id in zip(pieces, ids)
    )
    compressor = zstandard.ZstdCompressor(level=1)
    raw = 0
    for app in range(APPS):
        name = b"app-fleet-%04d" % app
        runs = b"nightly-etl-%d" % (app % (APPS // 10))
        header = head.replace(TEMPLATE_APP, name).replace(
            b'"App Name":"Spark shell"', b'"App Name":"' + runs + b'"'
        )
        data = header + body + tail.replace(TEMPLATE_APP, name)
        raw += len(data)
        (folder / name.decode()).write_bytes(compressor.compress(data))
    return APPS * repeats * len(set(ids)), raw


def _run(script: str, *args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> None:
    disk = shutil.disk_usage("/tmp")
    print(f"/tmp: {disk.free / 1e9:.0f} GB free", flush=True)
    root = Path(tempfile.mkdtemp(prefix="perfx-bench-fleet-"))
    try:
        history = root / "history"
        history.mkdir()
        started = time.perf_counter()
        tasks, raw = synthesise(history)
        logs = sorted(history.iterdir())
        compressed = _size(history)
        print(
            f"history: {APPS} apps, {tasks:,} tasks, {raw / 1e9:.1f} GB of events "
            f"({compressed / 1e9:.2f} GB zstd), written in {time.perf_counter() - started:.0f} s",
            flush=True,
        )
        one_app_s, one_app_rss, one_app_tasks = map(float, _run(LOAD, logs[APPS // 2]))
        idle_rss = float(_run(PEAK_RSS + "import perfx.questions, pandas; print(peak_rss())")[0])

        tenth = logs[::ONE_WORKER_SHARE]
        one_s, one_tasks, _ = map(float, _run(INGEST, root / "store-1", 1, *tenth))
        two_s, two_tasks, two_read = map(float, _run(INGEST, root / "store", 2, history))
        assert int(two_read) == APPS, two_read
        store_size = _size(root / "store")
        again_s, _, again_read = map(float, _run(INGEST, root / "store", 2, history))

        # the slowest task of the middle app's second stage (its copy in the store)
        app = logs[APPS // 2].name
        probe = _run(
            "import sys\nfrom perfx.logs.loader import load_log\n"
            "t = load_log([sys.argv[1]]).tasks\nt = t[t['stage_id'] == sorted(t['stage_id'].unique())[1]]\n"
            "print(t.loc[t['duration'].idxmax(), 'id'])",
            logs[APPS // 2],
        )[0]
        assert probe.startswith(app)
        total_s, load_s, rss, read_tasks, pair = _run(QUESTION, root / "store", probe)
        total_s, load_s, rss, read_tasks = (
            float(total_s),
            float(load_s),
            float(rss),
            int(read_tasks),
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)

    per_task = (one_app_rss - idle_rss) / one_app_tasks
    in_memory_gb = (idle_rss + per_task * tasks) / 1e9
    rows = [
        (
            "ingest, 1 worker (1/10 of the apps)",
            f"{one_tasks / one_s:,.0f} tasks/s",
            f"{raw / APPS * len(tenth) / 1e6 / one_s:.0f} MB/s of events",
            f"{one_s:.0f} s",
        ),
        (
            "ingest, 2 workers (all apps)",
            f"{two_tasks / two_s:,.0f} tasks/s",
            f"{raw / 1e6 / two_s:.0f} MB/s of events",
            f"{two_s:.0f} s",
        ),
        ("re-ingest, nothing changed", f"{int(again_read)} logs read", "", f"{again_s:.1f} s"),
        (
            "store size",
            f"{store_size / 1e9:.2f} GB",
            f"{store_size / tasks:.0f} B/task",
            f"{store_size / compressed:.2f}x the zstd logs",
        ),
        (
            "in-memory load of one app (baseline)",
            f"{one_app_tasks:,.0f} tasks",
            f"{one_app_rss / 1e6:.0f} MB peak",
            f"{one_app_s:.2f} s",
        ),
        (
            "in-memory load of the history (estimate)",
            f"{tasks:,} tasks",
            f"{in_memory_gb:.1f} GB",
            f"{per_task / 1e3:.2f} KB/task",
        ),
        (
            "WHY TASK ? SLOWER against the store",
            f"{read_tasks:,} tasks read",
            f"{rss / 1e6:.0f} MB peak",
            f"{load_s:.2f} s read, {total_s:.2f} s in all",
        ),
    ]
    print(
        f"fleet bench: {APPS} apps, {tasks:,} tasks; 2 cores shared; every figure from a fresh subprocess"
    )
    for row in rows:
        print(" | ".join(f"{cell:<40}" if i == 0 else f"{cell:>24}" for i, cell in enumerate(row)))
    print(f"pair: {pair.replace('_', ' ')}")
    print(
        f"ratios: 2 workers / 1 worker throughput {two_tasks / two_s / (one_tasks / one_s):.2f}x; "
        f"question time / in-memory load of one app {total_s / one_app_s:.1f}x; "
        f"question peak RSS / in-memory history estimate {rss / 1e9 / in_memory_gb:.3f}"
    )
    ok = rss / 1e9 < MAX_RSS_GB and total_s < MAX_SECONDS
    print(
        f"targets: peak RSS < {MAX_RSS_GB} GB and question < {MAX_SECONDS} s: {'met' if ok else 'MISSED'}"
    )
    print(
        json.dumps(
            {
                "tasks": tasks,
                "apps": APPS,
                "ingest_1_tasks_s": one_tasks / one_s,
                "ingest_2_tasks_s": two_tasks / two_s,
                "store_bytes": store_size,
                "question_s": total_s,
                "question_rss": rss,
                "reingest_read": again_read,
            }
        )
    )


if __name__ == "__main__":
    main()
