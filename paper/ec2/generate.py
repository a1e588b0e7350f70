"""EC2-style fixture logs: a seeded re-enactment of the PerfXplain paper's experiment
(section 6.1, Table 2), written as a tabular log that ``read_tabular_log`` loads.

Pig scripts simple-filter and simple-groupby run on Hadoop clusters of 1, 2, 4, 8 and 16
two-core instances (two map and two reduce slots each) over the Excite log concatenated 30 or
60 times (1.3 / 2.6 GB), with block size 64 / 256 / 1024 MB, reduce-task factor 1.0 / 1.5 /
2.0 and io.sort.factor 10 / 50 / 100. Each cluster size is one cluster that runs its share of
the configurations one after another, as one would on EC2, while Ganglia samples every
instance every 5 s.

The generator writes what Hadoop and Ganglia would have logged — jobs, tasks with Hadoop
counters and tracker names, host metrics — and nothing else: no label says why a task or job
was slow. The paper's effects come out of the mechanics in ``work`` (work per
byte) and ``cluster`` (slots, heartbeats, contention on an instance).

    logs = generate(seed=1)            # DataFrames
    write_fixtures("DIR", seed=1)      # DIR/jobs.csv, DIR/tasks.csv, DIR/host_metrics.csv
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .cluster import Activity, TaskRun, run_job
from .ganglia import sample
from .work import MB, SCRIPTS, Hardware, map_tasks, reduce_tasks

GB = 1 << 30
CLUSTER_SIZES = (1, 2, 4, 8, 16)
"""The paper's cluster sizes (instances): one simulated cluster each."""
GRID = {
    "num_instances": CLUSTER_SIZES,
    "input_size": (round(1.3 * GB), round(2.6 * GB)),
    "block_size": (64 * MB, 256 * MB, 1024 * MB),
    "reduce_tasks_factor": (1.0, 1.5, 2.0),
    "io_sort_factor": (10, 50, 100),
    "pig_script": ("simple-filter", "simple-groupby"),
}
"""Table 2 of the paper: the parameters varied and their values."""

EPOCH = 1323158400.0
"""2011-12-06 08:00 UTC, when the paper's runs were made (its example start time is 1323158533)."""
JOB_COUNTERS = (
    "HDFS_BYTES_READ",
    "HDFS_BYTES_WRITTEN",
    "FILE_BYTES_WRITTEN",
    "MAP_INPUT_RECORDS",
    "SPILLED_RECORDS",
)


@dataclass
class Ec2Logs:
    """The raw tables, as they are written to disk."""

    jobs: pd.DataFrame
    tasks: pd.DataFrame
    host_metrics: pd.DataFrame

    def write(self, out: str | Path) -> list[Path]:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, frame in (
            ("jobs", self.jobs),
            ("tasks", self.tasks),
            ("host_metrics", self.host_metrics),
        ):
            path = out / f"{name}.csv"
            frame.to_csv(path, index=False, float_format="%.10g", lineterminator="\n")
            paths.append(path)
        return paths


def configurations(scale: float, repeats: int, rng: np.random.Generator) -> list[dict]:
    """The Table 2 grid, a ``scale`` fraction of it (at least one configuration, chosen at
    random), each run ``repeats`` times."""
    if not 0 < scale <= 1:
        raise ValueError("scale must be in (0, 1]")
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    grid = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    keep = max(1, round(scale * len(grid)))
    chosen = (
        sorted(rng.choice(len(grid), size=keep, replace=False))
        if keep < len(grid)
        else range(len(grid))
    )
    return [grid[i] for i in chosen for _ in range(repeats)]


def generate(
    seed: int, scale: float = 1.0, repeats: int = 1, hw: Hardware | None = None
) -> Ec2Logs:
    """Run every chosen configuration on its cluster (``hw``: the default ``Hardware()``);
    deterministic for a seed."""
    hw = hw or Hardware()
    rng = np.random.default_rng(seed)
    configs = configurations(scale, repeats, rng)
    jobs, tasks, metrics = [], [], []
    clock = EPOCH
    for cluster, size in enumerate(CLUSTER_SIZES):
        mine = [c for c in configs if c["num_instances"] == size]
        if not mine:
            continue
        order = rng.permutation(len(mine))
        session = _Cluster(cluster, size, clock, hw, rng)
        for seq, i in enumerate(order, start=1):
            job, job_tasks = session.run(seq, mine[i])
            jobs.append(job)
            tasks.extend(job_tasks)
        metrics.append(session.metrics())
        clock = session.clock + 900.0
    return Ec2Logs(pd.DataFrame(jobs), pd.DataFrame(tasks), pd.concat(metrics, ignore_index=True))


