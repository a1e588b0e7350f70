"""``ingest``: logs (local paths, remote URIs) -> a feature store, incrementally, in
parallel over files.

A source already in the manifest with the same files, sizes and modification times is not
read again; a plain in-progress log resumes from the bytes read so far; anything else is
read whole. Sources are read by ``worker.run`` in local worker processes, or as a Spark job
over the source list (``engine="spark"``): the same reader either way, writing each
application's partition under a temporary name. This process alone publishes partitions
and records them in the manifest, so a log that fails leaves the store as it was."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ..errors import LogError
from ..model import SkippedLine, completeness
from .fs import Location, locate
from .manifest import Entry, Manifest, SourceRead
from .partition import discard, partition_name, publish
from .sources import Source, find_sources
from .worker import Job, Result, run, run_all

SAVE_EVERY = 5.0
"""Seconds between manifest saves during a long ingestion (and once at the end)."""
ENGINES = ("local", "spark")


def default_workers() -> int:
    return max(
        1,
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1),
    )


@dataclass
class IngestReport:
    """What one ingestion did: sources read, left unchanged, failed (with why), files found
    not to be logs, tasks written, and the lines skipped while reading."""

    read: int = 0
    unchanged: int = 0
    resumed: int = 0
    tasks: int = 0
    bytes: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    not_logs: list[tuple[str, str]] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    skipped_lines: int = 0
    passed_over: list[SkippedLine] = field(default_factory=list)
    seconds: float = 0.0


def plan(sources: list[Source], manifest: Manifest, store: Location) -> tuple[list[Job], int]:
    """The jobs to run and the number of sources left as they are."""
    jobs: list[Job] = []
    unchanged = 0
    for source in sources:
        entry = manifest.entries.get(source.key)
        if entry is not None and tuple(map(tuple, entry.parts)) == source.fingerprint:
            unchanged += 1
        elif (
            entry is not None
            and entry.readable
            and source.in_progress
            and entry.bytes_read
            and source.size >= entry.bytes_read
        ):
            jobs.append(Job(source, store, entry.partition, entry.bytes_read))
        else:
            jobs.append(Job(source, store))
    return jobs, unchanged


def _local_results(jobs: list[Job], workers: int) -> Iterator[Result]:
    if workers <= 1 or len(jobs) <= 1:
        yield from map(run, jobs)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # spawn, not fork: pyarrow's thread pools do not survive a fork
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context) as pool:
        for done in as_completed([pool.submit(run, job) for job in jobs]):
            yield done.result()


def _spark_results(jobs: list[Job], master: str | None, spark) -> Iterator[Result]:
    """The same reader as a Spark job: one Spark task per slice of the source list."""
    if spark is None:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        from pyspark.sql import SparkSession

        builder = SparkSession.builder.appName("perfx ingest")
        spark = (builder.master(master) if master else builder).getOrCreate()
    context = spark.sparkContext
    slices = max(1, min(len(jobs), context.defaultParallelism * 4))
    yield from context.parallelize(jobs, slices).mapPartitions(run_all).toLocalIterator()


def _record(
    manifest: Manifest, job: Job, result: Result, report: IngestReport, read_now: set[str]
) -> None:
    """Publish a worker's partition and record it (or record why the source gave none).
    ``read_now`` holds the sources this ingestion has read so far: a copy of an attempt that
    one of them read turns out to be a duplicate is counted as one whichever of the two the
    workers finish first (their order varies from run to run)."""
    source = job.source
    if result.status == "failed":
        report.failed.append((source.key, result.reason))
        return
    parts = [list(p) for p in source.fingerprint]
    if result.status == "not a log":
        report.not_logs.append((source.key, result.reason))
        manifest.entries[source.key] = Entry(
            source=source.key, parts=parts, status="not a log", reason=result.reason
        )
        return
    partition = partition_name(result.app_id, result.attempt_id)
    owner = manifest.owner(partition)
    if owner is not None and owner.source != source.key and _still_there(owner, source):
        # as in load_log: the more complete copy wins, else the first in source order
        if (_completeness(owner), owner.source < source.key) > (_completeness(result), False):
            discard(manifest.location, result.temporary)
            reason = f"duplicate of {partition} already read from {owner.source}"
            report.duplicates.append((source.key, reason))
            manifest.entries[source.key] = Entry(
                source=source.key, parts=parts, status="duplicate", reason=reason
            )
            return
        # the copy read first, now a duplicate, is recorded as one found so on arrival is
        # (no partition, tables or counts of its own): which of the two the workers finish
        # first varies from run to run, and the store must not (a CI run's manifest
        # kept the demoted copy's registry and schemas)
        demoted = manifest.entries[owner.source] = Entry(
            source=owner.source,
            parts=owner.parts,
            status="duplicate",
            reason=f"duplicate of {partition} read from {source.key}",
        )
        if owner.source in read_now:  # counted as read a moment ago: a duplicate instead
            read_now.discard(owner.source)
            report.read -= 1
            report.tasks -= owner.tasks
            report.duplicates.append((owner.source, demoted.reason))
    elif owner is not None and owner.source != source.key:
        del manifest.entries[owner.source]  # renamed (an .inprogress log completed)
    previous = manifest.entries.get(source.key)
    if previous is not None and previous.partition and previous.partition != partition:
        discard(manifest.location, f"app={previous.partition}")
    publish(manifest.location, result.temporary, partition)
    manifest.entries[source.key] = Entry(
        **result.read_facts(),
        parts=parts,
        partition=partition,
        registry=manifest.blob("registries", result.registry),
        schemas={t: manifest.blob("schemas", s) for t, s in result.schemas.items()},
    )
    report.read += 1
    read_now.add(source.key)
    report.resumed += bool(job.resume_bytes)
    report.tasks += result.tasks
    report.bytes += source.size - job.resume_bytes
    report.skipped_lines += result.skipped_count


def _completeness(read: SourceRead) -> tuple[bool, int]:
    """``model.completeness`` of the copy a worker read."""
    return completeness(not read.cut_off, read.tasks)


def _still_there(owner: Entry, source: Source) -> bool:
    """Does the owner's first file still exist (on the new source's filesystem)?"""
    from pyarrow.fs import FileType

    path = owner.parts[0][0] if owner.parts else ""
    return bool(path) and source.fs.get_file_info(path).type != FileType.NotFound


def ingest(
    paths: Iterable[str],
    store: str | os.PathLike,
    *,
    workers: int | None = None,
    engine: str = "local",
    master: str | None = None,
    spark=None,
    progress: Callable[[int, int], None] | None = None,
) -> IngestReport:
    """Read the logs under ``paths`` into the store at ``store`` (created if need be).

    ``workers`` local processes (default: one per core) or, with ``engine="spark"``, a
    Spark job on ``master`` (or the given ``spark`` session). ``progress(done, total)`` is
    called as sources finish."""
    if engine not in ENGINES:
        raise LogError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    started = time.perf_counter()
    where = locate(store)
    where.fs.create_dir(where.path, recursive=True)
    manifest = Manifest.open(where, create=True)
    found = find_sources(list(paths))
    jobs, unchanged = plan(found.sources, manifest, where)
    report = IngestReport(unchanged=unchanged, passed_over=found.skipped)
    by_key = {job.source.key: job for job in jobs}
    results = (
        _spark_results(jobs, master, spark)
        if engine == "spark" and jobs
        else _local_results(jobs, workers or default_workers())
    )
    saved = time.monotonic()
    read_now: set[str] = set()
    for done, result in enumerate(results, 1):
        _record(manifest, by_key[result.source], result, report, read_now)
        if progress is not None:
            progress(done, len(jobs))
        if time.monotonic() - saved > SAVE_EVERY:
            manifest.save()
            saved = time.monotonic()
    if jobs or not where.join("manifest.json").exists():
        manifest.save()
    report.seconds = time.perf_counter() - started
    return report
