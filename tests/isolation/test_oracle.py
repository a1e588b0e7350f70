"""Every traced operator against the oracle: plain PySpark and the traced run, in impact and
in full lineage, give the same output on data made to break provenance bookkeeping
(tests/isolation/oracle.py)."""

from __future__ import annotations

import re
import sys
import tempfile

import pytest

from tests.isolation.oracle import HOT, PAIRS, SMALL, assert_same_outputs, parse, plus, write_inputs

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return write_inputs(tmp_path_factory.mktemp("oracle") / "text")


def pairs(ctx, slices=4):
    return ctx.parallelize(PAIRS, slices)


def text_pairs(ctx, inputs):
    return ctx.textFile(inputs["text"], 3).map(parse)


def small(ctx):
    return ctx.parallelize(SMALL, 2)


PIPELINES = {
    "map": lambda ctx, i: pairs(ctx).map(lambda kv: (kv[1], kv[0])),
    "flatMap": lambda ctx, i: ctx.textFile(i["text"]).flatMap(lambda line: line.split(",")),
    "filter": lambda ctx, i: pairs(ctx).filter(lambda kv: kv[1] is not None and kv[1] % 2 == 0),
    "mapValues": lambda ctx, i: pairs(ctx).mapValues(lambda v: (v, v is None)),
    "flatMapValues": lambda ctx, i: pairs(ctx).flatMapValues(lambda v: range((v or 0) % 4)),
    "combineByKey": lambda ctx, i: pairs(ctx).combineByKey(
        lambda v: [v], lambda acc, v: acc + [v], lambda a, b: a + b, 3
    ),
    "reduceByKey": lambda ctx, i: text_pairs(ctx, i).reduceByKey(plus),
    "reduceByKey-parallelize": lambda ctx, i: pairs(ctx, 7).reduceByKey(plus, 5),
    "aggregateByKey": lambda ctx, i: pairs(ctx).aggregateByKey(
        (0, 0),
        lambda acc, v: (acc[0] + (v or 0), acc[1] + 1),
        lambda a, b: (a[0] + b[0], a[1] + b[1]),
    ),
    "groupByKey": lambda ctx, i: pairs(ctx).groupByKey(3),
    "groupByKey-text": lambda ctx, i: text_pairs(ctx, i).groupByKey().mapValues(list),
    "join": lambda ctx, i: pairs(ctx).join(small(ctx)),
    "join-text": lambda ctx, i: text_pairs(ctx, i).join(small(ctx), 3),
    "join-after-reduce": lambda ctx, i: (
        pairs(ctx).reduceByKey(plus).join(text_pairs(ctx, i).reduceByKey(plus))
    ),
    "two-joins": lambda ctx, i: (
        pairs(ctx).join(small(ctx)).map(lambda kv: (kv[0], kv[1][0])).join(text_pairs(ctx, i))
    ),
    "keys": lambda ctx, i: pairs(ctx).keys(),
    "values": lambda ctx, i: pairs(ctx).values(),
    "keyBy": lambda ctx, i: ctx.textFile(i["text"]).keyBy(len),
    "mapPartitions": lambda ctx, i: pairs(ctx, 6).mapPartitions(lambda it: [sum(1 for _ in it)]),
    "mapPartitionsWithIndex": lambda ctx, i: text_pairs(ctx, i).mapPartitionsWithIndex(
        lambda index, it: ((index, kv[0]) for kv in it)
    ),
    "union": lambda ctx, i: pairs(ctx).union(text_pairs(ctx, i)),
    "union-self": lambda ctx, i: (lambda d: d.union(d.filter(lambda kv: kv[1])))(pairs(ctx)),
    "SparkContext.union": lambda ctx, i: ctx.union([pairs(ctx), small(ctx), text_pairs(ctx, i)]),
    "distinct": lambda ctx, i: pairs(ctx).values().distinct(),
    "distinct-keys": lambda ctx, i: text_pairs(ctx, i).keys().distinct(2),
    "sortByKey": lambda ctx, i: text_pairs(ctx, i).reduceByKey(plus).sortByKey(),
    "sortByKey-desc": lambda ctx, i: (
        pairs(ctx).filter(lambda kv: isinstance(kv[0], str)).reduceByKey(plus).sortByKey(False, 3)
    ),
    "sortBy": lambda ctx, i: (
        pairs(ctx).reduceByKey(plus).sortBy(lambda kv: (kv[1] or 0, repr(kv[0])))
    ),
    "leftOuterJoin": lambda ctx, i: pairs(ctx).leftOuterJoin(small(ctx)),
    "rightOuterJoin": lambda ctx, i: text_pairs(ctx, i).rightOuterJoin(small(ctx), 3),
    "fullOuterJoin": lambda ctx, i: small(ctx).fullOuterJoin(text_pairs(ctx, i)),
    "cogroup": lambda ctx, i: pairs(ctx).cogroup(small(ctx)),
    "subtractByKey": lambda ctx, i: pairs(ctx).subtractByKey(small(ctx)),
    "subtract": lambda ctx, i: pairs(ctx).subtract(
        text_pairs(ctx, i).union(pairs(ctx, 2).sample(False, 0.5, 7))
    ),
    "intersection": lambda ctx, i: pairs(ctx).keys().intersection(text_pairs(ctx, i).keys()),
    "foldByKey": lambda ctx, i: pairs(ctx).foldByKey(0, plus),
    "repartition": lambda ctx, i: text_pairs(ctx, i).repartition(5).mapValues(lambda v: v),
    "coalesce": lambda ctx, i: pairs(ctx, 7).coalesce(2).reduceByKey(plus),
    "partitionBy": lambda ctx, i: (
        pairs(ctx).partitionBy(3).mapPartitions(lambda it: [sorted(map(repr, it))])
    ),
    "zipWithIndex": lambda ctx, i: pairs(ctx, 5).zipWithIndex(),
    "sample": lambda ctx, i: pairs(ctx, 3).sample(False, 0.3, 11),
    "sample-replacement": lambda ctx, i: text_pairs(ctx, i).sample(True, 1.5, 5),
    "cartesian": lambda ctx, i: small(ctx).cartesian(text_pairs(ctx, i)),
    "cartesian-lists": lambda ctx, i: (
        ctx.parallelize(range(9), 1)
        .map(lambda v: v)
        .cartesian(ctx.parallelize(list(range(5, 15)), 1))
    ),
    "cartesian-text": lambda ctx, i: ctx.textFile(i["text"], 2).cartesian(
        pairs(ctx, 3).filter(lambda kv: kv[0] != HOT)
    ),
    "cartesian-united": lambda ctx, i: (
        ctx.textFile(i["text"])
        .union(ctx.textFile(i["text"]))
        .cartesian(ctx.parallelize(PAIRS, 2).values())
    ),
    "cartesian-large-values": lambda ctx, i: (
        ctx.parallelize(range(40), 2)
        .map(lambda v: "x" * (v * 997))
        .map(len)
        .cartesian(ctx.parallelize(range(30), 2).map(lambda v: "y" * 5000 * v))
    ),
    "cache": lambda ctx, i: (lambda d: d.join(d.mapValues(lambda v: -(v or 0))))(
        text_pairs(ctx, i).reduceByKey(plus).cache()
    ),
    "persist-unpersist": lambda ctx, i: pairs(ctx).persist().unpersist().groupByKey(),
    "wholeTextFiles": lambda ctx, i: ctx.wholeTextFiles(i["text"]).map(
        lambda pc: (pc[0].rsplit("/", 1)[-1], len(pc[1]))
    ),
    "broadcast": lambda ctx, i: (lambda names: pairs(ctx).filter(lambda kv: kv[0] in names.value))(
        ctx.broadcast(dict(SMALL))
    ),
    "mid-run-count": lambda ctx, i: (lambda n: pairs(ctx).mapValues(lambda v: (v, n)))(
        text_pairs(ctx, i).count()
    ),
    "glom": lambda ctx, i: text_pairs(ctx, i).glom(),
    "range": lambda ctx, i: ctx.range(3, 30, 4, 3).map(lambda v: (v % 3, v)).reduceByKey(plus),
    "range-end": lambda ctx, i: ctx.range(9).map(lambda v: -v),
    "parallelize-range": lambda ctx, i: ctx.parallelize(range(1, 12), 3).glom(),
    "groupByKey-iterable": lambda ctx, i: (
        pairs(ctx)
        .groupByKey()
        .mapValues(lambda vs: (type(vs).__name__, vs.maxindex, list(vs.data)))
    ),
    "sampleByKey": lambda ctx, i: (
        pairs(ctx, 3)
        .filter(lambda kv: kv[0] in (HOT, "k1"))
        .sampleByKey(False, {HOT: 0.3, "k1": 1.0}, 7)
    ),
    "sampleByKey-replacement": lambda ctx, i: text_pairs(ctx, i).sampleByKey(
        True, {HOT: 2.0, "a": 0.5, "b": 1.0, "c": 1.0, "ünïcødé": 3.0, "日本": 0.0}, 3
    ),
    "emptyRDD": lambda ctx, i: ctx.emptyRDD().union(small(ctx)).union(ctx.emptyRDD()),
    "groupWith-three": lambda ctx, i: (
        pairs(ctx)
        .groupWith(small(ctx), text_pairs(ctx, i), pairs(ctx, 2).filter(lambda kv: kv[1]))
        .mapValues(lambda sides: [list(vs) for vs in sides])
    ),
    "cogroup-iterable": lambda ctx, i: (
        pairs(ctx)
        .cogroup(small(ctx))
        .mapValues(lambda sides: [(type(vs).__name__, len(vs)) for vs in sides])
    ),
    "wide-records": lambda ctx, i: (
        lambda wide: wide.join(small(ctx)).union(wide.mapValues(str)).union(wide.keys())
    )(pairs(ctx).map(lambda kv: (kv[0], kv[1], "third"))),
    "wide-records-sortByKey": lambda ctx, i: ctx.parallelize(
        [(3, "c", 0), (1, "a", 1), (2, "b", 2)], 1
    ).sortByKey(False),
    "plus": lambda ctx, i: pairs(ctx) + small(ctx),
    "parallelize-range-step": lambda ctx, i: ctx.parallelize(range(50, -7, -4), 4).map(str),
    "randomSplit": lambda ctx, i: pairs(ctx).randomSplit([0.3, 0.7], 17)[1],
    "randomSplit-union": lambda ctx, i: (lambda a, b: a.union(b.mapValues(lambda v: -(v or 0))))(
        *text_pairs(ctx, i).randomSplit([1, 1], 5)
    ),
    "mapPartitionsWithSplit": lambda ctx, i: pairs(ctx, 3).mapPartitionsWithSplit(
        lambda n, kvs: [(n, sum(1 for _ in kvs))]
    ),
    "groupBy": lambda ctx, i: text_pairs(ctx, i).groupBy(lambda kv: len(kv[0]), 2),
    "zip": lambda ctx, i: (lambda d: d.zip(d.mapValues(lambda v: -(v or 0))))(pairs(ctx)),
    "zip-two-inputs": lambda ctx, i: ctx.parallelize(range(12), 3).zip(
        ctx.parallelize("abcdefghijkl", 3)
    ),
    "pipe": lambda ctx, i: pairs(ctx, 3).values().pipe("sort -n").map(lambda line: line[:3]),
    "repartitionAndSortWithinPartitions": lambda ctx, i: (
        text_pairs(ctx, i)
        .repartitionAndSortWithinPartitions(2, ascending=False)
        .mapPartitionsWithIndex(lambda n, kvs: [(n, tuple(k for k, _ in kvs))])
    ),
    "checkpoint": lambda ctx, i: checkpointed(ctx, i, local=False),
    "localCheckpoint": lambda ctx, i: checkpointed(ctx, i, local=True),
    "mid-run-collectAsMap": lambda ctx, i: (
        lambda names: text_pairs(ctx, i).map(lambda kv: (kv[0], names.value.get(kv[0])))
    )(ctx.broadcast(small(ctx).collectAsMap())),
}