def write_fixtures(out: str | Path, seed: int, scale: float = 1.0, repeats: int = 1) -> list[Path]:
    """Generate and write ``jobs.csv``, ``tasks.csv`` and ``host_metrics.csv`` under ``out``."""
    return generate(seed, scale, repeats).write(out)


class _Cluster:
    """One EC2 cluster of ``size`` instances running jobs one after another."""

    def __init__(self, index: int, size: int, start: float, hw: Hardware, rng: np.random.Generator):
        self.hw, self.rng, self.size, self.start = hw, rng, size, start
        self.hosts = [
            f"ip-10-{rng.integers(0, 256)}-{rng.integers(0, 256)}-{rng.integers(2, 255)}.ec2.internal"
            for _ in range(size)
        ]
        self.trackers = [
            f"tracker_{h}:localhost/127.0.0.1:{rng.integers(40000, 60000)}" for h in self.hosts
        ]
        self.speed = rng.lognormal(0.0, 0.04, size)
        self.phase = rng.uniform(0, hw.heartbeat_s, size)
        self.boot = start - rng.uniform(120, 480, size)
        self.jobtracker = time.strftime("%Y%m%d%H%M", time.gmtime(start))
        self.activity = Activity()
        self.clock = start + 60.0

    def run(self, seq: int, config: dict) -> tuple[dict, list[dict]]:
        hw, rng, size = self.hw, self.rng, self.size
        script = SCRIPTS[config["pig_script"]]
        maps = map_tasks(
            script,
            config["input_size"],
            config["block_size"],
            config["io_sort_factor"],
            size,
            hw,
            rng,
        )
        reduces = (
            []
            if script.keep_fraction is not None
            else reduce_tasks(
                maps,
                int(config["reduce_tasks_factor"] * size + 0.5),
                config["io_sort_factor"],
                size,
                hw,
                rng,
            )
        )
        submit = self.clock
        launch = submit + rng.uniform(1.0, 3.0)
        runs = run_job(maps, reduces, self.speed, self.phase, launch, hw, self.activity)
        finish = max(r.finish for r in runs) + rng.uniform(1.5, 3.0)
        job_id = f"job_{self.jobtracker}_{seq:04d}"
        task_rows = [self._task_row(job_id, config, r) for r in runs]
        job = {
            "id": job_id,
            **config,
            "num_map_tasks": len(maps),
            "num_reduce_tasks": len(reduces),
            "data_local_map_tasks": sum(1 for r in runs if r.work.kind == "m" and r.local),
            "submit_time": _ms(submit),
            "launch_time": _ms(launch),
            "finish_time": _ms(finish),
            "duration": _ms(finish) - _ms(submit),
        }
        for counter in JOB_COUNTERS:
            job[counter] = round(sum(r.work.counters.get(counter, 0) for r in runs))
        self.clock = finish + rng.uniform(20.0, 60.0)
        return job, task_rows

    def _task_row(self, job_id: str, config: dict, run: TaskRun) -> dict:
        work = run.work
        row = {
            "id": f"task_{job_id[4:]}_{work.kind}_{work.index:06d}",
            "job_id": job_id,
            "task_type": "MAP" if work.kind == "m" else "REDUCE",
            "host": self.hosts[run.host],
            "tracker_name": self.trackers[run.host],
            "locality": ("DATA_LOCAL" if run.local else "RACK_LOCAL") if work.kind == "m" else "",
            "launch_time": _ms(run.launch),
            "finish_time": _ms(run.finish),
            "duration": _ms(run.finish) - _ms(run.launch),
            "input_size": round(work.input_bytes),
        }
        if work.kind == "r":
            shuffle_end, sort_end = run.phase_ends[0], run.phase_ends[1]
            row |= {
                "shuffle_finished": _ms(shuffle_end),
                "sort_finished": _ms(sort_end),
                "shuffle_time": _ms(shuffle_end) - _ms(run.launch),
                "sort_time": _ms(sort_end) - _ms(shuffle_end),
            }
        row |= {
            k: config[k]
            for k in (
                "pig_script",
                "num_instances",
                "block_size",
                "reduce_tasks_factor",
                "io_sort_factor",
            )
        }
        return row | {name: round(value) for name, value in work.counters.items()}

    def metrics(self) -> pd.DataFrame:
        return sample(
            self.activity, self.hosts, self.boot, self.start, self.clock + 30.0, self.hw, self.rng
        )


def _ms(seconds: float) -> int:
    return round(seconds * 1000)
