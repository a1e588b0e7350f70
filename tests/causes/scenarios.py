"""Injected-cause scenarios: one PySpark job on local[2] in which ONE task of one stage is made
slower than its peers by a known cause, and the lookup of that task in the event log.

``run_scenario(spark, kind, seed, size)`` runs one scenario and returns an ``Injected`` (which
job, which stage, which partition); ``find_injected_task(log, injected)`` returns the injected
task's ``id`` in perfx's task table (what PXQL accepts: ``WHY TASK '<id>' SLOWER``).

Shared design (why the injected task is slowest, and by a clear margin, on 2 cores):

* every normal task does the same work, ~150-400 ms of it, so that scheduling noise on a busy
  2-core machine stays small against it; the injected task does 4-10x that;
* the injected partition is drawn by ``random.Random(seed)`` from index 2 onwards (except for
  ``cold_start``, where it is by nature the stage's first task): the two tasks that open a
  stage pay start-up costs (Python worker, JIT, generated code), which must not be mistaken
  for, or added to, the injected cause;
* the input of the Python stages is one text file per partition, read with ``sc.textFile`` of
  the files in order, so partition ``i`` is file ``i`` and ``Input Metrics/Records Read`` shows
  each task's records (``spark.range`` partitions report theirs too);
* functions shipped to the Python workers are pickled by value (the workers need not import
  ``tests``), and keep their per-process or per-executor state outside the pickled globals.
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

KINDS = (
    "data_skew",
    "computation_skew",
    "gc_pressure",
    "spill",
    "spill_volume",
    "shuffle_read_skew",
    "batched_shuffle_bytes",
    "cold_start",
    "shuffle_write_fanout",
    "result_size",
    "output_skew",
    "python_wait",
    "control",
)
"""The injected kinds, and ``control``: a stage where nothing was injected, whose question is
about its slowest task past the two that open it (``Injected.partition`` is -1 until the log
names it: ``find_injected_task``)."""


@dataclass
class Injected:
    """One scenario run: which task of which stage of which job was made slow, and why.

    ``partition`` is Spark's task "Index" in the stage of interest; that stage is the one of
    the job(s) described ``description`` with ``num_tasks`` tasks (``stage_hint`` says the same
    in words). ``details`` holds what the scenario did (records per partition, expensive
    records, partitions that paid a cold start, ...)."""

    kind: str
    seed: int
    description: str
    partition: int
    stage_hint: str
    num_tasks: int
    size: str = "small"
    details: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Size:
    partitions: tuple[int, int]  # tasks in the stage of interest: drawn from this range (inclusive)
    records: int  # records of a normal partition


SIZES = {"small": Size((10, 14), 20_000), "large": Size((28, 36), 30_000)}

# ---------------------------------------------------------------------------------------------
# Work done on the Python workers (pickled by value with this module).


def _cheap(line: str, passes: int = 2) -> int:
    """The normal per-record cost: ``passes`` rounds of a short string hash in pure Python,
    ~10 us each."""
    h = 0
    for _ in range(passes):
        for c in line[:24]:
            h = (h * 31 + ord(c)) & 0xFFFFFFFF
    return h


FLAG = 14  # position of the one-letter flag in an input line (see _line)


def _line(partition: int, i: int, flag: str, payload: int) -> str:
    """An input record: ``pppp,iiiiiiii,F,<16 hex digits>`` (33 bytes with its newline): the
    same size in every partition, whatever its flag."""
    return f"{partition:04d},{i:08d},{flag},{payload:016x}\n"


def _expensive(line: str, iterations: int) -> int:
    """An expensive record: PBKDF2 key derivation, CPU-bound work of a fixed amount (tens of
    ms), standing for a record whose processing is intrinsically costly."""
    import hashlib

    return hashlib.pbkdf2_hmac("sha256", line.encode(), b"perfx", iterations)[0]


def _priced(iterations: int) -> Callable[[str], int]:
    def price(line: str) -> int:
        return _expensive(line, iterations) if line[FLAG] == "E" else _cheap(line)

    return price


def _trim_heap() -> None:
    """Give the process's free heap back to the OS (glibc), so that its resident size measures
    its live data: a reused Python worker keeps the pages a previous task freed."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _sort_with_budget(
    limit_mb: int, blob_bytes: int
) -> Callable[[int, Iterator[str]], Iterator[tuple]]:
    """A partition function that parses each record into (key, blob) — for records flagged
    "W" the blob is ``blob_bytes`` of incompressible bytes (one of 64 random blocks, plus the
    line: a new object per record), otherwise the line's own bytes — and sorts the partition
    with PySpark's ``ExternalSorter`` (what ``sortByKey`` runs on each partition), given
    ``limit_mb`` of memory above the worker's resident size at the start of the task."""

    def run(index: int, lines: Iterator[str]) -> Iterator[tuple]:
        import random as _random

        from pyspark.shuffle import ExternalSorter, get_used_memory

        _trim_heap()
        sorter = ExternalSorter(get_used_memory() + limit_mb)
        blocks = [_random.Random(b).randbytes(blob_bytes) for b in range(64)]

        def parse(line: str) -> tuple[int, bytes]:
            key = _cheap(line)
            raw = line.encode()
            return key, blocks[key % 64] + raw if line[FLAG] == "W" else raw

        count = total = 0
        for _, blob in sorter.sorted(map(parse, lines), key=lambda kv: kv[0]):
            count += 1
            total += len(blob)
        yield index, count, total

    return run


