"""The real-program corpus (tests/isolation/corpus, origins and licences in its SOURCES.md):
PySpark programs from public repositories, each moved into ``pipeline(ctx, input_path)`` with
the fewest edits, run plain and traced in both lineage modes; a traced run must give exactly
the plain run's output (tests/isolation/oracle.py compares them)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from perfx.isolation.runner import load_program
from tests.isolation import oracle
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


def _input(name: str) -> str:
    where = INPUTS[name]
    return str(DATA / where) if where else str(DATA)


def _build(name: str):
    """The oracle's ``build`` for a corpus program: its pipeline, loaded afresh for each run
    (module-level state, a seeded RNG, starts anew), on its input and arguments; numpy
    results as Python lists (the oracle compares Python values)."""

    def build(ctx, input_path):
        module = load_program(PIPELINES / f"{name}.py")
        out = module.pipeline(ctx, input_path, **ARGUMENTS.get(name, {}))
        return out if hasattr(out, "getNumPartitions") else _python(out)

    return build


def _python(value):
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # numpy array, matrix, scalar
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return type(value)(_python(v) for v in value)
    return value


def _assert_same(name: str, lineage: str, plain, traced) -> None:
    """Traced equals plain; if not, says whether records differ or only their layout."""
    if traced == plain:
        return
    where = f"{name}, {lineage} lineage"
    if not isinstance(plain, oracle.Layout) or not isinstance(traced, oracle.Layout):
        raise AssertionError(f"{where}: traced output differs from plain")
    plain_records, traced_records = Counter(plain.flat()), Counter(traced.flat())
    missing, extra = plain_records - traced_records, traced_records - plain_records
    if missing or extra:
        raise AssertionError(
            f"{where}: {traced_records.total()} traced records against "
            f"{plain_records.total()} plain; missing {list(missing.elements())[:5]}, "
            f"extra {list(extra.elements())[:5]}"
        )
    raise AssertionError(
        f"{where}: the plain records in another layout: {traced.partitions} partitions "
        f"against {plain.partitions}, of {[len(p) for p in traced.records]} records against "
        f"{[len(p) for p in plain.records]}"
    )


@pytest.fixture(scope="module")
def corpus_store(tmp_path_factory):
    from perfx.isolation.stores import open_store

    return open_store(str(tmp_path_factory.mktemp("corpus-runs")))


@pytest.fixture(scope="module")
def plain_outputs(spark):
    """Program -> its plain PySpark output, computed once for both lineage modes."""
    cache: dict[str, object] = {}

    def plain(name: str):
        if name not in cache:
            cache[name] = out = oracle.run_plain(spark, _build(name), _input(name))
            given = out.flat() if isinstance(out, oracle.Layout) else out
            assert given not in ([], (), None), f"{name} gives nothing to compare plainly"
        return cache[name]

    return plain


@pytest.mark.spark
# Spark's ALS example multiplies numpy matrices, which numpy means to retire: as published.
@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("lineage", ["impact", "full"])
@pytest.mark.parametrize("name", list(INPUTS))
def test_traced_program_gives_its_plain_output(spark, corpus_store, plain_outputs, name, lineage):
    traced = oracle.run_traced(spark, corpus_store, _build(name), _input(name), lineage)
    _assert_same(name, lineage, plain_outputs(name), traced)


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