def checkpointed(ctx, inputs, local: bool):
    """A dataset checkpointed, written by the job that first computes it and read back by
    the next (a public program's ``checkpoint`` stopped the traced run)."""
    data = text_pairs(ctx, inputs).groupByKey(2).mapValues(lambda vs: sum(v or 0 for v in vs))
    if local:
        data.localCheckpoint()
    else:
        ctx.setCheckpointDir(tempfile.mkdtemp())
        data.checkpoint()
    data.count()
    return data.reduceByKey(plus)


def test_what_spark_says_of_a_checkpointed_dataset_is_said_of_a_traced_one(spark, store, inputs):
    """Before and after a job computes it, a dataset checkpointed (or locally: PySpark's
    localCheckpoint of a pipelined dataset marks an RDD no job runs) is said to be so, with a
    checkpoint file or none, as plainly."""
    from perfx.isolation import TracedContext

    def said(ctx, data, local):
        if local:
            data.localCheckpoint()
        else:
            ctx.setCheckpointDir(tempfile.mkdtemp())
            data.checkpoint()
        answers = []
        for _ in range(2):
            answers.append(
                (data.isCheckpointed(), data.isLocallyCheckpointed(), data.getCheckpointFile())
            )
            data.count()
        return [(c, lc, f is not None) for c, lc, f in answers]

    for local in (False, True):
        for build in (lambda c: text_pairs(c, inputs).mapValues(str), lambda c: pairs(c).cache()):
            plain = said(spark.sparkContext, build(spark.sparkContext), local)
            with TracedContext(spark, store=store) as ctx:
                assert said(ctx, build(ctx), local) == plain, (local, plain)