def _executor_model(path: str, iterations: int) -> bool:
    """Lazily build this run's "model" once per executor (the local disk cache of, say, a
    downloaded model): the first task that needs it builds it (~1-2 s of CPU) under a file
    lock, later tasks (any Python worker) find it on disk. Returns whether this call built it."""
    import fcntl
    import hashlib

    with open(path + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(path):
            return False
        blob = hashlib.pbkdf2_hmac("sha256", path.encode(), b"perfx-model", iterations)
        with open(path + ".tmp", "wb") as out:
            out.write(blob)
        os.replace(path + ".tmp", path)
        return True


def _with_model(path: str, iterations: int) -> Callable[[int, Iterator[str]], Iterator[tuple]]:
    def run(index: int, lines: Iterator[str]) -> Iterator[tuple]:
        started = time.perf_counter()
        built = _executor_model(path, iterations)
        init_ms = (time.perf_counter() - started) * 1000
        with open(path, "rb") as model:
            salt = model.read(4)
        yield index, built, round(init_ms), sum(_cheap(line) ^ salt[0] for line in lines)

    return run


def _block_until(started: str, path: str, timeout: float) -> bool:
    """The cold_start blocker task: say it runs (file ``started``), then wait for ``path``."""
    open(started, "w").close()
    return _await_file(path, timeout)


def _await_file(path: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# ---------------------------------------------------------------------------------------------
# Driver side helpers


def _register_by_value() -> None:
    """Ship this module's functions by value: the workers need not import ``tests``."""
    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])


@contextmanager
def _described(sc, description: str):
    sc.setJobDescription(description)
    try:
        yield
    finally:
        sc.setJobDescription(None)


def _write_inputs(
    directory: Path, counts: list[int], flags: Callable[[int, int], str], rng: random.Random
) -> list[str]:
    """One text file per partition, ``counts[p]`` records each, flagged by ``flags(p, i)``."""
    paths = []
    for p, n in enumerate(counts):
        path = directory / f"part-{p:04d}.txt"
        bits = rng.getrandbits
        with open(path, "w") as out:
            out.writelines(_line(p, i, flags(p, i), bits(64)) for i in range(n))
        paths.append(str(path))
    return paths


def _text_partitions(sc, paths: list[str]):
    """An RDD with one partition per file, partition ``i`` = ``paths[i]``: a comma-separated
    list keeps its order, and ``minPartitions=1`` keeps Hadoop from splitting any file."""
    rdd = sc.textFile(",".join(paths), minPartitions=1)
    if rdd.getNumPartitions() != len(paths):
        raise RuntimeError(f"expected {len(paths)} input partitions, got {rdd.getNumPartitions()}")
    return rdd


def _plain(p: int, i: int) -> str:
    return "n"


# Spark's hash partitioning: pmod(Murmur3_x86_32(value, seed 42), n) (HashPartitioning of a
# long column), so that a scenario can choose which reduce partition a key lands in.
_M32 = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def _mix_k1(k1: int) -> int:
    return (_rotl((k1 * 0xCC9E2D51) & _M32, 15) * 0x1B873593) & _M32


def _mix_h1(h1: int, k1: int) -> int:
    return (_rotl(h1 ^ k1, 13) * 5 + 0xE6546B64) & _M32


def _fmix(h1: int, length: int) -> int:
    h1 ^= length
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & _M32
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & _M32
    return h1 ^ (h1 >> 16)


