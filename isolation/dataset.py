"""TracedDataset: the RDD-like API a traced program is written against.

Underneath is an RDD of provenance tuples (records.py). Narrow operators stay narrow;
shuffle operators are a combine (a stage end that writes lineage), a real Spark
``partitionBy`` and a merge; actions add an output stage end. A dataset that gets a second
consumer is persisted, and so is every action's output, so that no traced work is computed
twice: a recomputation would time the same records again.

The public API is the RDD's, method for method (names, arguments, results): what a plain
program calls on an RDD it calls here. Operators that only move records (repartition,
coalesce, partitionBy, sorts, sample, zipWithIndex) leave each record's provenance as it
was; join-like operators (joins, cogroup, subtract, intersection) end a stage on both sides.
Actions other than collect and count run Spark's own action on the output values after the
output stage is computed and traced in full, so they return exactly what plain Spark
returns (their own function, reduce's say, runs untimed); those that read only some
partitions (a partitioned lookup, toLocalIterator), or only some records (take, first,
isEmpty), compute and trace only those, as Spark does. Anything else the RDD has raises an
IsolationError naming the program's line and what to use instead.
"""

from __future__ import annotations

import copy
import functools
import inspect
import sys
import warnings
from typing import cast

from pyspark.accumulators import AccumulatorParam
from pyspark.core.rdd import RDD, portable_hash
from pyspark.resultiterable import ResultIterable
from pyspark.storagelevel import StorageLevel

from . import batches, narrow, output, shuffle
from .callers import from_pyspark, program_line, pyspark_call
from .errors import IsolationError, PlainSideError
from .ids import split_id
from .recompute import adds_to_accumulator, mark_computed, recomputed_plainly
from .records import TracedRecord


def _single(value):
    return [value]


def _append(values, value):
    values.append(value)
    return values


def _extend(values, more):
    values.extend(more)
    return values


def _keep_first(first, _):
    return first


def _as_key(value):
    return value, None


def _keyed_record(record):
    """A provenance tuple keyed by its record's key (its first item, as PySpark's sort reads
    it), for Spark's own sorts and partitioners."""
    try:
        key = record[0][0]
    except (TypeError, IndexError, KeyError):
        raise shuffle.not_a_pair(record, "a keyed operator") from None
    return key, record


def _record(pair):
    return pair[1]


def _value_of(row):
    return row[0]


def _whole(values):
    return values


def _listed(records):
    return [list(records)]


class _PartitionFunction:
    """Stands for an RDD in a call of an RDD method that only maps its partitions
    (``RDD.pipe``): gives back the function the method would map them with."""

    def mapPartitions(self, function, preservesPartitioning: bool = False):
        return function


def called_at(depth: int = 2) -> str:
    """``file:line`` of the program line that called the operator (``depth`` frames up)."""
    frame = sys._getframe(depth)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def untraced(operator: str, depth: int = 3) -> IsolationError:
    """The error for a program calling an RDD operator that is not traced: at its line."""
    return IsolationError(
        f"{called_at(depth)}: {operator} is not traced by perfx; use the traced operators "
        "listed in the README (Isolation) instead"
    )


NOT_STORED = StorageLevel(False, False, False, False, 1)
"""The storage level Spark gives an RDD that is not persisted."""


def _plain_action(name: str):
    """A method of ``TracedDataset`` that runs Spark's own action ``name`` (an RDD method)
    on the output values (``TracedDataset._on_values``), with the program's arguments, checked
    against the RDD method's before anything runs."""
    signature = inspect.signature(getattr(RDD, name))

    def action(self, *args, **kwargs):
        try:
            signature.bind(self, *args, **kwargs)
        except TypeError:
            # raised as the plain program gets it ("RDD.takeSample() missing 2 required
            # positional arguments: ..."): the RDD method fails binding these arguments,
            # before its body runs
            getattr(RDD, name)(self, *args, **kwargs)
            raise
        return self._on_values(lambda values: getattr(values, name)(*args, **kwargs))

    action.__name__ = action.__qualname__ = name
    action.__doc__ = f"Spark's ``{name}`` of the output values, every record traced first."
    return action


class _PartitionSizes(AccumulatorParam):
    """An accumulator of ``{partition: records}``: which output partitions an action read,
    and how many records each held (a partition read twice counts once)."""

    def zero(self, value):
        return {}

    def addInPlace(self, value1, value2):
        value1.update(value2)
        return value1


def _sized_values(sizes):
    """A partition function giving the output values of a partition, whole, after adding
    its size to ``sizes``: an action may stop reading a partition early (take), and the run
    checks each partition it read against the rows that partition stored."""

    def values_of(index, rows):
        values = [row[0] for row in rows]
        sizes.add({index: len(values)})
        return values

    return values_of