@pytest.mark.parametrize("name", sorted(PIPELINES))
@pytest.mark.filterwarnings("ignore:mapPartitionsWithSplit is deprecated:FutureWarning")
def test_traced_output_equals_plain(spark, store, inputs, name):
    assert_same_outputs(spark, store, PIPELINES[name], inputs)


def numbers(ctx, i):
    return pairs(ctx, 5).values().filter(lambda v: v is not None)


def ctx_of(ctx):
    """The plain SparkContext behind a traced context (or the plain one itself): to read
    back what an action wrote."""
    return getattr(ctx, "sc", ctx)


ACTIONS = {
    "reduce": lambda ctx, i: numbers(ctx, i).reduce(lambda a, b: a + b),
    "fold": lambda ctx, i: numbers(ctx, i).fold(0, lambda a, b: a + b),
    "aggregate": lambda ctx, i: numbers(ctx, i).aggregate(
        (0, 0), lambda acc, v: (acc[0] + v, acc[1] + 1), lambda a, b: (a[0] + b[0], a[1] + b[1])
    ),
    "collect": lambda ctx, i: text_pairs(ctx, i).collect(),
    "collectAsMap": lambda ctx, i: text_pairs(ctx, i).reduceByKey(plus).collectAsMap(),
    "count": lambda ctx, i: text_pairs(ctx, i).count(),
    "countByKey": lambda ctx, i: pairs(ctx).countByKey(),
    "reduceByKeyLocally": lambda ctx, i: text_pairs(ctx, i).reduceByKeyLocally(plus),
    "countByValue": lambda ctx, i: pairs(ctx).values().countByValue(),
    "take": lambda ctx, i: text_pairs(ctx, i).take(4),
    "takeOrdered": lambda ctx, i: numbers(ctx, i).takeOrdered(5, key=lambda v: -v),
    "top": lambda ctx, i: numbers(ctx, i).top(3),
    "takeSample": lambda ctx, i: numbers(ctx, i).takeSample(False, 6, 3),
    "first": lambda ctx, i: text_pairs(ctx, i).first(),
    "min": lambda ctx, i: numbers(ctx, i).min(),
    "max": lambda ctx, i: numbers(ctx, i).max(key=lambda v: v % 7),
    "sum": lambda ctx, i: numbers(ctx, i).sum(),
    "mean": lambda ctx, i: numbers(ctx, i).mean(),
    "stats": lambda ctx, i: repr(numbers(ctx, i).stats()),
    "isEmpty": lambda ctx, i: numbers(ctx, i).filter(lambda v: v > 10**6).isEmpty(),
    "emptyRDD-actions": lambda ctx, i: (
        ctx.emptyRDD().isEmpty(),
        ctx.emptyRDD().collect(),
        ctx.emptyRDD().getNumPartitions(),
    ),
    "treeAggregate": lambda ctx, i: numbers(ctx, i).treeAggregate(
        (0, 0), lambda acc, v: (acc[0] + v, acc[1] + 1), lambda a, b: (a[0] + b[0], a[1] + b[1])
    ),
    "treeReduce": lambda ctx, i: numbers(ctx, i).map(float).treeReduce(lambda a, b: a + b, 3),
    "lookup": lambda ctx, i: pairs(ctx).lookup(HOT),
    "histogram": lambda ctx, i: numbers(ctx, i).histogram(4),
    "histogram-buckets": lambda ctx, i: numbers(ctx, i).histogram([-12, 0, 5, 60]),
    "sampleVariance": lambda ctx, i: numbers(ctx, i).sampleVariance(),
    "sampleStdev": lambda ctx, i: numbers(ctx, i).sampleStdev(),
    "countApproxDistinct": lambda ctx, i: pairs(ctx).keys().map(repr).countApproxDistinct(),
    "saveAsPickleFile": lambda ctx, i: (
        lambda path: (
            numbers(ctx, i).saveAsPickleFile(path, 3),
            sorted(ctx_of(ctx).pickleFile(path).collect()),
        )[1]
    )(tempfile.mkdtemp() + "/out"),
    "saveAsSequenceFile": lambda ctx, i: (
        lambda path: (
            pairs(ctx, 3)
            .filter(lambda kv: isinstance(kv[0], str) and kv[1] is not None)
            .saveAsSequenceFile(path),
            ctx_of(ctx).sequenceFile(path).collect(),
        )[1]
    )(tempfile.mkdtemp() + "/out"),
    "countApprox": lambda ctx, i: numbers(ctx, i).countApprox(10_000),
    "sumApprox": lambda ctx, i: float(numbers(ctx, i).sumApprox(10_000)),
    "meanApprox": lambda ctx, i: float(numbers(ctx, i).meanApprox(10_000)),
    "toLocalIterator": lambda ctx, i: list(text_pairs(ctx, i).toLocalIterator()),
    "foreach-accumulator": lambda ctx, i: (
        lambda acc: (numbers(ctx, i).foreach(lambda v: acc.add(v)), acc.value)[1]
    )(ctx.accumulator(0)),
}


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_traced_action_equals_plain(spark, store, inputs, name):
    assert_same_outputs(spark, store, ACTIONS[name], inputs)