def spark_hash_long(value: int, seed: int = 42) -> int:
    """Spark SQL's ``hash(<bigint>)`` (Murmur3_x86_32.hashLong), as a signed 32-bit int."""
    value &= 0xFFFFFFFFFFFFFFFF
    h1 = _mix_h1(seed, _mix_k1(value & _M32))
    h1 = _fmix(_mix_h1(h1, _mix_k1(value >> 32)), 8)
    return h1 - (1 << 32) if h1 >= 1 << 31 else h1


def spark_partition_of(key: int, partitions: int) -> int:
    """The reduce partition ``repartition(partitions, <bigint key>)`` sends ``key`` to."""
    return spark_hash_long(key) % partitions  # Python's % is pmod


# ---------------------------------------------------------------------------------------------
# The scenarios. ``work`` is a scratch directory, removed afterwards.


@dataclass
class _Outcome:
    partition: int  # the injected task's index in the stage of interest
    stage_hint: str
    num_tasks: int  # tasks of the stage of interest
    details: dict = field(default_factory=dict)


def _data_skew(spark, rng: random.Random, size: Size, description: str, work: Path) -> _Outcome:
    """One input partition holds 12x the records of its peers, at the same cheap Python cost
    per record: its task reads 12x the input records (``Input Metrics/Records Read``) and runs
    ~10x longer. One result stage, one task per input file."""
    sc = spark.sparkContext
    n = rng.randint(*size.partitions)
    p = rng.randrange(2, n)
    counts = [size.records * (12 if i == p else 1) for i in range(n)]
    paths = _write_inputs(work, counts, _plain, rng)
    with _described(sc, description):
        _text_partitions(sc, paths).map(_cheap).sum()
    return _Outcome(
        p, f"result stage of {n} tasks (textFile -> map -> sum)", n, details={"records": counts}
    )


EXPENSIVE_RECORDS = 24  # expensive records of the injected computation_skew partition
EXPENSIVE_ITERATIONS = 200_000  # PBKDF2 iterations of each (~80 ms of CPU)


def _computation_skew(
    spark, rng: random.Random, size: Size, description: str, work: Path
) -> _Outcome:
    """Every partition holds the same records; 24 records of one partition are expensive
    (PBKDF2 with 200k iterations, ~80 ms of CPU each; the others cost ~20 us). Its task reads
    the same input records and bytes as its peers, allocates nothing more (no GC, no spill),
    and spends ~2 s more CPU in the Python worker. Same stage shape as data_skew."""
    sc = spark.sparkContext
    n = rng.randint(*size.partitions)
    p = rng.randrange(2, n)
    expensive = set(rng.sample(range(size.records), EXPENSIVE_RECORDS))
    paths = _write_inputs(
        work, [size.records] * n, lambda q, i: "E" if q == p and i in expensive else "n", rng
    )
    with _described(sc, description):
        _text_partitions(sc, paths).map(_priced(EXPENSIVE_ITERATIONS)).sum()
    return _Outcome(
        p,
        f"result stage of {n} tasks (textFile -> map -> sum)",
        n,
        details={
            "records_per_partition": size.records,
            "expensive_records": len(expensive),
            "pbkdf2_iterations": EXPENSIVE_ITERATIONS,
        },
    )


GC_ROWS = 1000  # rows per partition of the gc_pressure range
GC_BASE_MS = 250  # the sleep every gc_pressure task does (its normal work)
GC_COLLECTIONS = 15  # full collections the injected gc_pressure task asks for
GC_GAP_MS = 25  # the sleep after each of them


