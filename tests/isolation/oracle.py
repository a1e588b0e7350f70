"""The differential oracle of traced runs: one pipeline run on plain PySpark and traced (in
impact and in full lineage) must give equal outputs.

A pipeline is ``build(ctx, inputs)`` written against the RDD API: ``ctx`` is the plain
``SparkContext`` or a ``TracedContext``. It returns a dataset or a value (an action's
result). A dataset compares as plain Spark lays it out: its number of partitions and each
partition's records in order, grouped values (a list, or PySpark's ResultIterable) in order
too. That is what a program printing ``collect()``, walking ``glom()`` or writing part files
sees, and Spark gives the same layout run after run on one machine, shuffles included (a
join of two datasets had the traced run print its records in another order, in fewer
partitions). A float compares to 9 significant digits (sums in another order round
differently).

The inputs hold what breaks provenance bookkeeping: many records per key, a skewed key, an
empty input file (an empty partition), ``None`` values, unicode and tuple keys.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

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


def canonical(value):
    """A hashable form of an output for comparison; a grouped value's items in their order."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, tuple):
        return tuple(canonical(v) for v in value)
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(canonical(k)), canonical(v)) for k, v in value.items())))
    if isinstance(value, (str, bytes, int, type(None))):
        return value
    if isinstance(value, Iterable):  # lists, ResultIterable
        return ("seq", tuple(canonical(v) for v in value))
    if hasattr(value, "__dict__") or hasattr(value, "asDict"):
        return repr(value)
    return value


class Layout(NamedTuple):
    """A dataset as Spark lays it out: its partitions' records, each partition in order."""

    partitions: int
    records: list[list]

    def flat(self) -> list:
        return [record for partition in self.records for record in partition]


def result(out):
    """What a pipeline gave, comparable: a dataset's ``Layout``, or the canonical value an
    action returned."""
    if hasattr(out, "glom") and hasattr(out, "getNumPartitions"):
        partitions = out.glom().collect()
        return Layout(out.getNumPartitions(), [[canonical(r) for r in p] for p in partitions])
    return canonical(out)


def run_plain(spark, build, inputs):
    return result(build(spark.sparkContext, inputs))


def run_traced(spark, store, build, inputs, lineage: str):
    with TracedContext(spark, store=store, lineage=lineage) as ctx:
        return result(build(ctx, inputs))


def assert_same_outputs(spark, store, build, inputs, lineages=("impact", "full")):
    """Plain PySpark and the traced run (in each lineage mode) give equal outputs."""
    plain = run_plain(spark, build, inputs)
    for lineage in lineages:
        traced = run_traced(spark, store, build, inputs, lineage)
        assert traced == plain, f"{lineage} lineage: traced output differs from plain PySpark's"
