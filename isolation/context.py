"""TracedContext: a traced run of a PySpark program over a SparkSession.

It names the run, opens its lineage store, numbers the run's stages (the ids of the records
they produce carry that number), creates the source datasets and runs the actions. A run is
marked complete by ``finish`` (or leaving the ``with`` block) only after checking that every
partition of every stage the actions computed has its lineage rows in the store.
"""

from __future__ import annotations

import builtins
import os
import re
import secrets
import sys
from datetime import datetime, timezone

from py4j.protocol import Py4JJavaError
from pyspark import StorageLevel

from . import batches, sources
from .dataset import TracedDataset
from .errors import IsolationError, attach_reading, from_job_failure
from .ids import (
    ID_LAYOUT,
    MAX_TABLES,
    NO_LATENCY,
    NO_SOURCE,
    TABLE_SHIFT,
    describe_id,
    partition_base,
)
from .lineage import PartitionRows
from .stores import LineageStore, open_store
from .tasks import write_rows

LINEAGE_MODES = ("impact", "full")
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_INPUT = re.compile(r"\(input t(\d+)/p(\d+)/#(\d+)\)")


def new_run_id() -> str:
    """``20261122-031500-a1b2c3``: sortable by time, unique without coordination."""
    return f"{datetime.now(timezone.utc):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class TracedContext:
    """Write the program against this instead of the SparkContext::

    with TracedContext(spark, lineage="impact") as ctx:
        counts = ctx.textFile(path).flatMap(parse).reduceByKey(add)
        for record in counts.collect_traced(): ...
    """

    def __init__(
        self,
        spark,
        run_id: str | None = None,
        store: LineageStore | str | None = None,
        lineage: str = "impact",
        meta: dict | None = None,
    ):
        if lineage not in LINEAGE_MODES:
            raise IsolationError(f"unknown lineage mode {lineage!r}: use impact or full")
        self.sc = spark.sparkContext if hasattr(spark, "sparkContext") else spark
        self.full = lineage == "full"
        self.store = store if isinstance(store, LineageStore) else open_store(store)
        self.run_id = run_id or new_run_id()
        if not _RUN_ID.match(self.run_id):
            raise IsolationError(
                f"bad run id {self.run_id!r}: letters, digits, '.', '_' and '-' only"
            )
        self._stages: dict[int, dict] = {}
        self._sources: dict[int, dict] = {}
        self._expected: set[int] = set()
        """Stages an action needed every partition of."""
        self._partly: set[int] = set()
        """Stages an action reading only some partitions (take) needed: those Spark computed."""
        self._outputs: list[int] = []
        self._counts: dict[int, int] = {}
        self._read: dict[int, dict[int, int]] = {}
        """Output stage -> {partition: records} that actions reading some partitions read."""
        self._persisted: list = []
        self._finished = False
        self.program_context: object = self
        """What the program's datasets give as their ``context``: this context, or the one a
        traced script holds (script.ScriptContext)."""
        self.actions_run = 0
        """Spark jobs run for the program's actions so far (recompute's checks, once each)."""
        self.raises_as_spark = False
        """Does a failed action raise Spark's own error (carrying perfx's reading of it:
        ``errors.attach_reading``), as a traced script must, for the script's own handlers?
        Else it raises perfx's (``UdfError`` naming the record)."""
        self._use_driver_python()
        self.meta = {
            "run": self.run_id,
            "created": _now(),
            "lineage": lineage,
            "store": self.store.url,
            "app_id": self.sc.applicationId,
            "master": self.sc.master,
            "ids": ID_LAYOUT,
            **(meta or {}),
            "complete": False,
        }
        self.store.begin(self.run_id, self.meta)

    def _use_driver_python(self) -> None:
        """Local workers must import perfx: unless told otherwise, run them on this Python;
        told to run one that cannot import perfx, run them on this one instead, and say so."""
        if not self.sc.master.startswith("local"):
            return
        chosen = self.sc.pythonExec
        if not os.environ.get("PYSPARK_PYTHON"):
            self.sc.pythonExec = sys.executable
        elif chosen != sys.executable and not imports_perfx(chosen):
            self.sc.pythonExec = sys.executable
            print(
                f"perfx: the workers' Python the script names ({chosen}) cannot import perfx, "
                f"whose code a traced run's workers run: they run perfx's ({sys.executable})",
                file=sys.stderr,
            )

    def __enter__(self) -> TracedContext:
        return self

    def __exit__(self, kind, err, tb) -> None:
        if kind is None:
            self.finish()
        else:
            self._unpersist()

    # -- sources ---------------------------------------------------------------------------

    def textFile(
        self, path: str, minPartitions: int | None = None, use_unicode: bool = True
    ) -> TracedDataset:
        """Lines of a text file (or directory, or glob); each line's id locates it. Lines
        are str, or bytes with ``use_unicode=False``, as Spark's."""
        rdd = self.sc.textFile(path, minPartitions, use_unicode)
        return self._file_source(rdd, "textFile", path, "text", lambda: sources.text_splits(rdd))

    def wholeTextFiles(
        self, path: str, minPartitions: int | None = None, use_unicode: bool = True
    ) -> TracedDataset:
        """``(file path, content)`` per file; each file's id is its partition and number in it."""
        rdd = self.sc.wholeTextFiles(path, minPartitions, use_unicode)
        return self._file_source(rdd, "wholeTextFiles", path, "files", lambda: None)

    def _file_source(
        self, rdd, reader: str, path: str, kind: str, splits, batching=batches.SINGLE
    ) -> TracedDataset:
        """A source stage over ``rdd``, which reads ``path``; ``splits()`` locates its records
        (None: by partition and number); ``batching`` is how plain PySpark batches them (a
        text file's lines: one by one). An input Spark cannot list (a missing path) fails
        where the plain run fails, at the first action that reads it, with Spark's error: a
        program that catches it (``except Py4JJavaError``) goes on as it does plainly."""
        try:
            partitions, found = rdd.getNumPartitions(), splits()
        except Py4JJavaError:
            partitions, found = 0, None
        stage = self._new_stage("source", f"{reader}({path})", (), partitions, written=False)
        self._sources[stage] = {"kind": kind, "name": path, "splits": found}
        traced = rdd.mapPartitionsWithIndex(sources.text_source(stage, self.full))
        if rdd.name() is not None:  # Spark names a file's RDD after its path: so is this one
            traced.setName(rdd.name())
        name = f"{reader}({os.path.basename(path.rstrip('/'))})"
        return TracedDataset(self, traced, name, (stage,), batching)

    @property
    def read(self) -> _Reader:
        """``ctx.read.text(path).rdd``: what ``spark.read.text(path).rdd`` gives, traced."""
        return _Reader(self)

    def union(self, rdds: list[TracedDataset]) -> TracedDataset:
        """``SparkContext.union``: the records of all the datasets."""
        if not rdds:
            raise IsolationError("union needs at least one dataset")
        result = rdds[0]
        for other in rdds[1:]:
            result = result.union(other)
        return result

    def broadcast(self, value):
        """A plain Spark broadcast variable: the traced functions read it as usual."""
        return self.sc.broadcast(value)

    def accumulator(self, value, accum_param=None):
        """A plain Spark accumulator. Every traced dataset is computed once, so a task adds
        to it once per record (a plain program that computes a dataset twice adds twice)."""
        return self.sc.accumulator(value, accum_param)

    @property
    def defaultParallelism(self) -> int:
        return self.sc.defaultParallelism

    def setLogLevel(self, level: str) -> None:
        self.sc.setLogLevel(level)

    def setCheckpointDir(self, dirName: str) -> None:
        """Where Spark writes the datasets the program checkpoints (``checkpoint``)."""
        self.sc.setCheckpointDir(dirName)

    def getCheckpointDir(self) -> str | None:
        return self.sc.getCheckpointDir()

    def __getattr__(self, name: str):
        from pyspark import SparkContext

        from .dataset import untraced

        if not name.startswith("_") and hasattr(SparkContext, name):
            raise untraced(name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def emptyRDD(self) -> TracedDataset:
        """``SparkContext.emptyRDD``: no partition, no record."""
        stage = self._new_stage("source", "emptyRDD", (), 0, written=False)
        self._sources[stage] = {"kind": "collection", "name": "emptyRDD", "size": 0}
        rdd = self.sc.emptyRDD().mapPartitions(sources.collection_source(stage, self.full))
        return TracedDataset(self, rdd, "emptyRDD", (stage,))

    def range(
        self, start: int, end: int | None = None, step: int = 1, numSlices: int | None = None
    ) -> TracedDataset:
        """``SparkContext.range``: PySpark's own is a parallelized range."""
        if end is None:
            end, start = start, 0
        return self.parallelize(range(start, end, step), numSlices)

    def parallelize(self, c, numSlices: int | None = None) -> TracedDataset:
        """A local collection; its records' excerpts are stored as a source table."""
        data = list(c)
        stage = self._new_stage("source", "parallelize", (), 1, written=True)
        self._sources[stage] = {"kind": "collection", "name": "parallelize", "size": len(data)}
        rows = PartitionRows(self.full, output=True)
        base = partition_base(stage, 0)
        for index, value in enumerate(data):
            rows.add(base + index, 0, base + index, NO_LATENCY, 0)
            rows.add_output(value)
            if self.full:
                rows.add_inputs((), ())
        write_rows(self.store, self.run_id, stage, 0, rows)
        slices = int(numSlices) if numSlices is not None else self.sc.defaultParallelism
        if isinstance(c, range) and data:
            rdd, batching = self._range_slices(c, slices), batches.AUTO
        else:  # PySpark's list: in batches of this size, each partition whole batches
            rdd = self.sc.parallelize(list(enumerate(data)), slices)
            size = max(1, min(len(data) // slices, self.sc._batchSize or 1024))
            batching = batches.fixed(size)
        traced = rdd.mapPartitions(sources.collection_source(stage, self.full))
        return TracedDataset(self, traced, "parallelize", (stage,), batching)

    def _range_slices(self, values: builtins.range, slices: int):
        """(index, value) of a range in the slices PySpark's ``parallelize`` cuts a range
        into: slice k starts at index ``int(k * size / slices)``, where a list is cut at
        its serialized batches (``parallelize(range(1, 12), 3)`` is [1-3], [4-7], [8-11];
        as a list, [1-3], [4-6], [7-11])."""
        size = len(values)

        def start(split: int) -> int:
            return int(split * size / slices)

        def run_partition(split, nothing):
            return ((i, values[i]) for i in range(start(split), start(split + 1)))

        return self.sc.parallelize([], slices).mapPartitionsWithIndex(run_partition)

    # -- stages and actions (used by TracedDataset) ----------------------------------------

    def _new_stage(
        self, kind: str, name: str, inputs: tuple[int, ...], partitions: int, written: bool = True
    ) -> int:
        stage = len(self._stages)
        if stage >= MAX_TABLES:
            raise IsolationError(f"a traced run has at most {MAX_TABLES} stages")
        self._stages[stage] = {
            "kind": kind,
            "name": name,
            "inputs": list(inputs),
            "partitions": partitions,
            "written": written,
        }
        return stage

    def _costs_for(self, stage: int) -> int | None:
        """A costs table (costs.py) beside stage end ``stage`` when that stage reads source
        records directly, else None."""
        info = self._stages[stage]
        if not info["inputs"] or any(self._stages[i]["kind"] != "source" for i in info["inputs"]):
            return None
        costs = self._new_stage(
            "costs", f"{info['name']} record costs", (stage,), info["partitions"]
        )
        info["costs"] = costs
        return costs

    def _persist(self, rdd):
        rdd.persist(StorageLevel.MEMORY_AND_DISK)
        self._persisted.append(rdd)
        return rdd

    def _upstream(self, stage: int) -> set[int]:
        found, todo = set(), [stage]
        while todo:
            current = todo.pop()
            if current not in found:
                found.add(current)
                todo.extend(self._stages[current]["inputs"])
        costs = {self._stages[s]["costs"] for s in found if "costs" in self._stages[s]}
        return {s for s in found | costs if self._stages[s]["written"]}

    def _run_action(self, stage: int, action, reads_some: bool = False):
        """Runs ``action`` (a Spark job) of output stage ``stage``; ``reads_some``: it reads
        only some of the stage's partitions (take), so the run needs only what it computed."""
        if self._finished:
            raise IsolationError(f"run {self.run_id} is finished: start a new TracedContext")
        self.actions_run += 1
        before = set(self._partly), set(self._expected), list(self._outputs)
        if reads_some:
            self._partly |= self._upstream(stage)
        else:
            self._expected |= self._upstream(stage)
        if stage in self._outputs:  # the last action's dataset is the run's final output
            self._outputs.remove(stage)
        self._outputs.append(stage)
        try:
            return action()
        except IsolationError:
            raise
        except Exception as err:
            # a failed action needs nothing of the run: a script that catches its failure
            # goes on, and its run is whole without the failed partitions' lineage
            self._partly, self._expected, self._outputs = before
            found = from_job_failure(err)
            reading = (
                IsolationError(f"traced job failed: {_first_line(err)}")
                if found is None
                else type(found)(self._with_location(str(found)))
            )
            if self.raises_as_spark:
                attach_reading(err, reading)
                raise
            raise reading from None

    def _with_location(self, message: str) -> str:
        """Adds the file location of the input named by a task's error message."""
        match = _INPUT.search(message)
        if not match:
            return message
        table, partition, seq = (int(g) for g in match.groups())
        record_id = partition_base(table, partition) + seq
        where = sources.locate({"sources": self._source_meta()}, [record_id]).get(record_id, {})
        location = where.get("location")
        return message if not location else message.replace(match.group(0), f"(input {location})")

    def _returned(self, stage: int, records: int) -> None:
        """How many records an action on output stage ``stage`` got back (checked against
        the rows the stage stored when the run finishes)."""
        self._counts[stage] = records

    def _read_partitions(self, stage: int, sizes: dict[int, int]) -> None:
        """The partitions of output stage ``stage`` an action reading only some read, with
        their records (checked against the rows each stored when the run finishes)."""
        self._read.setdefault(stage, {}).update(sizes)

    def _needed(self, stage: int, stored: set[int]) -> set[int]:
        """The partitions of ``stage`` the run's actions needed: all of them for an action
        reading every partition; those read for an output stage (or its costs table) only
        actions like take read; else those Spark computed for such an action."""
        if stage in self._expected:
            return set(range(self._stages[stage]["partitions"]))
        owner = next((s for s, info in self._stages.items() if info.get("costs") == stage), stage)
        return set(self._read[owner]) if owner in self._read else stored

    def _source_meta(self) -> dict:
        return {str(stage): source for stage, source in self._sources.items()}

    # -- completion ------------------------------------------------------------------------

    def _unpersist(self) -> None:
        for rdd in self._persisted:
            rdd.unpersist()
        self._persisted.clear()

    def finish(self) -> dict:
        """Checks that every expected partition's lineage is stored, then marks the run
        complete; returns the run's metadata."""
        if self._finished:
            return self.meta
        self._unpersist()
        written = self.store.partitions(self.run_id)
        missing = []
        stages = {}
        for stage in sorted(self._expected | self._partly):
            info = self._stages[stage]
            rows = written[written.stage == stage]
            stored = set(rows.partition.tolist())
            needed = self._needed(stage, stored)
            absent = sorted(needed - stored)
            if absent:
                missing.append(f"stage {stage} partition(s) {', '.join(map(str, absent[:10]))}")
            stages[str(stage)] = {
                **{k: v for k, v in info.items() if k != "written"},
                "rows": int(rows["rows"].sum()),
                "spark_stages": sorted(int(s) for s in set(rows.spark_stage) if s >= 0),
            }
            if len(needed) < info["partitions"]:  # the others were never computed
                stages[str(stage)]["computed"] = sorted(int(p) for p in needed)
        if missing:
            raise IsolationError(
                f"run {self.run_id} is incomplete: no lineage for {'; '.join(missing)}"
            )
        self._check_outputs(written)
        self.meta = {
            **self.meta,
            "finished": _now(),
            "stages": stages,
            "outputs": self._outputs,
            "sources": self._source_meta(),
            "complete": True,
        }
        self.store.mark_complete(self.run_id, self.meta)
        self._finished = True
        return self.meta

    def _check_outputs(self, written) -> None:
        """The run's own invariants on its output stages: each stored as many rows as its
        action got records, and every output row's most impactful source is a record of a
        source stage (or -1: derived from no input, a partition function's output on an
        empty partition). A violation is an error naming the stage and partition."""
        import duckdb

        tables = self.store.tables(self.run_id)
        sources = sorted(s for s, info in self._stages.items() if info["kind"] == "source")
        for stage in self._outputs:
            rows = written[written.stage == stage]
            stored = int(rows["rows"].sum())
            returned = self._counts.get(stage)
            if returned is not None and stored != returned:
                raise IsolationError(
                    f"run {self.run_id} is wrong: output stage {stage} stored {stored} row(s) "
                    f"but its action got {returned} record(s)"
                )
            read = self._read.get(stage, {})
            by_partition = rows.groupby("partition")["rows"].sum() if read else {}
            for partition, records in sorted(read.items()):
                kept = int(by_partition.get(partition, 0))
                if kept != records:
                    raise IsolationError(
                        f"run {self.run_id} is wrong: output stage {stage} partition "
                        f"{partition} stored {kept} row(s) but its action read {records} "
                        "record(s)"
                    )
            if stage not in tables:  # no partition (emptyRDD's): no row to check
                continue
            con = duckdb.connect()
            con.register("t", tables[stage])
            stray = con.execute(
                f"""SELECT partition, most_impactful_source FROM t
                    WHERE most_impactful_source <> {NO_SOURCE}
                      AND NOT list_contains({sources}, most_impactful_source >> {TABLE_SHIFT})
                    LIMIT 1"""
            ).fetchall()
            con.close()
            if stray:
                partition, source = stray[0]
                raise IsolationError(
                    f"run {self.run_id} is wrong: stage {stage} partition {partition} has an "
                    f"output whose source {describe_id(source)} is not an input record"
                )


class _Reader:
    """``ctx.read``: the text reader of ``spark.read``, whose ``.rdd`` is traced."""

    def __init__(self, ctx: TracedContext):
        self._ctx = ctx

    def text(self, path: str) -> _Frame:
        from pyspark.sql import SparkSession

        return _Frame(self.scanned(SparkSession(self._ctx.sc).read.text(path).rdd, path))

    def scanned(self, rows, path: str) -> TracedDataset:
        """``rows``, the ``.rdd`` of a DataFrame ``spark.read.text(path)`` gave, traced: its
        rows in the partitions Spark's file scan gives them (several small files packed in
        one, a large one cut), so that what a program does with them is laid out as in its
        plain run. (Read by ``textFile``, a word count printed its words in another order.)"""
        ctx = self._ctx
        return ctx._file_source(
            rows, "read.text", path, "text", lambda: sources.scan_splits(rows), batches.AUTO
        )


class _Frame:
    """What ``spark.read.text(path)`` gives, as far as a traced program uses it: ``.rdd``."""

    def __init__(self, rdd: TracedDataset):
        self.rdd = rdd


_PYTHON_RAISED = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)(?:: .*)?$")
"""A Python traceback's last line: the exception raised (``ModuleNotFoundError: No module
named 'perfx'``)."""


def _first_line(err: BaseException) -> str:
    """The line of a failed job's error that says what failed. A Python worker's error
    begins "An exception was thrown from the Python worker", which says nothing of what: its
    traceback's exception does."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    if any("An exception was thrown from the Python worker" in line for line in lines):
        raised = [line for line in lines if _PYTHON_RAISED.match(line)]
        if raised:
            return raised[-1][:300] + _worker_without_perfx(raised[-1])
    for line in lines:
        if not line.startswith(("Traceback", "at ", "File ")):
            return line[:300]
    return type(err).__name__


def imports_perfx(python: str) -> bool:
    """Can the interpreter ``python`` import perfx, as the workers it runs must? Tutorials'
    scripts name their workers' interpreter (``PYSPARK_PYTHON``), and a plain run's workers
    need only PySpark, which Spark hands them; a traced run's failed on that interpreter
    (a probe of public PySpark programs). One the system cannot run is left to fail in
    Spark as it does plainly."""
    import subprocess

    try:
        done = subprocess.run(
            [python, "-c", "import perfx"], capture_output=True, timeout=60, cwd=os.getcwd()
        )
    except (OSError, subprocess.TimeoutExpired):
        return True
    return done.returncode == 0


def _worker_without_perfx(raised: str) -> str:
    """What to do where the workers' Python cannot import perfx: a script that picks its
    workers' interpreter (``PYSPARK_PYTHON``, as tutorials set it) picks one without perfx,
    whose code a traced run's workers run (a probe of public PySpark programs)."""
    if "No module named 'perfx'" not in raised:
        return ""
    chosen = os.environ.get("PYSPARK_PYTHON") or "the workers' Python"
    return (
        f": the workers ran {chosen}, which cannot import perfx, and a traced run's workers "
        f"run perfx's code: let them run perfx's Python ({sys.executable}), e.g. by not "
        "setting PYSPARK_PYTHON in the script"
    )