class TracedDataset:
    """A distributed dataset whose records carry their provenance; use it like an RDD."""

    def __init__(
        self,
        ctx,
        rdd,
        name: str,
        stage_inputs: tuple[int, ...],
        batching: batches.Batching = batches.AUTO,
        parents: tuple[TracedDataset, ...] = (),
        shuffled: bool = False,
        adds: bool = False,
    ):
        self.ctx = ctx
        self.label = name
        self._rdd = rdd
        self._stage_inputs = stage_inputs
        self._parents = parents
        """The datasets this one was made from (isolation.recompute)."""
        self._shuffled = shuffled
        """Made by a shuffle: plain Spark reads its shuffle files again rather than compute
        what it was made from."""
        self._adds = adds
        """Does its own function add to an accumulator (recompute.adds_to_accumulator)?"""
        self._computed = False
        self._plain_cached = False
        self._checked_at = -1
        """The action (ctx.actions_run) whose side effects were last checked."""
        self._consumers = 0
        self._persisted = False
        self._asked: StorageLevel | None = None
        """The storage level the program asked for (None: it did not, or it unpersisted):
        what Spark says of the dataset, whatever perfx keeps of it."""
        self._output: tuple[int, RDD] | None = None
        self._materialized = False
        self._batching = batching
        """How plain PySpark batches this dataset's records (batches.py): a Python
        function's output unless a source or ``union`` says otherwise."""

    def __repr__(self) -> str:
        """Spark's own words for the RDD underneath (``PythonRDD[7] at RDD at ...``): a
        program printing its RDD prints what Spark says of one."""
        return repr(self._rdd)

    @property  # type: ignore[misc]  # read-only where object's may be assigned
    def __class__(self):
        """The class of the RDD underneath (``PipelinedRDD``), as ``isinstance`` sees it: a
        program that tells an RDD from a list by ``isinstance(data, RDD)`` took a traced
        dataset for a list and printed another answer, with exit 0 (a probe of PySpark
        programs). ``type()`` still says what it is, and so perfx's own checks
        (``isinstance(value, TracedDataset)``) are unchanged."""
        return type(self._rdd)

    def getNumPartitions(self) -> int:
        return self._rdd.getNumPartitions()

    # -- what Spark says of the dataset (its values are untouched) ------------------------

    @property
    def context(self):
        """The context the program holds: the traced one, or for a script the context it
        was handed (``rdd.context.getConf()`` reads Spark's configuration)."""
        return self.ctx.program_context

    @property
    def is_cached(self) -> bool:
        return self._asked is not None

    @property
    def partitioner(self):
        return self._rdd.partitioner

    def setName(self, name: str) -> TracedDataset:
        self._rdd.setName(name)
        return self

    def name(self) -> str | None:
        return self._rdd.name()

    def id(self) -> int:
        return self._rdd.id()

    def getStorageLevel(self) -> StorageLevel:
        """The level the program asked for, as Spark says it: perfx's own caching of a
        dataset read twice is not the program's."""
        return self._asked or NOT_STORED

    def toDebugString(self) -> bytes | None:
        return self._rdd.toDebugString()

    def isCheckpointed(self) -> bool:
        return self._rdd.isCheckpointed()

    def isLocallyCheckpointed(self) -> bool:
        return self._rdd.isLocallyCheckpointed()

    def getCheckpointFile(self) -> str | None:
        return self._rdd.getCheckpointFile()

    def __getattr__(self, name: str):
        if not name.startswith("_") and hasattr(RDD, name):
            raise untraced(name)
        if not name.startswith("__") and from_pyspark():
            # PySpark's own RDD code took this dataset for an RDD: a plain RDD's join, union,
            # zip... given a traced dataset, which failed on "no attribute '_jrdd_deserializer'"
            operator, line = pyspark_call()
            raise PlainSideError(
                f"{line}: {operator} of a plain RDD (a DataFrame's .rdd, say), whose records "
                "perfx does not trace, with a traced dataset: perfx traces only the datasets "
                "of its own context"
            )
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    # -- plumbing --------------------------------------------------------------------------

    def _consume(self):
        """The RDD for one more consumer: persisted when it is the second one."""
        self._consumers += 1
        if self._consumers == 2:
            self._persist()
        return self._rdd

    def _persist(self) -> None:
        if not self._persisted:
            self._persisted = True
            self.ctx._persist(self._rdd)

    def _derived(
        self,
        rdd,
        name: str,
        stage_inputs: tuple[int, ...] | None = None,
        shuffled: bool = False,
        adds: bool = False,
    ):
        inputs = self._stage_inputs if stage_inputs is None else stage_inputs
        label = f"{self.label}.{name}"
        return TracedDataset(
            self.ctx, rdd, label, inputs, parents=(self,), shuffled=shuffled, adds=adds
        )

    def _same_context(self, other: TracedDataset, operator: str) -> None:
        """A two-dataset operator's other side must be a traced dataset of this context: a
        plain RDD (a DataFrame's ``.rdd``) failed with "join needs two datasets of the same
        TracedContext", naming neither the program's line nor the plain side (a probe of
        PySpark programs)."""
        if isinstance(other, TracedDataset) and other.ctx is self.ctx:
            return
        if isinstance(other, TracedDataset):
            what = "a dataset of another traced context"
        elif isinstance(other, RDD):
            what = "a plain RDD (a DataFrame's .rdd, say), whose records perfx does not trace"
        else:
            what = f"a {type(other).__name__}"
        raise IsolationError(
            f"{program_line()}: {operator} of a traced dataset with {what}: perfx traces "
            "only the datasets of its own context"
        )

    def _narrow(self, factory, function, name: str, keeps_partitioning: bool) -> TracedDataset:
        rdd = self._consume().mapPartitions(
            factory(function, self.ctx.full), preservesPartitioning=keeps_partitioning
        )
        return self._derived(rdd, name, adds=adds_to_accumulator(function))

    # -- narrow operators ------------------------------------------------------------------

    def map(self, f, preservesPartitioning: bool = False) -> TracedDataset:
        return self._narrow(narrow.map_records, f, "map", preservesPartitioning)

    def flatMap(self, f, preservesPartitioning: bool = False) -> TracedDataset:
        return self._narrow(narrow.flat_map, f, "flatMap", preservesPartitioning)

    def filter(self, f) -> TracedDataset:
        return self._narrow(narrow.filter_records, f, "filter", True)

    def mapValues(self, f) -> TracedDataset:
        return self._narrow(narrow.map_values, f, "mapValues", True)

    def flatMapValues(self, f) -> TracedDataset:
        return self._narrow(narrow.flat_map_values, f, "flatMapValues", True)

    def keyBy(self, f) -> TracedDataset:
        return self._narrow(narrow.key_by, f, "keyBy", False)

    def keys(self) -> TracedDataset:
        rdd = self._consume().mapPartitions(narrow.keys(self.ctx.full))
        return self._derived(rdd, "keys")

    def values(self) -> TracedDataset:
        rdd = self._consume().mapPartitions(narrow.values(self.ctx.full))
        return self._derived(rdd, "values")

    def _per_partition(
        self, f, with_index: bool, name: str, preservesPartitioning: bool = False
    ) -> TracedDataset:
        """``f`` over each whole partition: every output of a partition derives from every
        record of it (the whole call is timed once); outputs of an empty partition derive
        from no input record."""
        function = narrow.map_partitions(f, with_index, self.ctx.full)
        rdd = self._consume().mapPartitionsWithIndex(function, preservesPartitioning)
        return self._derived(rdd, name, adds=adds_to_accumulator(f))

    def mapPartitions(self, f, preservesPartitioning: bool = False) -> TracedDataset:
        return self._per_partition(f, False, "mapPartitions", preservesPartitioning)

    def mapPartitionsWithIndex(self, f, preservesPartitioning: bool = False) -> TracedDataset:
        return self._per_partition(f, True, "mapPartitionsWithIndex", preservesPartitioning)

    def mapPartitionsWithSplit(self, f, preservesPartitioning: bool = False) -> TracedDataset:
        """PySpark's deprecated name of ``mapPartitionsWithIndex`` (with its warning)."""
        warnings.warn(
            "mapPartitionsWithSplit is deprecated; use mapPartitionsWithIndex instead",
            FutureWarning,
            stacklevel=2,
        )
        return self.mapPartitionsWithIndex(f, preservesPartitioning)

    def glom(self) -> TracedDataset:
        """Each partition's records as one list, derived from all of them (an empty
        partition's empty list from none)."""
        return self._per_partition(_listed, False, "glom")

    def pipe(self, command: str, env=None, checkCode: bool = False) -> TracedDataset:
        """Each partition's records piped through ``command`` by PySpark's own function, its
        output lines derived from all of them."""
        piped = RDD.pipe(cast(RDD, _PartitionFunction()), command, env, checkCode)
        return self._per_partition(piped, False, "pipe")

    def _with(
        self, other: TracedDataset, operator: str, rdd, batching: batches.Batching = batches.AUTO
    ) -> TracedDataset:
        """``rdd``, made by ``operator`` from this dataset and ``other``, as a dataset of
        both's inputs (batched as ``batching`` in the plain run)."""
        inputs = tuple(dict.fromkeys(self._stage_inputs + other._stage_inputs))
        name = f"{self.label}.{operator}({other.label})"
        return TracedDataset(self.ctx, rdd, name, inputs, batching, parents=(self, other))

    def union(self, other: TracedDataset) -> TracedDataset:
        """Both parents' records, each keeping its own provenance (and its batching, which
        PySpark keeps when both sides batch alike)."""
        self._same_context(other, "union")
        batching = self._batching if self._batching == other._batching else batches.AUTO
        return self._with(other, "union", self._consume().union(other._consume()), batching)

    def __add__(self, other: TracedDataset) -> TracedDataset:
        """``a + b``: PySpark's union of two datasets."""
        if not isinstance(other, TracedDataset):
            raise TypeError(
                f"unsupported operand type(s) for +: 'RDD' and {type(other).__name__!r}"
            )
        return self.union(other)

    def sample(self, withReplacement: bool, fraction: float, seed: int | None = None):
        """The records Spark's sampler picks (the same ones as plain Spark for a seed)."""
        rdd = self._consume().sample(withReplacement, fraction, seed)
        return self._derived(rdd, "sample")

    def sampleByKey(self, withReplacement: bool, fractions: dict, seed: int | None = None):
        """The records PySpark's stratified sampler picks (the same ones for a seed: it sees
        the same values in the same order)."""
        from pyspark.rddsampler import RDDStratifiedSampler

        for fraction in fractions.values():
            assert fraction >= 0.0, f"Invalid fraction value: {fraction}"
        sampler = RDDStratifiedSampler(withReplacement, fractions, seed)
        rdd = self._consume().mapPartitionsWithIndex(narrow.picked(sampler.func), True)
        return self._derived(rdd, "sampleByKey")

    def randomSplit(self, weights, seed: int | None = None) -> list[TracedDataset]:
        """The parts Spark's own split picks (the same records as plain Spark for a seed:
        its samplers see the same records in the same order). Each part reads this
        dataset: counted as a consumer once per part, it is computed and traced once."""
        for _ in weights[1:]:
            self._consume()
        parts = self._consume().randomSplit(weights, seed)
        return [self._derived(part, f"randomSplit[{k}]") for k, part in enumerate(parts)]

    def zip(self, other: TracedDataset) -> TracedDataset:
        """Each (a, b) pair of the records at the same place of the same partition, derived
        from both (Spark's own zip: the same partitions, as many records in each)."""
        self._same_context(other, "zip")
        full = self.ctx.full
        paired = self._consume().zip(other._consume())
        return self._with(other, "zip", paired.map(lambda ab: narrow.pair(ab, full)))

    def cartesian(self, other: TracedDataset) -> TracedDataset:
        """Every (a, b) pair, derived from both records, in plain PySpark's order: each side's
        partition is one list of its records in the plain run's batches (batches.py), and
        each pair of partitions gives, for each left batch and right batch, their product."""
        self._same_context(other, "cartesian")
        full = self.ctx.full
        left, right = self._in_plain_batches(), other._in_plain_batches()
        paired = left.cartesian(right).flatMap(lambda lr: narrow.batch_pairs(lr[0], lr[1], full))
        return self._with(other, "cartesian", paired)

    def _in_plain_batches(self):
        """This dataset's RDD, one element per partition: its records in plain batches."""
        batching = self._batching

        def batched(records):
            return [batches.plain_batches(batching, list(records))]

        return self._consume().mapPartitions(batched)

    def zipWithIndex(self) -> TracedDataset:
        """Spark counts the partitions first (a job): the input is persisted so that it is
        computed and traced once."""
        self._persist()
        return self._derived(self._consume().zipWithIndex().map(narrow.with_index), "zipWithIndex")

    def zipWithUniqueId(self) -> TracedDataset:
        rdd = self._consume().zipWithUniqueId().map(narrow.with_index)
        return self._derived(rdd, "zipWithUniqueId")

    # -- moving records: provenance travels with each record --------------------------------

    def repartition(self, numPartitions: int) -> TracedDataset:
        rdd = self._consume().repartition(numPartitions)
        return self._derived(rdd, "repartition", shuffled=True)

    def coalesce(self, numPartitions: int, shuffle: bool = False) -> TracedDataset:
        rdd = self._consume().coalesce(numPartitions, shuffle)
        return self._derived(rdd, "coalesce", shuffled=shuffle)

    def partitionBy(self, numPartitions: int, partitionFunc=portable_hash) -> TracedDataset:
        rdd = (
            self._consume()
            .map(_keyed_record)
            .partitionBy(numPartitions, partitionFunc)
            .map(_record, preservesPartitioning=True)
        )
        return self._derived(rdd, "partitionBy", shuffled=True)

    def sortByKey(self, ascending: bool = True, numPartitions=None, keyfunc=lambda x: x):
        """Spark's own sort of the records by key; Spark samples the keys first (a job), so
        the input is persisted and computed and traced once."""
        keyed = self.ctx._persist(self._consume().map(_keyed_record))
        rdd = keyed.sortByKey(ascending, numPartitions, keyfunc).map(_record)
        return self._derived(rdd, "sortByKey", shuffled=True)

    def repartitionAndSortWithinPartitions(
        self, numPartitions=None, partitionFunc=portable_hash, ascending=True, keyfunc=lambda x: x
    ) -> TracedDataset:
        """Spark's own partitioning and sort of the records by key, each record keeping its
        provenance (``sortByKey``'s way)."""
        keyed = self._consume().map(_keyed_record)
        rdd = keyed.repartitionAndSortWithinPartitions(
            numPartitions, partitionFunc, ascending, keyfunc
        ).map(_record, preservesPartitioning=True)
        return self._derived(rdd, "repartitionAndSortWithinPartitions", shuffled=True)

    def sortBy(self, keyfunc, ascending: bool = True, numPartitions=None) -> TracedDataset:
        return self.keyBy(keyfunc).sortByKey(ascending, numPartitions).values()

    def persist(self, storageLevel: StorageLevel = StorageLevel.MEMORY_ONLY) -> TracedDataset:
        """Computed and traced once, whatever the storage level asked (kept until the run
        finishes); Spark's answers about it (``getStorageLevel``, ``is_cached``) are the
        ones the program asked for."""
        self._asked = storageLevel
        self._persist()
        return self

    def cache(self) -> TracedDataset:
        return self.persist(StorageLevel.MEMORY_ONLY)

    def checkpoint(self) -> None:
        """Spark's checkpoint of the records underneath: written to the program's checkpoint
        directory by a job of their own once a job has computed them (Spark's error where the
        program set no directory), and read back from there by later jobs, as plainly. Like
        a plain program's, that job computes them again unless they are kept; the records it
        writes are the same, with their provenance."""
        self._rdd.checkpoint()

    def localCheckpoint(self) -> None:
        """Spark's local checkpoint of the records underneath: kept by the executors, the
        lineage cut, where a job computes them (PySpark's own marks an RDD that a later
        dataset's pipelined functions may pass over, as plainly)."""
        self._rdd.localCheckpoint()

    def unpersist(self, blocking: bool = False) -> TracedDataset:
        """Kept until the run finishes: computing it again would trace its records twice.
        Spark's answers about it are those of an RDD no longer stored."""
        self._asked = None
        self._plain_cached = False
        return self

    # -- shuffles --------------------------------------------------------------------------

    def _reduce_partitions(self, numPartitions: int | None) -> int:
        if numPartitions:
            return numPartitions
        sc = self._rdd.context
        if sc.getConf().contains("spark.default.parallelism"):
            return sc.defaultParallelism
        return self._rdd.getNumPartitions()

    def combineByKey(
        self,
        createCombiner,
        mergeValue,
        mergeCombiners,
        numPartitions=None,
        partitionFunc=portable_hash,
        name: str = "combineByKey",
    ) -> TracedDataset:
        partitions = self._reduce_partitions(numPartitions)
        rdd = self._consume()
        stage = self.ctx._new_stage(
            "combine", f"{self.label}.{name}", self._stage_inputs, rdd.getNumPartitions()
        )
        combined = rdd.mapPartitionsWithIndex(
            shuffle.combine(
                createCombiner,
                mergeValue,
                self.ctx.run_id,
                stage,
                self.ctx.store,
                self.ctx.full,
                self.ctx._costs_for(stage),
            )
        )
        merged = combined.partitionBy(partitions, partitionFunc).mapPartitionsWithIndex(
            shuffle.merge(mergeCombiners, self.ctx.full), preservesPartitioning=True
        )
        # the reduce side's function runs again plainly; the map side's once (its files are read)
        adds = adds_to_accumulator(mergeCombiners)
        return self._derived(merged, name, (stage,), shuffled=True, adds=adds)

    def reduceByKey(self, func, numPartitions=None, partitionFunc=portable_hash) -> TracedDataset:
        return self.combineByKey(
            lambda v: v, func, func, numPartitions, partitionFunc, name="reduceByKey"
        )

    def aggregateByKey(
        self, zeroValue, seqFunc, combFunc, numPartitions=None, partitionFunc=portable_hash
    ) -> TracedDataset:
        @functools.wraps(seqFunc)  # an error in it names the program's function
        def create(value):
            return seqFunc(copy.deepcopy(zeroValue), value)

        return self.combineByKey(
            create, seqFunc, combFunc, numPartitions, partitionFunc, name="aggregateByKey"
        )

    def groupByKey(self, numPartitions=None, partitionFunc=portable_hash) -> TracedDataset:
        """Each key's values as a ResultIterable, as PySpark's (a program reads its ``data``
        or ``maxindex``, or prints its type)."""
        grouped = self.combineByKey(
            _single, _append, _extend, numPartitions, partitionFunc, name="groupByKey"
        )
        iterable = grouped._rdd.mapPartitions(
            narrow.map_values(ResultIterable, self.ctx.full), preservesPartitioning=True
        )
        return TracedDataset(
            self.ctx, iterable, grouped.label, grouped._stage_inputs, parents=(grouped,)
        )

    def groupBy(self, f, numPartitions=None, partitionFunc=portable_hash) -> TracedDataset:
        """The records grouped by ``f(record)``: PySpark's own groupBy is this keyBy and
        groupByKey."""
        return self.keyBy(f).groupByKey(numPartitions, partitionFunc)

    def foldByKey(self, zeroValue, func, numPartitions=None, partitionFunc=portable_hash):
        @functools.wraps(func)  # an error in it names the program's function
        def create(value):
            return func(copy.deepcopy(zeroValue), value)

        return self.combineByKey(create, func, func, numPartitions, partitionFunc, name="foldByKey")

    def distinct(self, numPartitions=None) -> TracedDataset:
        """Each record once, derived from all of its copies."""
        keyed = self._narrow(narrow.map_records, _as_key, "distinct", False)
        return keyed.combineByKey(
            _single, _keep_first, _keep_first, numPartitions, name="distinct"
        ).keys()

    def _cogrouped(self, others: tuple, operator: str, emit, numPartitions=None, pairs=True):
        """A join-like operator: each side (this dataset and ``others``) tagged (a stage end
        each), shuffled together, and ``emit`` (shuffle.py) makes a key's outputs from the
        payloads of each side."""
        for other in others:
            self._same_context(other, operator)
        datasets = (self, *others)
        partitions = self._joined_partitions(datasets, numPartitions, pairs)
        name = f"{self.label}.{operator}({', '.join(other.label for other in others)})"
        sides = []
        for side, dataset in enumerate(datasets):
            rdd = dataset._consume()
            stage = self.ctx._new_stage(
                "combine", f"{name}[{side}]", dataset._stage_inputs, rdd.getNumPartitions()
            )
            tag = shuffle.join_tag(
                side,
                self.ctx.run_id,
                stage,
                self.ctx.store,
                self.ctx.full,
                pairs,
                self.ctx._costs_for(stage),
            )
            sides.append((stage, rdd.mapPartitionsWithIndex(tag)))
        united = sides[0][1]
        for _, tagged in sides[1:]:
            united = united.union(tagged)
        joined = united.partitionBy(partitions).mapPartitionsWithIndex(
            shuffle.join_merge(self.ctx.full, emit, len(sides)), preservesPartitioning=True
        )
        stages = tuple(stage for stage, _ in sides)
        return TracedDataset(self.ctx, joined, name, stages, parents=datasets, shuffled=True)

    def _joined_partitions(self, datasets: tuple, numPartitions, pairs: bool) -> int:
        """The partitions plain PySpark gives a join-like operator's output. PySpark unions
        both sides and groups the union (``pyspark.join``, ``RDD.cogroup``), so unless
        ``numPartitions`` or ``spark.default.parallelism`` says, it has the union's: both
        sides' together, or their common partitioner's when they are partitioned alike (the
        sides of a join keep it; subtract and intersection map the records first, which
        drops it). A join of two 2-partition datasets has 4 partitions, and so its records
        another order and ``saveAsTextFile`` 4 part files."""
        if numPartitions or self._rdd.context.getConf().contains("spark.default.parallelism"):
            return self._reduce_partitions(numPartitions)
        alike = all(dataset.partitioner == self.partitioner for dataset in datasets)
        if pairs and alike and self.partitioner is not None:
            return self.getNumPartitions()
        return sum(dataset.getNumPartitions() for dataset in datasets)

    def join(self, other: TracedDataset, numPartitions=None) -> TracedDataset:
        """Inner join: ``(k, (v, w))`` for every pair of a key, each with those two inputs."""
        return self._cogrouped((other,), "join", shuffle.inner, numPartitions)

    def leftOuterJoin(self, other: TracedDataset, numPartitions=None) -> TracedDataset:
        """A left record without a match is ``(k, (v, None))``, derived from it alone."""
        return self._cogrouped((other,), "leftOuterJoin", shuffle.left_outer, numPartitions)

    def rightOuterJoin(self, other: TracedDataset, numPartitions=None) -> TracedDataset:
        return self._cogrouped((other,), "rightOuterJoin", shuffle.right_outer, numPartitions)

    def fullOuterJoin(self, other: TracedDataset, numPartitions=None) -> TracedDataset:
        return self._cogrouped((other,), "fullOuterJoin", shuffle.full_outer, numPartitions)

    def cogroup(self, other: TracedDataset, numPartitions=None) -> TracedDataset:
        """``(k, (values of self, values of other))``, each a ResultIterable, derived from all
        of them."""
        return self._cogrouped((other,), "cogroup", shuffle.cogroup, numPartitions)

    def groupWith(self, other: TracedDataset, *others: TracedDataset) -> TracedDataset:
        """``cogroup`` of this dataset and one or more others: a key's values of each."""
        return self._cogrouped((other, *others), "groupWith", shuffle.cogroup)

    def subtractByKey(self, other: TracedDataset, numPartitions=None) -> TracedDataset:
        return self._cogrouped((other,), "subtractByKey", shuffle.subtract_by_key, numPartitions)

    def subtract(self, other: TracedDataset, numPartitions=None) -> TracedDataset:
        """The records of self that other lacks (records are their own keys)."""
        return self._cogrouped(
            (other,),
            "subtract",
            shuffle.subtract,
            numPartitions,
            pairs=False,
        )

    def intersection(self, other: TracedDataset) -> TracedDataset:
        """Each record both hold, once, derived from all of their copies."""
        return self._cogrouped((other,), "intersection", shuffle.intersection, pairs=False)

    # -- actions ---------------------------------------------------------------------------

    def _finalized(self, whole: bool = True) -> tuple[int, RDD]:
        """This dataset's output stage: computed once, persisted, then reused by every action
        (computing ``whole`` partitions, or only those it reads), after its side effects are
        checked (``_check_side_effects``)."""
        self._check_side_effects(whole)
        if self._output is None:
            rdd = self._consume()
            stage = self.ctx._new_stage(
                "output", self.label, self._stage_inputs, rdd.getNumPartitions()
            )
            finalized = rdd.mapPartitionsWithIndex(
                output.finalize(
                    self.ctx.run_id,
                    stage,
                    self.ctx.store,
                    self.ctx.full,
                    self.ctx._costs_for(stage),
                ),
                preservesPartitioning=True,  # a partitioned lookup reads one partition
            )
            self._output = (stage, self.ctx._persist(finalized))
        return self._output

    def _check_side_effects(self, whole: bool) -> None:
        """Refuse an action that plain Spark would run an accumulator-adding function again
        for, which the traced run computed before (isolation.recompute), once per action."""
        if self._checked_at == self.ctx.actions_run:
            return  # this action's (an action's own count, say)
        self._checked_at = self.ctx.actions_run
        again = recomputed_plainly(self)
        if again:
            made = ", ".join(d.label for d in again)
            raise IsolationError(
                f"{program_line()}: this action computes again, in plain Spark, the dataset "
                f"{made}, whose function adds to an accumulator: plain Spark adds again for "
                "each action on a dataset it does not keep, and a traced run computes it "
                "once, so the accumulator would hold another value; cache() it before its "
                "first action (plain Spark then computes it once too)"
            )
        mark_computed(self, whole)

    def collect_traced(self) -> list[TracedRecord]:
        """The records with their provenance: id, latency, most impactful source, remediated."""
        stage, rdd = self._finalized()
        rows = self.ctx._run_action(stage, rdd.collect)
        self._materialized = True
        self.ctx._returned(stage, len(rows))
        return [
            TracedRecord(value, out_id, total / 1e6, source, rest / 1e6)
            for value, out_id, total, source, rest in rows
        ]

    def collect(self) -> list:
        return [record.value for record in self.collect_traced()]

    def count(self) -> int:
        stage, rdd = self._finalized()
        found = self.ctx._run_action(stage, rdd.count)
        self._materialized = True
        self.ctx._returned(stage, found)
        return found

    def _on_values(self, action):
        """``action(values)`` on the plain RDD of this dataset's output values, after every
        output record is computed and traced (an action that reads only some partitions,
        such as take, would otherwise leave the others untraced): the action itself runs
        as Spark runs it on a plain RDD, with the same partitions in the same order."""
        stage, values = self._values()
        return self.ctx._run_action(stage, lambda: action(values))

    def _on_read_values(self, action):
        """``action(values)`` on the plain RDD of this dataset's output values, computing
        only the partitions the action reads, as plain Spark does (a partition it reads is
        computed whole: the output is kept): a take that computed every partition first
        failed on a bad record in one plain Spark never reads. The run records which
        partitions were read and their sizes, and checks them against the rows stored when
        it finishes."""
        stage, rdd = self._finalized(whole=False)
        sizes = self.ctx.sc.accumulator({}, _PartitionSizes())
        values = rdd.mapPartitionsWithIndex(_sized_values(sizes), preservesPartitioning=True)
        found = self.ctx._run_action(stage, lambda: action(values), reads_some=True)
        self.ctx._read_partitions(stage, sizes.value)
        return found

    def _values(self) -> tuple[int, RDD]:
        """This dataset's output stage and the plain RDD of its output values, every output
        record computed and traced first (and kept until the run finishes)."""
        stage, rdd = self._finalized()
        if not self._materialized:
            self.count()
        return stage, rdd.map(_value_of, preservesPartitioning=True)

    def toDF(self, schema=None, sampleRatio=None):
        """The output values as a DataFrame, by Spark's own ``toDF``: the records' lineage
        ends here (the dataset is an output of the traced run); what the DataFrame computes
        is Spark SQL, whose Python UDFs a traced script times as any others."""
        return self._values()[1].toDF(schema, sampleRatio)

    # Spark's own actions on the output values, with the arguments the program gave them
    # (the functions it passes run in the tasks, untimed)
    saveAsTextFile = _plain_action("saveAsTextFile")
    saveAsPickleFile = _plain_action("saveAsPickleFile")
    saveAsSequenceFile = _plain_action("saveAsSequenceFile")
    saveAsHadoopFile = _plain_action("saveAsHadoopFile")
    saveAsNewAPIHadoopFile = _plain_action("saveAsNewAPIHadoopFile")
    saveAsHadoopDataset = _plain_action("saveAsHadoopDataset")
    saveAsNewAPIHadoopDataset = _plain_action("saveAsNewAPIHadoopDataset")
    reduce = _plain_action("reduce")
    fold = _plain_action("fold")
    aggregate = _plain_action("aggregate")
    treeAggregate = _plain_action("treeAggregate")
    treeReduce = _plain_action("treeReduce")
    collectAsMap = _plain_action("collectAsMap")
    countByKey = _plain_action("countByKey")
    reduceByKeyLocally = _plain_action("reduceByKeyLocally")
    countByValue = _plain_action("countByValue")
    takeOrdered = _plain_action("takeOrdered")
    top = _plain_action("top")
    takeSample = _plain_action("takeSample")
    min = _plain_action("min")
    max = _plain_action("max")
    sum = _plain_action("sum")
    mean = _plain_action("mean")
    stats = _plain_action("stats")
    variance = _plain_action("variance")
    stdev = _plain_action("stdev")
    sampleVariance = _plain_action("sampleVariance")
    sampleStdev = _plain_action("sampleStdev")
    histogram = _plain_action("histogram")
    countApproxDistinct = _plain_action("countApproxDistinct")
    countApprox = _plain_action("countApprox")
    sumApprox = _plain_action("sumApprox")
    meanApprox = _plain_action("meanApprox")
    foreach = _plain_action("foreach")
    foreachPartition = _plain_action("foreachPartition")

    def lookup(self, key) -> list:
        """Spark's lookup of the output values: of a partitioned dataset, the one partition
        that holds ``key`` is computed (and traced)."""
        return self._on_read_values(lambda values: values.lookup(key))

    def take(self, num: int) -> list:
        """Spark's take of the output values: the partitions it scans, as Spark scans them,
        and in each only the records Spark's take reads, so that the records past them are
        never computed (a bad one fails neither run; a function's side effects happen as
        often). A dataset kept (cached), or whose output an earlier action traced, is read
        as Spark reads a cached one: whole partitions."""
        if self._output is not None or self._rdd.is_cached:
            return self._on_read_values(lambda values: values.take(num))
        return self._taken(num)

    def first(self):
        return RDD.first(cast(RDD, self))  # Spark's own: take(1), or its error when empty

    def isEmpty(self) -> bool:
        return RDD.isEmpty(cast(RDD, self))

    def _taken(self, num: int) -> list:
        """``take(num)`` as PySpark's ``RDD.take`` runs it (the same partitions scanned, a
        job at a time, each partition read up to the records still wanted), each job on an
        output stage end of its own that stops after those records and traces them. Like
        plain Spark, a take after another computes its records again (a take reads too
        little to be worth keeping the dataset for)."""
        ctx = self.ctx
        rdd = self._rdd  # not a consumer that keeps it: each take computes what it reads
        total = rdd.getNumPartitions()
        stage = ctx._new_stage("output", self.label, self._stage_inputs, total)
        costs = ctx._costs_for(stage)
        items: list = []
        read: dict[int, int] = {}
        scanned = 0
        while len(items) < num and scanned < total:
            tries = 1  # PySpark's own estimate of the partitions to scan next
            if scanned > 0:
                if not items:
                    tries = scanned * 4
                else:
                    tries = int(1.5 * num * scanned / len(items)) - scanned
                    tries = min(max(tries, 1), scanned * 4)
            left = num - len(items)
            job = rdd.mapPartitionsWithIndex(
                output.finalize(ctx.run_id, stage, ctx.store, ctx.full, costs, limit=left)
            )
            partitions = range(scanned, min(scanned + tries, total))
            rows = ctx._run_action(
                stage,
                lambda job=job, partitions=partitions: ctx.sc.runJob(job, _whole, partitions),
                reads_some=True,
            )
            read.update(dict.fromkeys(partitions, 0))
            for row in rows:
                read[split_id(row[1])[1]] += 1
            items += [row[0] for row in rows]
            scanned += tries
        ctx._read_partitions(stage, read)
        return items[:num]

    def toLocalIterator(self, prefetchPartitions: bool = False):
        """The output values in order, a partition at a time as the program reads on: as
        Spark's own iterator, each is computed (and traced) by a job of its own when the
        program reaches it, and one it never reaches is never computed."""
        for partition in range(self.getNumPartitions()):
            yield from self._on_read_values(
                lambda values, partition=partition: values.context.runJob(
                    values, _whole, [partition]
                )
            )