def test_read_text_rdd_equals_spark_read_text(spark, store, inputs):
    """``spark.read.text(path).rdd`` in a plain program is ``ctx.read.text(path).rdd`` traced."""

    def build(ctx, i):
        reader = spark.read if ctx is spark.sparkContext else ctx.read
        return reader.text(i["text"]).rdd.map(lambda row: (row.value, len(row)))

    assert_same_outputs(spark, store, build, inputs)


def test_what_spark_says_of_a_dataset_is_said_of_a_traced_one(spark, store):
    """A dataset's name, id, storage level, lineage string, partitioner and context are
    Spark's own for the RDD underneath, and naming it leaves its values alone."""
    from perfx.isolation import TracedContext

    plain = spark.sparkContext.parallelize(PAIRS, 3).partitionBy(2)
    with TracedContext(spark, store=store) as ctx:
        traced = ctx.parallelize(PAIRS, 3).partitionBy(2)
        assert traced.setName("pairs") is traced and traced.name() == "pairs"
        assert isinstance(traced.id(), int) and traced.id() != plain.id()
        assert traced.partitioner == plain.partitioner
        assert not traced.is_cached and traced.cache().is_cached
        assert traced.getStorageLevel() == plain.cache().getStorageLevel()
        assert re.fullmatch(r"(.+ )?\w*RDD\[\d+\] at \w+ at \S+:\d+", repr(traced))
        assert repr(spark.sparkContext) == repr(ctx.sc)
        assert isinstance(traced.toDebugString(), bytes)
        assert not traced.isCheckpointed() and traced.getCheckpointFile() is None
        assert traced.context is ctx
        assert sorted(traced.collect(), key=repr) == sorted(plain.collect(), key=repr)


