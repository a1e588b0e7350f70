"""The real-program corpus (tests/isolation/corpus, origins and licences in its SOURCES.md):
PySpark programs from public repositories, each moved into ``pipeline(ctx, input_path)`` with
the fewest edits, run plain and traced in both lineage modes; a traced run must give exactly
the plain run's output.

A program that needs an operator the traced context does not have yet is an expected failure
naming that operator (strict: it fails the suite once the operator lands, so that the mark goes).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from perfx.isolation import TracedContext
from perfx.isolation.dataset import TracedDataset
from perfx.isolation.runner import load_program
from tests.isolation.corpus import make_data

CORPUS = Path(__file__).resolve().parent / "corpus"
PIPELINES = CORPUS / "pipeline"
DATA = CORPUS / "data"

INPUTS = {
    "spark_wordcount": "words",
    "spark_pagerank": "links.txt",
    "spark_sort": "numbers.txt",
    "spark_transitive_closure": None,
    "spark_kmeans": "points.txt",
    "spark_logistic_regression": "labelled_points.txt",
    "spark_als": None,
    "hibench_wordcount": "words",
    "hibench_sort": "words",
    "hibench_pagerank": "links.txt",
    "ls_avg_map_partitions": None,
    "ls_basic_avg": None,
    "ls_key_value_map_filter": None,
    "ls_intersect_by_key": None,
    "ls_per_key_avg": None,
    "ls_remove_outliers": None,
    "ls_word_count": None,
    "tutorial_word_count": "words",
    "tutorial_count_min_max": None,
    "dab_secondary_sort": "time_series.txt",
}
"""Program -> its input under data/ (None: it reads none, its data is in the program)."""

ARGUMENTS = {"spark_transitive_closure": {"partitions": 1}}
"""Program -> the arguments it runs with, where not its defaults (for an unmodified run, its
command-line arguments)."""

ORDERED = {"spark_sort", "hibench_sort"}
"""Programs whose output order is defined (a sort): compared as lists, not multisets."""

NEEDS = {
    "spark_pagerank": "distinct, cache",
    "spark_sort": "sortByKey",
    "spark_transitive_closure": "cache, union, distinct",
    "spark_kmeans": "cache, takeSample",
    "spark_logistic_regression": "mapPartitions, cache, reduce",
    "spark_als": "broadcast",
    "hibench_sort": "partitionBy, mapPartitions",
    "hibench_pagerank": "distinct, cache",
    "ls_avg_map_partitions": "mapPartitions, reduce",
    "ls_basic_avg": "fold",
    "ls_intersect_by_key": "cogroup",
    "ls_per_key_avg": "collectAsMap",
    "ls_remove_outliers": "stats",
    "ls_word_count": "countByValue",
    "tutorial_count_min_max": "foreachPartition, mapPartitions, reduce",
}
"""Program -> the operators it calls that the traced context lacks: its tests are expected to
fail on a missing attribute (any other failure, a wrong output above all, fails the suite)."""


def _input(name: str) -> str:
    where = INPUTS[name]
    return str(DATA / where) if where else str(DATA)


def _canonical(value):
    """``value`` as a hashable, sortable form equal for equal outputs: floats to 9
    significant digits (a sum's order may differ), numpy values as Python ones, arrays in
    order, and every other list, group or dict sorted (Spark does not order a group)."""
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # numpy array, matrix, scalar
        return _in_order(value.tolist())
    if isinstance(value, float):
        return float(f"{value:.9g}") if math.isfinite(value) else value
    if isinstance(value, tuple):
        return tuple(_canonical(v) for v in value)
    if isinstance(value, dict):
        return ("dict", tuple(sorted((_canonical(kv) for kv in value.items()), key=repr)))
    if isinstance(value, (str, bytes, int, bool)) or value is None:
        return value
    if hasattr(value, "__iter__"):  # list, ResultIterable, set
        return ("group", tuple(sorted((_canonical(v) for v in value), key=repr)))
    raise TypeError(f"no canonical form for {type(value).__name__}")


def _in_order(value):
    if isinstance(value, list):
        return tuple(_in_order(v) for v in value)
    return _canonical(value)


def _result(value):
    """What a pipeline's return compares by: a dataset's records, else the value itself."""
    if isinstance(value, TracedDataset) or hasattr(value, "collect"):
        return ("dataset", value.collect())
    return ("value", value)


def _assert_same(name: str, plain, traced) -> None:
    (plain_kind, plain_value), (traced_kind, traced_value) = plain, traced
    assert traced_kind == plain_kind, (
        f"{name}: traced returned a {traced_kind}, plain a {plain_kind}"
    )
    if plain_kind == "value":
        assert _canonical(traced_value) == _canonical(plain_value)
        return
    want = [_canonical(record) for record in plain_value]
    got = [_canonical(record) for record in traced_value]
    if name in ORDERED:
        assert got == want
        return
    missing, extra = Counter(want) - Counter(got), Counter(got) - Counter(want)
    assert not missing and not extra, (
        f"{name}: {len(got)} traced records against {len(want)} plain; "
        f"missing {list(missing.elements())[:5]}, extra {list(extra.elements())[:5]}"
    )


@pytest.fixture(scope="module")
def corpus_store(tmp_path_factory):
    from perfx.isolation.stores import open_store

    return open_store(str(tmp_path_factory.mktemp("corpus-runs")))


@pytest.fixture(scope="module")
def plain_outputs(spark):
    """Program -> its plain PySpark output, computed once for both lineage modes."""
    cache: dict[str, tuple] = {}

    def plain(name: str):
        if name not in cache:
            # Loaded afresh for every run: module-level state (a seeded RNG) starts anew.
            module = load_program(PIPELINES / f"{name}.py")
            cache[name] = _result(
                module.pipeline(spark.sparkContext, _input(name), **ARGUMENTS.get(name, {}))
            )
        return cache[name]

    return plain


def _cases():
    for name in INPUTS:
        marks = (
            [pytest.mark.xfail(raises=AttributeError, strict=True, reason=f"needs {NEEDS[name]}")]
            if name in NEEDS
            else []
        )
        for lineage in ("impact", "full"):
            yield pytest.param(name, lineage, marks=marks, id=f"{name}-{lineage}")


@pytest.mark.spark
@pytest.mark.parametrize("name,lineage", list(_cases()))
def test_traced_program_gives_its_plain_output(spark, corpus_store, plain_outputs, name, lineage):
    module = load_program(PIPELINES / f"{name}.py")
    with TracedContext(spark, store=corpus_store, lineage=lineage) as ctx:
        traced = _result(module.pipeline(ctx, _input(name), **ARGUMENTS.get(name, {})))
    _assert_same(name, plain_outputs(name), traced)


def test_every_program_has_its_published_file_input_and_sources_row():
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for name in INPUTS:
        assert (CORPUS / "original" / f"{name}.py").is_file(), name
        assert (PIPELINES / f"{name}.py").is_file(), name
        assert f"`{name}`" in sources, f"{name} has no row in SOURCES.md"
    assert sorted(p.stem for p in PIPELINES.glob("*.py")) == sorted(INPUTS)


def test_committed_inputs_are_what_make_data_writes():
    for name, text in make_data.files().items():
        assert (DATA / name).read_text(encoding="utf-8") == text, name