def _gc_pressure(spark, rng: random.Random, size: Size, description: str, work: Path) -> _Outcome:
    """Every partition of a ``spark.range`` holds 1000 rows and sleeps 250 ms on its first row
    (the same normal work everywhere, and no CPU, so the machine's load does not blur it); the
    injected partition also calls ``System.gc()`` (Spark SQL ``reflect``) on 15 rows: 15 full
    collections of the JVM heap (60-180 ms each), ~1-2.5 s that Spark's ``JVM GC Time`` (the
    JVM's collection time during the task) reports. A Python UDF that allocates would not do
    (Python memory is not the JVM's), nor would JVM garbage that young collections clear
    cheaply.

    GC time is JVM-wide and the pauses stop every thread: a peer running beside the injected
    task sees the pauses of its own lifetime in its GC time, and its hand-offs to other threads
    (result, status update) wait for them. So each collection is followed by a 25 ms sleep (no
    back-to-back pauses that would stall the peers), and the job ends with a ``collect`` of
    nothing rather than a write (no commit round trip to the driver): the peers stay near their
    normal time while the injected task's extra time is mostly GC."""
    n = rng.randint(*size.partitions)
    p = rng.randrange(2, n)
    injected = f"spark_partition_id() = {p} AND id % {GC_ROWS} BETWEEN 1 AND {2 * GC_COLLECTIONS}"
    expression = (
        f"CASE WHEN id % {GC_ROWS} = 0 THEN reflect('java.lang.Thread', 'sleep', {GC_BASE_MS}L) "
        f"WHEN {injected} AND id % 2 = 1 THEN reflect('java.lang.System', 'gc') "
        f"WHEN {injected} THEN reflect('java.lang.Thread', 'sleep', {GC_GAP_MS}L) ELSE 'x' END AS x"
    )
    frame = spark.range(0, n * GC_ROWS, 1, n).selectExpr(expression).where("x = 'none'")
    with _described(spark.sparkContext, description):
        frame.collect()
    return _Outcome(
        p,
        f"the one stage of {n} tasks (range -> reflect -> collect)",
        n,
        details={
            "rows_per_partition": GC_ROWS,
            "base_sleep_ms": GC_BASE_MS,
            "full_gcs": GC_COLLECTIONS,
            "gap_ms": GC_GAP_MS,
        },
    )


SPILL_LIMIT_MB = 48  # memory the sort may use above the worker's resident size at task start
SPILL_BLOB = 4096  # bytes of a "W" record's blob


def _spill(spark, rng: random.Random, size: Size, description: str, work: Path) -> _Outcome:
    """Every partition holds the same records (same input bytes), sorted on the Python worker
    by PySpark's ``ExternalSorter`` with 48 MB of memory. The injected partition's records are
    "wide" (each parses into a 4 KB incompressible blob, ~80 MB in all): its sort exceeds the
    budget and spills sorted runs to disk (pickled, zlib-compressed: ~80 MB written and read
    back), then merges them; its peers' ~1 MB sorts stay in memory. The Python worker reports
    the spill to the task metrics: ``Disk Bytes Spilled`` (~55 MB; ``Memory Bytes Spilled``
    counts only the fall of the worker's resident size, which glibc keeps: 0). No JVM memory is
    involved (no GC). Checked: with an unlimited budget the same partition sorts in memory in
    ~1.3-2x its peers' time, with the budget in ~6-10x: the spill is what costs."""
    sc = spark.sparkContext
    n = rng.randint(*size.partitions)
    p = rng.randrange(2, n)
    paths = _write_inputs(work, [size.records] * n, lambda q, i: "W" if q == p else "n", rng)
    with _described(sc, description):
        results = (
            _text_partitions(sc, paths)
            .mapPartitionsWithIndex(_sort_with_budget(SPILL_LIMIT_MB, SPILL_BLOB))
            .collect()
        )
    return _Outcome(
        p,
        f"result stage of {n} tasks (textFile -> external sort)",
        n,
        details={
            "records_per_partition": size.records,
            "limit_mb": SPILL_LIMIT_MB,
            "blob_bytes": SPILL_BLOB,
            "sorted_bytes": {i: t for i, _, t in results},
        },
    )


SHUFFLE_THINNING = 5  # shuffle_read_skew: 1/5 of the records per partition, costing 7.5x each


def _shuffle_read_skew(
    spark, rng: random.Random, size: Size, description: str, work: Path
) -> _Outcome:
    """A two-stage DataFrame job: ``spark.range`` (2 map tasks) makes (key, payload) rows,
    ``repartition(n, key)`` shuffles them, and the reduce stage runs a cheap Python function on
    every row (``.rdd.map``). Every reduce partition gets ``records`` rows of its own keys; one
    hot key, chosen to hash into the injected partition, holds 9x that more: its reduce task
    reads ~10x the shuffle records and bytes (``Shuffle Read Metrics``) and runs ~10x longer.
    Rows cost 7.5x a normal record in Python, and a normal partition has 1/5 of the records:
    converting rows for Python (``.rdd``) allocates on the JVM, and with 5x the rows the hot
    task's young collections (whose time every task running beside it reports too) stood out
    as well (~40% of its extra time)."""
    n = rng.randint(*size.partitions)
    p = rng.randrange(2, n)
    records = size.records // SHUFFLE_THINNING
    keys: dict[int, list[int]] = {j: [] for j in range(n)}
    candidate = rng.randrange(1 << 40)
    while any(len(k) < 8 for k in keys.values()):
        target = keys[spark_partition_of(candidate, n)]
        if len(target) < 8:
            target.append(candidate)
        candidate += 1
    hot = next(
        k
        for k in range(rng.randrange(1 << 40), 1 << 41)
        if spark_partition_of(k, n) == p and k not in keys[p]
    )
    normal = n * records
    total = normal + 9 * records
    table = ", ".join(f"{keys[i % n][i // n]}L" for i in range(8 * n))  # slot i -> partition i % n
    frame = (
        spark.range(0, total, 1, 2)
        .selectExpr(
            f"CASE WHEN id < {normal} THEN element_at(array({table}), CAST(id % {8 * n} AS INT) + 1) "
            f"ELSE {hot}L END AS k",
            f"concat('v', lpad(CAST(id * {rng.randrange(3, 1000, 2)} AS STRING), 31, '0')) AS v",
        )
        .repartition(n, "k")
    )
    with _described(spark.sparkContext, description):
        frame.rdd.map(lambda row: _cheap(row[1], 3 * SHUFFLE_THINNING)).sum()
    return _Outcome(
        p,
        f"reduce stage of {n} tasks (after a 2-task map stage; repartition(n, key) -> .rdd.map)",
        n,
        details={"records_per_partition": records, "hot_key": hot, "hot_records": 9 * records},
    )