def test_a_file_dataset_is_named_after_its_path_as_plainly(spark, store, inputs):
    """``textFile(p).name()`` is the path, as Spark names it (it was None traced)."""
    from perfx.isolation import TracedContext

    sc = spark.sparkContext
    plain = [sc.textFile(inputs["text"]).name(), sc.wholeTextFiles(inputs["text"]).name()]
    with TracedContext(spark, store=store) as ctx:
        traced = [ctx.textFile(inputs["text"]).name(), ctx.wholeTextFiles(inputs["text"]).name()]
        assert inputs["text"] in repr(ctx.textFile(inputs["text"]))
    assert traced == plain and plain[0] == inputs["text"]


def test_the_storage_level_is_the_one_the_program_asked_for(spark, store):
    """perfx keeps a dataset read twice (to trace it once) and every dataset until the run
    ends, whatever the program asked: Spark's answers about it are still the program's. A
    script's ``persist(MEMORY_AND_DISK_2)`` printed "1x Replicated" (a probe of public
    PySpark programs)."""
    from pyspark import StorageLevel

    from perfx.isolation import TracedContext

    plain = spark.sparkContext.parallelize(PAIRS, 3)
    with TracedContext(spark, store=store) as ctx:
        traced = ctx.parallelize(PAIRS, 3)
        traced.count(), traced.map(str).count()  # read twice: kept by perfx
        said = []
        for dataset in (plain, traced):
            said.append([(dataset.is_cached, str(dataset.getStorageLevel()))])
            dataset.persist(StorageLevel.MEMORY_AND_DISK_2)
            said[-1].append((dataset.is_cached, str(dataset.getStorageLevel())))
            dataset.unpersist()
            said[-1].append((dataset.is_cached, str(dataset.getStorageLevel())))
    assert said[0] == said[1]
    assert said[1][1] == (True, "Disk Memory Serialized 2x Replicated")


