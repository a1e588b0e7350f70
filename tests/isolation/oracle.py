"""The differential oracle of traced runs: one pipeline run on plain PySpark and traced (in
impact and in full lineage) must give equal outputs.

A pipeline is ``build(ctx, inputs)`` written against the RDD API: ``ctx`` is the plain
``SparkContext`` or a ``TracedContext``. It returns a dataset (collected) or a value (an
action's result). Outputs compare as multisets, since Spark's order is undefined after a
shuffle; a grouped value (a list, or PySpark's ResultIterable) compares as a sorted list, a
float to 9 significant digits (sums in another order round differently). ``ordered`` keeps
the order (a sort's output).

The inputs hold what breaks provenance bookkeeping: many records per key, a skewed key, an
empty input file (an empty partition), ``None`` values, unicode and tuple keys.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from perfx.isolation import TracedContext

HOT = "hot"

PAIRS = (
    [(HOT, i) for i in range(60)]  # the skewed key
    + [(f"k{i % 7}", i) for i in range(40)]  # many records per key
    + [("ünïcødé", 3), ("日本", None), ("ünïcødé", None), (("t", 1), 5), (("t", 1), 6)]
    + [(i, None if i % 3 == 0 else -i) for i in range(12)]
)
"""(key, value) records: ints, strings, unicode and tuples as keys; ints and None as values."""

SMALL = [(HOT, "h"), ("k1", "one"), ("k3", "three"), ("日本", None), (("t", 1), "tuple"), (99, "x")]
"""The other side of joins: some keys of PAIRS, one key of none."""

LINES = [
    ["hot,1", "hot,2", "a,3", "b,4", "ünïcødé,5", "hot,6"],
    [],  # an empty file: an empty partition
    ["a,7", "hot,8", "c,", "日本,9", "hot,10"],
]
"""Text input: one file per list, ``key,value`` lines (an empty value reads as None)."""


def write_inputs(folder: Path) -> dict[str, str]:
    """The text input files in ``folder``; ``{"text": folder}``."""
    folder.mkdir(parents=True, exist_ok=True)
    for number, lines in enumerate(LINES):
        (folder / f"part-{number}.txt").write_text(
            "".join(line + "\n" for line in lines), encoding="utf-8"
        )
    return {"text": str(folder)}


def parse(line: str):
    key, value = line.split(",")
    return key, (int(value) if value else None)


def plus(a, b):
    """Addition that reads None as 0 (the data has None values)."""
    return (a or 0) + (b or 0)


def canonical(value, ordered: bool = False):
    """A hashable, order-free form of an output for comparison as a multiset."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, tuple):
        return tuple(canonical(v) for v in value)
    if isinstance(value, dict):
        return (
            "dict",
            tuple(sorted(((repr(canonical(k)), canonical(v)) for k, v in value.items()))),
        )
    if isinstance(value, (str, bytes, int, type(None))):
        return value
    if isinstance(value, Iterable):  # lists, ResultIterable
        items = [canonical(v) for v in value]
        return ("seq", tuple(items if ordered else sorted(items, key=repr)))
    if hasattr(value, "__dict__") or hasattr(value, "asDict"):
        return repr(value)
    return value


def result(out, ordered: bool = False):
    """What a pipeline gave, comparable: a dataset's collected records as a multiset (a list
    in order when ``ordered``), or the canonical value an action returned."""
    if hasattr(out, "collect") and hasattr(out, "getNumPartitions"):
        records = [canonical(r) for r in out.collect()]
        return records if ordered else sorted(records, key=repr)
    return canonical(out, ordered=True)


def run_plain(spark, build, inputs, ordered: bool = False):
    return result(build(spark.sparkContext, inputs), ordered)


def run_traced(spark, store, build, inputs, lineage: str, ordered: bool = False):
    with TracedContext(spark, store=store, lineage=lineage) as ctx:
        return result(build(ctx, inputs), ordered)


def assert_same_outputs(
    spark, store, build, inputs, ordered: bool = False, lineages=("impact", "full")
):
    """Plain PySpark and the traced run (in each lineage mode) give equal outputs."""
    plain = run_plain(spark, build, inputs, ordered)
    for lineage in lineages:
        traced = run_traced(spark, store, build, inputs, lineage, ordered)
        assert traced == plain, f"{lineage} lineage: traced output differs from plain PySpark's"