COLD_ITERATIONS = 4_500_000  # PBKDF2 iterations of the cold_start model (~1.8 s of CPU)


def _cold_start(spark, rng: random.Random, size: Size, description: str, work: Path) -> _Outcome:
    """Every task needs this run's "model", built lazily once per executor (a file on the local
    disk named by the run's nonce, built under a file lock with ~1.8 s of CPU); the first task
    that needs it pays, the rest read it. The stage's first task (index 0, the first the event
    log shows on the executor) is the one that pays.

    On local[2] the two tasks that open a stage start at once and would both pay (one builds,
    the other waits on the lock). So that only one does, the stage starts with one core busy:
    a one-task "blocker" job (description + "-blocker") runs first, on the other core, until the
    model exists. Task 0 then builds it alone; every other task starts after it is built."""
    sc = spark.sparkContext
    n = rng.randint(*size.partitions)
    paths = _write_inputs(work, [size.records] * n, _plain, rng)
    model, started = str(work / "model.bin"), str(work / "blocker-started")
    rdd = _text_partitions(sc, paths).mapPartitionsWithIndex(_with_model(model, COLD_ITERATIONS))

    def block() -> None:
        with _described(sc, f"{description}-blocker"):
            sc.parallelize([model], 1).map(lambda path: _block_until(started, path, 60)).collect()

    blocker = threading.Thread(target=block, name="perfx-cold-start-blocker", daemon=True)
    blocker.start()
    if not _await_file(started, 30):  # Spark's status tracker lags by seconds: the task says so
        raise RuntimeError("the cold_start blocker task never started")
    try:
        with _described(sc, description):
            results = rdd.collect()
    finally:
        blocker.join(timeout=90)
    paid = sorted(i for i, built, _, _ in results if built)
    return _Outcome(
        0,
        f"result stage of {n} tasks (textFile -> mapPartitions)",
        n,
        details={
            "paid": paid,
            "init_ms": {i: ms for i, _, ms, _ in results if ms >= 50},
            "pbkdf2_iterations": COLD_ITERATIONS,
        },
    )


SPILL_VOLUME_BLOB = 1024  # spill_volume: bytes of every record's blob
SPILL_VOLUME_FACTOR = 5  # spill_volume: records of the injected partition against its peers'


def _spill_volume(spark, rng: random.Random, size: Size, description: str, work: Path) -> _Outcome:
    """The spill scenario with more volume: every record parses into a 1 KB blob and is
    sorted with 48 MB above the worker's resident size; the injected partition holds 5x the
    records of its peers (their ~20 MB sorts fit, its ~100 MB spills)."""
    sc = spark.sparkContext
    n = rng.randint(*size.partitions)
    p = rng.randrange(2, n)
    counts = [size.records * (SPILL_VOLUME_FACTOR if i == p else 1) for i in range(n)]
    paths = _write_inputs(work, counts, lambda q, i: "W", rng)
    with _described(sc, description):
        _text_partitions(sc, paths).mapPartitionsWithIndex(
            _sort_with_budget(SPILL_LIMIT_MB, SPILL_VOLUME_BLOB)
        ).collect()
    return _Outcome(
        p,
        f"result stage of {n} tasks (textFile -> external sort)",
        n,
        details={"records": counts, "limit_mb": SPILL_LIMIT_MB, "blob_bytes": SPILL_VOLUME_BLOB},
    )


