"""Host metrics (Ganglia-style time series) joined onto tasks, and percolated to jobs.

PerfXplain's most useful task features were not in the MapReduce log at all: they were the
load, CPU and network of the instance while the task ran, sampled by Ganglia every few
seconds. A task gets, for each metric, the time-weighted mean of the metric over its run on
its host; a job gets the mean over its tasks.

A sample describes the interval that *ends* at its timestamp, since the previous sample on
the same host — as Ganglia's RRD files store it, and as gmond computes its rates (CPU shares
from /proc/stat deltas, bytes and packets per second since the last collection). Reading it
the other way round (value holds from its timestamp onwards) shifts every metric one interval
late: a task that ran alone at the end of a job would be credited with the busy interval
before it, a task of the first wave with the idle interval before the job. The first sample
also covers the time before it, the last one the time after it. The mean over a task's run
``[launch, finish]`` is an exact integral of that step function, computed for all tasks of a
host at once from the host's cumulative integral and ``searchsorted`` — never a loop over
tasks.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .column_names import infer_unit
from .errors import LogError, NotALog, not_utf8
from .model import Log, SkippedLine
from .registry import spec

PREFIX = "host_"
"""Joined metric ``m`` becomes the task and job feature ``host_m``."""

SECONDS_BEFORE = 1e11
"""Epoch timestamps below this are seconds (Ganglia's unit), at or above it milliseconds."""
HOSTS_SHOWN = 3
"""Hosts named, of each side, when host metrics match none of the log's."""


def read_host_metrics(source: str | os.PathLike | pd.DataFrame) -> pd.DataFrame:
    """Host metrics given as a DataFrame, or read from a ``.parquet`` or CSV file."""
    if isinstance(source, pd.DataFrame):
        return source
    path = Path(source)
    if not path.is_file():
        raise NotALog(f"{path}: no such host metrics file")
    try:
        frame = (
            pd.read_parquet(path)
            if path.suffix == ".parquet"
            else pd.read_csv(path, encoding="utf-8-sig")
        )
    except UnicodeDecodeError as err:  # was an internal error (a probe of the CLI)
        raise NotALog(f"{path}: host metrics are not UTF-8 text ({not_utf8(err)})") from None
    except (ValueError, OSError) as err:  # pandas' parser errors are ValueErrors
        raise NotALog(f"{path}: unreadable host metrics ({err})") from None
    if not {"host", "timestamp"} <= set(frame.columns):
        raise NotALog(
            f"{path}: host metrics need 'host' and 'timestamp' columns, found {', '.join(map(str, frame.columns))}"
        )
    return frame


def join_host_metrics(log: Log, metrics: pd.DataFrame) -> Log:
    """A copy of ``log`` with every numeric metric of ``metrics`` joined onto its tasks as
    ``host_<metric>`` (time-weighted mean over the task's run on its host, each sample
    covering the interval up to its timestamp) and onto its jobs
    as the mean over their tasks. ``metrics`` has columns ``host``, ``timestamp`` (epoch s or
    ms, or datetimes) and one column per metric; tasks need ``host``, ``launch_time`` and
    ``finish_time`` (epoch ms). Tasks on hosts without samples get missing values; a sample
    without a usable timestamp is left out and listed in ``skipped`` (its 1-based row).
    Metrics of none of the log's hosts raise ``LogError``: they would add features that no
    task has a value of (the names differ: an IP against a host name, a domain or not)."""
    missing = {"host", "launch_time", "finish_time"} - set(log.tasks.columns)
    if missing:
        raise ValueError(f"joining host metrics needs task columns {', '.join(sorted(missing))}")
    if not {"host", "timestamp"} <= set(metrics.columns):
        raise ValueError("host metrics need 'host' and 'timestamp' columns")
    log_hosts, metric_hosts = _hosts(log.tasks["host"]), _hosts(metrics["host"])
    if not log_hosts & metric_hosts:
        raise LogError(
            f"host metrics match none of the log's hosts: the metrics have {_some(metric_hosts)}, "
            f"the log {_some(log_hosts)}"
        )
    names = [
        c
        for c in metrics.columns
        if c not in ("host", "timestamp") and pd.api.types.is_numeric_dtype(metrics[c])
    ]
    samples = metrics.assign(timestamp=_epoch_ms(metrics["timestamp"]))
    timed = samples["timestamp"].notna().to_numpy()
    untimed = np.flatnonzero(~timed)
    samples = samples[timed]
    skipped = list(log.skipped) + [
        SkippedLine("host metrics", int(row) + 1, "sample without a usable timestamp")
        for row in untimed
    ]

    tasks = log.tasks.copy()
    joined = task_means(tasks, samples, names)
    for name in names:
        tasks[PREFIX + name] = joined[name]

    registry = log.registry.copy()
    for name in names:
        registry.register(
            "task", _spec(name, "Time-weighted mean while the task ran on its host"), replace=True
        )
    jobs = _percolate(tasks, log.jobs, [PREFIX + n for n in names])
    if jobs is not log.jobs:
        for name in names:
            registry.register(
                "job",
                _spec(name, "Mean over the job's tasks of the task's host mean"),
                replace=True,
            )
    return Log(
        tasks=tasks,
        stages=log.stages,
        jobs=jobs,
        apps=log.apps,
        registry=registry,
        skipped=skipped,
        sources=list(log.sources),
        cut_off=list(log.cut_off),
    )


def task_means(tasks: pd.DataFrame, samples: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """For every task row, the time-weighted mean of each metric over [launch_time,
    finish_time] on its host (index aligned with ``tasks``). Vectorised per host."""
    out = pd.DataFrame(np.nan, index=tasks.index, columns=names, dtype=float)
    launch = pd.to_numeric(tasks["launch_time"], errors="coerce").to_numpy(float)
    finish = pd.to_numeric(tasks["finish_time"], errors="coerce").to_numpy(float)
    hosts = tasks["host"].astype(str).to_numpy()
    by_host = {h: g for h, g in samples.groupby(samples["host"].astype(str), sort=False)}
    for host, rows in _positions(hosts).items():
        group = by_host.get(host)
        if group is None:
            continue
        group = group.sort_values("timestamp", kind="stable")
        a, b = launch[rows], finish[rows]
        for column, name in enumerate(names):
            values = group[name].to_numpy(float)
            keep = ~np.isnan(values)
            if keep.any():
                starts = interval_starts(group["timestamp"].to_numpy(float)[keep])
                out.iloc[rows, column] = step_mean(starts, values[keep], a, b)
    return out


def interval_starts(times: np.ndarray) -> np.ndarray:
    """Where the interval each sample describes begins: the previous sample's timestamp
    (the first sample's interval is as long as the one after it). ``times`` sorted."""
    if len(times) < 2:
        return times
    return np.concatenate([[2 * times[0] - times[1]], times[:-1]])


def step_mean(
    times: np.ndarray, values: np.ndarray, start: np.ndarray, end: np.ndarray
) -> np.ndarray:
    """Mean of the step function (``values[i]`` from ``times[i]`` until ``times[i+1]``) over
    each interval ``[start, end]``; the value at ``start`` where the interval is empty.
    ``times`` must be sorted."""
    cumulative = np.concatenate([[0.0], np.cumsum(values[:-1] * np.diff(times))])

    def integral(x: np.ndarray) -> np.ndarray:
        i = np.clip(np.searchsorted(times, x, side="right") - 1, 0, len(times) - 1)
        return cumulative[i] + values[i] * (x - times[i])

    width = end - start
    at_start = values[np.clip(np.searchsorted(times, start, side="right") - 1, 0, len(times) - 1)]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (integral(end) - integral(start)) / width
    return np.where(width > 0, mean, at_start)


def _positions(hosts: np.ndarray) -> dict[str, np.ndarray]:
    codes, uniques = pd.factorize(hosts)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    return {uniques[k]: order[bounds[k] : bounds[k + 1]] for k in range(len(uniques))}


def _hosts(column: pd.Series) -> set[str]:
    return {h for h in column.dropna().astype(str) if h}


def _some(hosts: set[str]) -> str:
    """``a, b, c and 9 more`` (sorted): enough to see how the two sides name hosts."""
    if not hosts:
        return "none"
    shown = sorted(hosts)[:HOSTS_SHOWN]
    more = f" and {len(hosts) - len(shown)} more" if len(hosts) > len(shown) else ""
    return ", ".join(shown) + more


def _epoch_ms(column: pd.Series) -> pd.Series:
    if pd.api.types.is_datetime64_any_dtype(column):
        return column.astype("int64") / 1e6
    values = pd.to_numeric(column, errors="coerce").astype(float)
    return values * 1000.0 if values.median() < SECONDS_BEFORE else values


def _percolate(tasks: pd.DataFrame, jobs: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Jobs with the mean of each joined column over their tasks, matched by the tasks'
    ``job_id`` (with ``app_key`` or ``app_id`` too when both tables carry it); ``jobs`` itself when the
    tables cannot be matched."""
    if jobs.empty or "job_id" not in tasks.columns:
        return jobs
    app = next((c for c in ("app_key", "app_id") if c in jobs.columns and c in tasks.columns), None)
    if app is not None and "job_id" in jobs.columns:
        keys = [app, "job_id"]  # app_key tells attempts of one app apart
        means = tasks.groupby(keys)[columns].mean()
        joined = jobs.drop(columns=[c for c in columns if c in jobs.columns]).join(means, on=keys)
    else:
        key = "id" if tasks["job_id"].astype(str).isin(jobs["id"].astype(str)).any() else "job_id"
        if key not in jobs.columns:
            return jobs
        means = tasks.groupby(tasks["job_id"].astype(str))[columns].mean()
        aligned = means.reindex(jobs[key].astype(str).to_numpy())
        aligned.index = jobs.index
        joined = pd.concat(
            [jobs.drop(columns=[c for c in columns if c in jobs.columns]), aligned], axis=1
        )
    return joined


LOAD = re.compile(r"^(cpu_(user|system|nice|wio)|load_|proc_run|(bytes|pkts)_(in|out))")
"""Host metrics that rise with the load other work puts on the host: more of them makes a
task's every record dearer, so they account for the cost part of a gap (``explain.gap``).
Their opposites (idle CPU, free memory) say the same the other way round and are left to
precision alone."""


def _spec(metric: str, how: str):
    return spec(
        PREFIX + metric,
        "numeric",
        infer_unit(metric),
        "feature",
        f"Host metric {metric}: {how}.",
        "host metrics",
        window=True,
        accounts=("cost",) if LOAD.match(metric) else (),
    )