def _sized(records):
    items = list(records)
    return [(len(items), min(items) if items else -1)]


def test_an_output_of_an_empty_partition_has_no_input_and_no_culprit(spark, store):
    """A partition function's output on an empty partition derives from no input record:
    it was ranked as a culprit named ``t-1/p16777215/#4294967295``, and asking for the
    culprits of an empty partition ended "has no rows for stage 2 partition 1", as for lost
    lineage (a probe of public PySpark programs)."""
    from perfx.isolation import TracedContext
    from perfx.isolation.errors import IsolationError
    from perfx.isolation.ids import NO_SOURCE, describe_id
    from perfx.isolation.queries import StoredRun, outputs, top_culprits
    from perfx.isolation.sources import NO_INPUT

    plain = spark.sparkContext.parallelize((0, 25), 6).mapPartitions(_sized).collect()
    with TracedContext(spark, store=store) as ctx:
        assert ctx.parallelize((0, 25), 6).mapPartitions(_sized).collect() == plain
    stored = StoredRun.open(store, ctx.run_id)
    found = outputs(stored)
    assert sorted(found.location) == [NO_INPUT] * 4 + ["parallelize[0]", "parallelize[1]"]
    assert (found.location == NO_INPUT).tolist() == (found.source == NO_SOURCE).tolist()
    assert describe_id(NO_SOURCE) == "none"
    ranked = top_culprits(stored)
    assert sorted(ranked.location) == ["parallelize[0]", "parallelize[1]"]
    stage = stored.final_stage
    assert top_culprits(stored, stage=stage, partition=0).empty  # held no record
    assert list(top_culprits(stored, stage=stage, partition=2).location) == ["parallelize[0]"]
    with pytest.raises(
        IsolationError, match=rf"stage {stage} has no partition 6 \(6 partitions: 0 to 5\)"
    ):
        top_culprits(stored, stage=stage, partition=6)


def _refuses_the_last(value):
    """A record plain Spark's take never reads (it is in the last partition) fails here."""
    if value == 99:
        raise ValueError("a bad record")
    return value


def _numbers(ctx):
    """100 numbers in 4 partitions, 99 (in the last) refused."""
    return ctx.parallelize(range(100), 4).map(_refuses_the_last)


def _refuses_the_last_value(pair):
    return pair[0], _refuses_the_last(pair[1])


@pytest.mark.parametrize(
    "program",
    [
        lambda ctx: _numbers(ctx).take(3),
        lambda ctx: _numbers(ctx).take(60),  # three partitions: Spark's take scans 1, then 2
        lambda ctx: _numbers(ctx).first(),
        lambda ctx: _numbers(ctx).isEmpty(),
        lambda ctx: next(_numbers(ctx).toLocalIterator()),
        lambda ctx: _numbers(ctx).cache().take(3),  # a kept dataset: whole partitions
        lambda ctx: (
            ctx.parallelize([(v % 8, v) for v in range(100)], 4)
            .partitionBy(4)
            .map(_refuses_the_last_value, preservesPartitioning=True)
            .lookup(5)
        ),
        lambda ctx: (
            ctx.parallelize([(v % 5, v) for v in range(100)], 4)
            .reduceByKey(plus)
            .map(lambda kv: (kv[0], _refuses_the_last(99 if kv[0] == 3 else kv[1])))  # part 3
            .take(2)
        ),
    ],
    ids=[
        "take",
        "take-more",
        "first",
        "isEmpty",
        "toLocalIterator-first-value",
        "take-of-a-kept-dataset",
        "lookup-partitioned",
        "take-after-shuffle",
    ],
)
def test_an_action_reading_some_partitions_computes_no_other(spark, store, program, monkeypatch):
    """take, first, isEmpty, a partitioned lookup and the values toLocalIterator gives
    compute only the partitions Spark's own action reads: a traced take computed every partition first, so a bad record in one that
    plain Spark never reads failed the traced run (exit 1 against plain exit 0), and an
    accumulator counted 100 records against plain's 3 (a probe of public programs). What the
    run stores is what was computed: the stage's other partitions were never computed, and
    asking for one says so."""
    from perfx.isolation import TracedContext
    from perfx.isolation.errors import IsolationError
    from perfx.isolation.queries import StoredRun, outputs

    monkeypatch.setenv("PYTHONHASHSEED", "0")  # a partitioned lookup hashes on the driver
    plain = program(spark.sparkContext)
    with TracedContext(spark, store=store) as ctx:
        assert program(ctx) == plain
    stored = StoredRun.open(store, ctx.run_id)
    stage = stored.final_stage
    computed = stored.meta["stages"][str(stage)]["computed"]
    assert computed and 3 not in computed
    assert len(outputs(stored)) == stored.meta["stages"][str(stage)]["rows"] > 0
    with pytest.raises(IsolationError, match=rf"stage {stage} partition 3 was never computed"):
        stored.check_partition(stage, 3)
    from click.testing import CliRunner

    from perfx.cli import cli

    listed = CliRunner(env={"COLUMNS": "400"}).invoke(cli, ["runs", "--store", store.url])
    assert f"{stage} output (4 part., {len(computed)} computed" in listed.output


