"""Every traced operator against the oracle: plain PySpark and the traced run, in impact and
in full lineage, give the same output on data made to break provenance bookkeeping
(tests/isolation/oracle.py)."""

from __future__ import annotations

import pytest

from tests.isolation.oracle import PAIRS, SMALL, assert_same_outputs, parse, plus, write_inputs

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
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_traced_output_equals_plain(spark, store, inputs, name):
    assert_same_outputs(spark, store, PIPELINES[name], inputs)