WIDE_VALUE = 3000  # batched_shuffle_bytes: characters of a value bound for the injected reducer


def _keyed(p: int, n: int) -> Callable[[int, Iterator[str]], Iterator[tuple]]:
    """(key, value) pairs, one per record, spread evenly over ``n`` reducers (key % n); the
    values bound for reducer ``p`` are ``WIDE_VALUE`` characters, the others 20."""

    def run(index: int, lines: Iterator[str]) -> Iterator[tuple]:
        for i, _ in enumerate(lines):
            key = index * 1_000_003 + i
            width = WIDE_VALUE if key % n == p else 20
            yield key, os.urandom(width // 2).hex()  # incompressible: the shuffle is compressed

    return run


def _byte_cost(kv: tuple) -> int:
    """A reducer's work on a value, in proportion to its characters (pure Python)."""
    h = 0
    for c in kv[1]:
        h = (h * 31 + ord(c)) & 0xFFFFFFFF
    return h


def _batched_shuffle_bytes(
    spark, rng: random.Random, size: Size, description: str, work: Path
) -> _Outcome:
    """A PySpark RDD shuffle (``partitionBy(n, key % n)``) in which every reducer gets the
    same number of records, but the injected one's values are 150x wider: it reads ~20-100x
    the shuffle bytes at about the same shuffle *record* count (PySpark shuffles pickled
    batches, and counts the batches), and its Python work follows the bytes."""
    sc = spark.sparkContext
    n = rng.randint(*size.partitions)
    p = rng.randrange(2, n)
    records = size.records // 4
    paths = _write_inputs(work, [records] * 4, _plain, rng)
    with _described(sc, description):
        _text_partitions(sc, paths).mapPartitionsWithIndex(_keyed(p, n)).partitionBy(
            n, lambda key: key % n
        ).map(_byte_cost).sum()
    return _Outcome(
        p,
        f"reduce stage of {n} tasks (after a 4-task map stage; partitionBy(n) -> map)",
        n,
        details={"records_per_map": records, "wide_value": WIDE_VALUE},
    )


@dataclass(frozen=True)
class OnePartition:
    """A scenario over equal input files, one per partition (``records_share`` of a normal
    partition's records each), in which ``made(p)``, the partition function, treats partition
    ``p`` (drawn from index 2 on) differently; ``action(rdd, work)`` ends the job."""

    made: Callable[[int], Callable]
    action: Callable
    hint: str
    stage: str = "result stage"
    records_share: int = 1

    def __call__(
        self, spark, rng: random.Random, size: Size, description: str, work: Path
    ) -> _Outcome:
        n = rng.randint(*size.partitions)
        p = rng.randrange(2, n)
        records = size.records // self.records_share
        paths = _write_inputs(work, [records] * n, _plain, rng)
        with _described(spark.sparkContext, description):
            rdd = _text_partitions(spark.sparkContext, paths)
            self.action(rdd.mapPartitionsWithIndex(self.made(p)), work)
        return _Outcome(
            p,
            f"{self.stage} of {n} tasks ({self.hint})",
            n,
            details={"records_per_partition": records},
        )


FANOUT = 40  # shuffle_write_fanout: records the injected partition emits per input record


def _emit(p: int, factor: int) -> Callable[[int, Iterator[str]], Iterator[tuple]]:
    """Every partition emits one (key, value) per input record; partition ``p`` emits
    ``factor`` (a flatMap fan-out): the same input, ``factor`` x the records to shuffle."""

    def run(index: int, lines: Iterator[str]) -> Iterator[tuple]:
        times = factor if index == p else 1
        for line in lines:
            key = _cheap(line, 1)
            for k in range(times):
                yield (key + k) % 4096, line[:24]

    return run


# Every input partition holds the same records; the injected one's flatMap emits 40
# (key, value) pairs per record where its peers emit one, and the pairs are shuffled
# (``partitionBy``, 4 reduce partitions). Its map task reads the same input and writes 40x
# the shuffle bytes (PySpark shuffles pickled batches: the records it counts are batches),
# costing the extra Python work of emitting and serializing them.
_shuffle_write_fanout = OnePartition(
    lambda p: _emit(p, FANOUT),
    lambda rdd, work: rdd.partitionBy(4).count(),
    "textFile -> flatMap -> partitionBy(4)",
    stage="map stage",
    records_share=4,
)


RESULT_MB = 48  # result_size: megabytes the injected task returns to the driver


def _returning(p: int, megabytes: int) -> Callable[[int, Iterator[str]], Iterator[bytes]]:
    def run(index: int, lines: Iterator[str]) -> Iterator[bytes]:
        total = sum(_cheap(line) for line in lines)
        yield total.to_bytes(8, "little")
        if index == p:
            block = os.urandom(1 << 20)
            for k in range(megabytes):
                yield block[k:] + block[:k]

    return run


# Every partition does the same work on the same records and returns 8 bytes to the
# driver (``collect``), the injected one also returns 48 MB (incompressible): its result
# size is ~10^6 x its peers', its time goes to pickling, handing over and fetching it.
_result_size = OnePartition(
    lambda p: _returning(p, RESULT_MB),
    lambda rdd, work: rdd.collect(),
    "textFile -> mapPartitions -> collect",
)


OUTPUT_FACTOR = 30  # output_skew: lines the injected partition writes per input record


def _writing(p: int, factor: int) -> Callable[[int, Iterator[str]], Iterator[str]]:
    def run(index: int, lines: Iterator[str]) -> Iterator[str]:
        times = factor if index == p else 1
        for line in lines:
            h = _cheap(line)
            for k in range(times):
                yield f"{h:08x}{k:04d}{line[:20]}"

    return run


# Every partition reads the same records; the injected one writes 30 lines per record
# where its peers write one (``saveAsTextFile``): the same input, 30x the output records and
# bytes, and the Python work of making them.
_output_skew = OnePartition(
    lambda p: _writing(p, OUTPUT_FACTOR),
    lambda rdd, work: rdd.saveAsTextFile(str(work / "out")),
    "textFile -> flatMap -> saveAsTextFile",
    records_share=2,
)


WAIT_S = 2.0  # python_wait: seconds the injected partition's Python worker waits (a remote call)


def _waiting(p: int, seconds: float) -> Callable[[int, Iterator[str]], Iterator[int]]:
    def run(index: int, lines: Iterator[str]) -> Iterator[int]:
        if index == p:
            time.sleep(seconds)
        yield sum(_cheap(line) for line in lines)

    return run


# Every partition does the same work on the same records; the injected one's Python
# worker first waits 2 s (a remote call, off every CPU): its JVM CPU time is its peers'.
_python_wait = OnePartition(
    lambda p: _waiting(p, WAIT_S),
    lambda rdd, work: rdd.sum(),
    "textFile -> mapPartitions(wait) -> sum",
)


def _control(spark, rng: random.Random, size: Size, description: str, work: Path) -> _Outcome:
    """Nothing injected: every partition does the same work on the same records (the
    data_skew stage without its skew). The question is about its slowest task past the two
    that open the stage, named once the log shows the stage (``find_injected_task``)."""
    sc = spark.sparkContext
    n = rng.randint(*size.partitions)
    paths = _write_inputs(work, [size.records] * n, _plain, rng)
    with _described(sc, description):
        _text_partitions(sc, paths).map(_cheap).sum()
    return _Outcome(-1, f"result stage of {n} tasks (textFile -> map -> sum)", n)


_WARM: set[str] = set()  # application ids whose session warm_up has run


def warm_up(spark) -> None:
    """Once per application: a Python and a SQL job (described ``perfx-cause-warm-up``), so that
    no scenario's first tasks pay for the start of the Python workers and the JIT: the first
    tasks of an application take seconds, as long as an injected task."""
    sc = spark.sparkContext
    if sc.applicationId in _WARM:
        return
    with _described(sc, "perfx-cause-warm-up"):
        sc.parallelize(range(40_000), 4).map(str).map(_cheap).sum()
        spark.range(0, 100_000, 1, 4).selectExpr("sum(hash(id))").collect()
    _WARM.add(sc.applicationId)


_SCENARIOS: dict[str, Callable] = {
    "data_skew": _data_skew,
    "computation_skew": _computation_skew,
    "gc_pressure": _gc_pressure,
    "spill": _spill,
    "shuffle_read_skew": _shuffle_read_skew,
    "cold_start": _cold_start,
    "shuffle_write_fanout": _shuffle_write_fanout,
    "spill_volume": _spill_volume,
    "batched_shuffle_bytes": _batched_shuffle_bytes,
    "result_size": _result_size,
    "output_skew": _output_skew,
    "python_wait": _python_wait,
    "control": _control,
}


def run_scenario(spark, kind: str, seed: int, size: str = "small") -> Injected:
    """Run scenario ``kind`` (one of ``KINDS``) with ``seed`` (which partition is injected, the
    data) on ``spark``, as job(s) described ``perfx-cause-<kind>-<seed>-<nonce>``; returns what
    was injected (after ``warm_up``, once per application). ``size``: "small" (10-14 tasks in the stage of interest, under ~15 s) or
    "large" (28-36 tasks, 1.5x the records per task: a benchmark)."""
    if kind not in _SCENARIOS:
        raise ValueError(f"unknown scenario kind {kind!r}; expected one of {', '.join(KINDS)}")
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; expected one of {', '.join(SIZES)}")
    _register_by_value()
    warm_up(spark)
    rng = random.Random(f"{kind}/{seed}/{size}")
    description = f"perfx-cause-{kind}-{seed}-{secrets.token_hex(4)}"
    work = Path(tempfile.mkdtemp(prefix=f"perfx-cause-{kind}-"))
    try:
        base = SIZES[size]  # runs of a kind differ in size too, not only in seed
        scaled = Size(base.partitions, int(base.records * rng.uniform(1.0, 1.4)))
        outcome = _SCENARIOS[kind](spark, rng, scaled, description, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Injected(
        kind,
        seed,
        description,
        outcome.partition,
        outcome.stage_hint,
        outcome.num_tasks,
        size,
        outcome.details,
    )


# ---------------------------------------------------------------------------------------------
# Finding the injected task in the event log


def injected_stage_tasks(log, injected: Injected):
    """The successful task attempts of the stage of interest (the last stage with
    ``injected.num_tasks`` successful tasks among the jobs described ``injected.description``),
    or None while the event log does not show them all yet."""
    jobs = log.jobs
    if "description" not in jobs.columns:
        return None
    jobs = jobs[jobs["description"] == injected.description]
    if jobs.empty:
        return None
    tasks = log.tasks
    ours = tasks.set_index(["app_key", "job_id"]).index.isin(
        jobs.set_index(["app_key", "job_id"]).index
    )
    tasks = tasks[ours & (tasks["status"] == "SUCCESS")]
    sizes = tasks.groupby("stage_key")["task_index"].nunique()
    full = sizes[sizes == injected.num_tasks].index
    if not len(full):
        return None
    stage = tasks[tasks["stage_key"].isin(full)].sort_values("stage_id")["stage_key"].iloc[-1]
    return tasks[tasks["stage_key"] == stage]


def find_injected_task(log, injected: Injected, timeout: float = 60.0) -> str:
    """The injected task's ``id`` in perfx's task table (``<app id>/<task id>``, what PXQL's
    ``TASK '<id>'`` resolves). ``log`` is a ``Log`` from ``perfx.logs.loader.load_log``, or an
    event-log directory/file: then it is loaded again until the stage shows all its tasks (the
    event log is written asynchronously), for up to ``timeout`` seconds."""
    if isinstance(log, (str, os.PathLike)):
        log = wait_for_injected(log, injected, timeout)
    tasks = injected_stage_tasks(log, injected)
    if tasks is None:
        raise LookupError(
            f"the log does not show the {injected.num_tasks}-task stage of job {injected.description!r}"
        )
    if injected.partition < 0:  # a control: its slowest task past the two that open the stage
        later = tasks[tasks["task_index"] >= 2]
        return str(later["id"].iloc[int(later["duration"].to_numpy().argmax())])
    task = tasks[tasks["task_index"] == injected.partition]
    if len(task) != 1:
        raise LookupError(
            f"{len(task)} successful tasks of index {injected.partition} in job {injected.description!r}"
        )
    return str(task["id"].iloc[0])


def wait_for_injected(event_log: str | os.PathLike, injected: Injected, timeout: float = 60.0):
    """``load_log(event_log)`` once it shows the injected stage's tasks (polling every 0.5 s)."""
    from perfx.logs.loader import load_log

    deadline = time.monotonic() + timeout
    while True:
        log = load_log(event_log)
        if injected_stage_tasks(log, injected) is not None:
            return log
        if time.monotonic() > deadline:
            raise LookupError(
                f"the event log never showed the {injected.num_tasks}-task stage of job "
                f"{injected.description!r} (waited {timeout:.0f} s)"
            )
        time.sleep(0.5)


def iter_kinds(kinds: Iterable[str] | None) -> tuple[str, ...]:
    """``kinds`` checked against ``KINDS`` (all of them if None)."""
    chosen = tuple(kinds) if kinds else KINDS
    unknown = [k for k in chosen if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown scenario kinds {unknown}; expected some of {', '.join(KINDS)}")
    return chosen