def _counted(acc):
    """A function counting its calls in ``acc``, and failing on the 11th record."""

    def call(value):
        acc.add(1)
        return _refuses_the_last(99 if value == 10 else value)

    return call


@pytest.mark.parametrize("num", [3, 10])
def test_a_take_computes_no_record_past_the_last_it_reads(spark, store, num):
    """Spark's take stops reading a partition at the records it still wants: a record past
    them is never computed, plainly or traced (the traced run computed the whole partition:
    a bad 11th record failed it, and an accumulator counted 25 calls against plain's 3)."""
    from perfx.isolation import TracedContext
    from perfx.isolation.queries import StoredRun, outputs

    def program(ctx):
        acc = ctx.accumulator(0)
        data = ctx.parallelize(range(100), 4).map(_counted(acc))
        return data.take(num), data.first(), data.isEmpty(), acc.value

    plain = program(spark.sparkContext)
    with TracedContext(spark, store=store) as ctx:
        assert program(ctx) == plain == (list(range(num)), 0, False, num + 1 + 1)
    stored = StoredRun.open(store, ctx.run_id)
    assert len(outputs(stored)) == 1  # the final output: isEmpty's record


def test_a_run_storing_other_rows_than_its_action_read_is_an_error(spark, store):
    """The run's own invariant on an action reading some partitions: each partition it read
    stored one row per record the action got (checked per partition)."""
    from perfx.isolation import TracedContext
    from perfx.isolation.errors import IsolationError

    ctx = TracedContext(spark, store=store)
    data = ctx.parallelize(range(100), 4)
    assert data.take(2) == [0, 1]
    [(stage, read)] = ctx._read.items()
    read[0] += 1
    with pytest.raises(IsolationError, match=rf"stage {stage} partition 0 stored 2 row\(s\)"):
        ctx.finish()


@pytest.mark.parametrize("operator", ["aggregateByKey", "foldByKey"])
def test_a_failing_function_of_a_by_key_operator_is_named_as_the_program_wrote_it(
    spark, store, operator
):
    """The error names the program's function, not the wrapper that gives it a copy of its
    zero value (``TracedDataset.aggregateByKey.<locals>.create``: a probe of programs)."""
    from perfx.isolation import TracedContext
    from perfx.isolation.errors import IsolationError

    def add_second(acc, value):
        return acc + value[1]

    with pytest.raises(IsolationError, match=r"add_second raised TypeError: 'float' object"):
        with TracedContext(spark, store=store) as ctx:
            data = ctx.parallelize([("k", 1.0), ("j", 2.0)], 2)
            by_key = (
                data.aggregateByKey(0.0, add_second, lambda a, b: a + b)
                if operator == "aggregateByKey"
                else data.foldByKey(0.0, add_second)
            )
            by_key.collect()


@pytest.mark.parametrize(
    ("action", "args"),
    [("takeSample", ()), ("reduce", ()), ("top", (1, 2, 3)), ("fold", (0,)), ("histogram", ())],
)
def test_an_action_given_wrong_arguments_fails_as_plainly(spark, store, action, args):
    """Python's own TypeError for the call, word for word ("RDD.takeSample() missing 2
    required positional arguments: ..."), not the one of perfx's check of the arguments."""
    from perfx.isolation import TracedContext

    with pytest.raises(TypeError) as plain:
        getattr(spark.sparkContext.parallelize([1, 2]), action)(*args)
    with TracedContext(spark, store=store) as ctx:
        with pytest.raises(TypeError) as traced:
            getattr(ctx.parallelize([1, 2]), action)(*args)
    assert str(traced.value) == str(plain.value)


