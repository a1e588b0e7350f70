"""Random pipelines for the oracle: a hypothesis strategy drawing 1 to 6 operators of the
traced RDD API (with random partition counts) over ``(str key, int value)`` records, so that
``oracle.assert_same_outputs`` can check plain PySpark and the traced run agree on programs
nobody wrote by hand. Used by tests/isolation/test_random_pipelines.py (a few dozen
examples) and ``./dev bench oracle`` (a few hundred)."""

from __future__ import annotations

from operator import add

from hypothesis import strategies as st

RECORDS = [(f"k{i % 9}" if i % 4 else "hot", i % 13) for i in range(80)]
"""(key, value) records with a skewed key; values are small ints."""

OTHER = [("hot", 1), ("k1", 2), ("k1", 3), ("k5", 4), ("zz", 5)]
"""The other side of joins and unions."""

partitions = st.integers(min_value=1, max_value=5)


def _step(name: str, apply, *args):
    def step(ds, ctx):
        return apply(ds, ctx, *args)

    step.__qualname__ = f"{name}{args if args else ''}"
    return step


def _other(ctx, slices):
    return ctx.parallelize(OTHER, slices)


STEPS = {
    "mapValues": lambda: st.just(
        _step("mapValues", lambda ds, ctx: ds.mapValues(lambda v: v * 2 + 1))
    ),
    "map": lambda: st.just(_step("map", lambda ds, ctx: ds.map(lambda kv: (kv[0][:2], kv[1])))),
    "filter": lambda: st.just(
        _step("filter", lambda ds, ctx: ds.filter(lambda kv: kv[1] % 3 != 0))
    ),
    "flatMapValues": lambda: st.just(
        _step("flatMapValues", lambda ds, ctx: ds.flatMapValues(lambda v: range(v % 3)))
    ),
    "reduceByKey": lambda: partitions.map(
        lambda n: _step("reduceByKey", lambda ds, ctx, n: ds.reduceByKey(add, n), n)
    ),
    "groupByKey": lambda: partitions.map(
        lambda n: _step("groupByKey", lambda ds, ctx, n: ds.groupByKey(n).mapValues(sum), n)
    ),
    "aggregateByKey": lambda: st.just(
        _step("aggregateByKey", lambda ds, ctx: ds.aggregateByKey(0, max, max))
    ),
    "foldByKey": lambda: st.just(_step("foldByKey", lambda ds, ctx: ds.foldByKey(1, add))),
    "distinct": lambda: partitions.map(
        lambda n: _step("distinct", lambda ds, ctx, n: ds.distinct(n), n)
    ),
    "union": lambda: partitions.map(
        lambda n: _step("union", lambda ds, ctx, n: ds.union(_other(ctx, n)), n)
    ),
    "join": lambda: partitions.map(
        lambda n: _step(
            "join",
            lambda ds, ctx, n: ds.join(_other(ctx, 2), n).mapValues(lambda lr: lr[0] + lr[1]),
            n,
        )
    ),
    "leftOuterJoin": lambda: st.just(
        _step(
            "leftOuterJoin",
            lambda ds, ctx: ds.leftOuterJoin(_other(ctx, 2)).mapValues(
                lambda lr: lr[0] + (lr[1] or 0)
            ),
        )
    ),
    "cogroup": lambda: st.just(
        _step(
            "cogroup",
            lambda ds, ctx: ds.cogroup(_other(ctx, 1)).mapValues(
                lambda g: len(list(g[0])) + sum(g[1])
            ),
        )
    ),
    "subtractByKey": lambda: st.just(
        _step("subtractByKey", lambda ds, ctx: ds.subtractByKey(_other(ctx, 2)))
    ),
    "sortByKey": lambda: st.tuples(st.booleans(), partitions).map(
        lambda a: _step("sortByKey", lambda ds, ctx, up, n: ds.sortByKey(up, n), *a)
    ),
    "repartition": lambda: partitions.map(
        lambda n: _step("repartition", lambda ds, ctx, n: ds.repartition(n), n)
    ),
    "coalesce": lambda: partitions.map(
        lambda n: _step("coalesce", lambda ds, ctx, n: ds.coalesce(n), n)
    ),
    "partitionBy": lambda: partitions.map(
        lambda n: _step("partitionBy", lambda ds, ctx, n: ds.partitionBy(n), n)
    ),
    "mapPartitions": lambda: st.just(
        _step(
            "mapPartitions", lambda ds, ctx: ds.mapPartitions(lambda it: [kv for kv in it if kv[1]])
        )
    ),
    "cache": lambda: st.just(_step("cache", lambda ds, ctx: ds.cache())),
    "keyBy": lambda: st.just(
        _step("keyBy", lambda ds, ctx: ds.values().keyBy(lambda v: f"v{v % 4}"))
    ),
}


@st.composite
def pipelines(draw):
    """``(slices, steps)``: the source's partition count and 1 to 6 operators."""
    slices = draw(st.integers(min_value=1, max_value=6))
    names = draw(st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=6))
    return slices, [draw(STEPS[name]()) for name in names]


def build(slices: int, steps):
    """The pipeline of ``pipelines()``'s draw, as ``oracle`` runs it."""

    def pipeline(ctx, inputs):
        dataset = ctx.parallelize(RECORDS, slices)
        for step in steps:
            dataset = step(dataset, ctx)
        return dataset

    return pipeline