def test_an_untraced_operator_fails_at_the_programs_line(spark, store):
    from perfx.isolation import TracedContext
    from perfx.isolation.errors import IsolationError

    with TracedContext(spark, store=store) as ctx:
        data = ctx.parallelize([1, 2])
        with pytest.raises(IsolationError) as caught:
            data.barrier()
        line = sys._getframe().f_lineno - 1
    assert str(caught.value) == (
        f"{__file__}:{line}: barrier is not traced by perfx; use the traced operators "
        "listed in the README (Isolation) instead"
    )


def test_a_plain_rdd_joined_to_a_traced_one_fails_at_the_programs_line(spark, store):
    """A DataFrame's ``.rdd`` is Spark's own: joined to a traced dataset, the error names the
    program's line and the plain side."""
    from perfx.isolation import TracedContext
    from perfx.isolation.errors import IsolationError

    plain = spark.createDataFrame([("a", 1)], "k string, v int").rdd.map(tuple)
    with TracedContext(spark, store=store) as ctx:
        pairs = ctx.parallelize([("a", 2)])
        with pytest.raises(IsolationError) as caught:
            pairs.join(plain)
        line = sys._getframe().f_lineno - 1
    assert str(caught.value) == (
        f"{__file__}:{line}: join of a traced dataset with a plain RDD (a DataFrame's .rdd, "
        "say), whose records perfx does not trace: perfx traces only the datasets of its own "
        "context"
    )


@pytest.mark.parametrize("operator", ["join", "union", "cogroup"])
def test_a_plain_rdd_given_a_traced_one_fails_at_the_programs_line(spark, store, operator):
    """The other way round: PySpark's own join (union, cogroup...) of a plain RDD, given a
    traced dataset, took it for an RDD and failed on "no attribute '_jrdd_deserializer'"."""
    from perfx.isolation import TracedContext
    from perfx.isolation.errors import IsolationError

    plain = spark.createDataFrame([("a", 1)], "k string, v int").rdd.map(tuple)
    with TracedContext(spark, store=store) as ctx:
        pairs = ctx.parallelize([("a", 2)])
        with pytest.raises(IsolationError) as caught:
            getattr(plain, operator)(pairs)
        line = sys._getframe().f_lineno - 1
    assert str(caught.value) == (
        f"{__file__}:{line}: {operator} of a plain RDD (a DataFrame's .rdd, say), whose "
        "records perfx does not trace, with a traced dataset: perfx traces only the datasets "
        "of its own context"
    )


def test_a_damaged_run_is_refused_naming_stage_and_partition(spark, store, inputs):
    """A store that lost a partition's lineage after the run: every query refuses it."""
    import os

    from perfx.isolation import TracedContext
    from perfx.isolation.errors import IsolationError
    from perfx.isolation.queries import StoredRun

    with TracedContext(spark, store=store) as ctx:
        PIPELINES["reduceByKey"](ctx, inputs).collect()
    stage = next(s for s, info in ctx.meta["stages"].items() if info["kind"] == "combine")
    folder = store.local_dir(ctx.run_id)
    os.remove(os.path.join(folder, f"s{int(stage):03d}", "p00001.parquet"))
    with pytest.raises(IsolationError, match=f"stage {stage} partition 1 is missing"):
        StoredRun.open(store, ctx.run_id)


PROGRAM = """
from operator import add


def pipeline(ctx, input_path):
    lines = ctx.textFile(input_path)
    total = lines.count()  # an action mid-way: its value is an ordinary number
    pairs = lines.filter(lambda line: line.endswith("{suffix}")).map(lambda line: (line, total))
    return {result}
"""


def _program(tmp_path, name: str, **parts) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(PROGRAM.format(**parts))
    return str(path)


def test_a_program_may_run_actions_midway_and_return_a_value(spark, store, inputs, tmp_path):
    from perfx.isolation.runner import load_program, run_traced

    program = _program(tmp_path, "value", suffix="0", result="pairs.values().reduce(add)")
    plain = load_program(program).pipeline(spark.sparkContext, inputs["text"])
    result = run_traced(program, inputs["text"], spark=spark, store=store)
    assert result.value == plain == 11 and result.records == [] and result.note is None
    assert len(result.meta["outputs"]) == 2 and len(result.outputs) == 1


def test_an_empty_output_from_a_non_empty_input_is_said(spark, store, inputs, tmp_path):
    from perfx.isolation.runner import run_traced

    program = _program(tmp_path, "empty", suffix="no such end", result="pairs")
    result = run_traced(program, inputs["text"], spark=spark, store=store)
    assert result.records == [] and result.outputs.empty
    assert "output is empty although its input is not" in result.note
