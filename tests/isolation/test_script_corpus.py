"""The real-program corpus run unmodified (issue 31): every program of
tests/isolation/corpus/original/, from its published file, runs as ``python SCRIPT.py ARGS``
would, once plain and once through ``perfx isolate`` (``trace_script``), in the one test
session; what it prints and the files it writes must be the same.

Both runs are in-process (``runpy``, in the shared session: the script's ``getOrCreate()``
and ``SparkContext(...)`` return it, its ``stop()`` is left to the session's owner), so the
whole corpus costs no JVM start. Python's and numpy's global random generators are seeded
alike before each run (Spark's logistic regression example starts from an unseeded random
point). Printed numbers compare to 9 significant digits (sums in another order round
differently); printed lines and written lines compare as multisets where Spark's order is
undefined (a shuffle's output), in order for the sorts. A program may be given Spark
settings, as a user's ``spark-defaults.conf`` or ``spark-submit --conf`` would give them
(``SPARK_DEFAULTS``), the same for both runs.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from perfx.isolation.script import run_plain, trace_script
from tests.isolation.test_corpus import CORPUS, DATA, INPUTS

ORIGINALS = CORPUS / "original"

ARGS = {
    "spark_wordcount": ["{data}/words"],
    "spark_pagerank": ["{data}/links.txt", "2"],
    "spark_sort": ["{data}/numbers.txt"],
    "spark_transitive_closure": ["1"],
    "spark_kmeans": ["{data}/points.txt", "3", "0.01"],
    "spark_logistic_regression": ["{data}/labelled_points.txt", "5"],
    "spark_als": ["20", "40", "5", "2", "2"],
    "hibench_wordcount": ["{data}/words", "{out}"],
    "hibench_sort": ["{data}/words", "{out}"],
    "hibench_pagerank": ["{data}/links.txt", "{out}", "2"],
    "ls_avg_map_partitions": [],
    "ls_basic_avg": [],
    "ls_key_value_map_filter": [],
    "ls_intersect_by_key": [],
    "ls_per_key_avg": [],
    "ls_remove_outliers": [],
    "ls_word_count": [],
    "tutorial_word_count": ["{data}/words"],
    "tutorial_count_min_max": ["{data}"],
    "dab_secondary_sort": ["local", "{data}/time_series.txt"],
}
"""Each program's command line (as SOURCES.md lists it; ``{out}`` a fresh output folder).
Spark's ALS runs at 20 x 40 with 5 factors and 2 iterations (the suite's time; its
arguments, not an edit)."""

_NUMBER = re.compile(r"-?\d+\.\d+(?:[eE][-+]?\d+)?")


def _normal(line: str) -> str:
    return _NUMBER.sub(lambda m: f"{float(m.group(0)):.9g}", line)


def _run(name: str, out: Path, run) -> tuple[list[str], list[str]]:
    """(printed lines, written lines) of one run of the program."""
    args = [a.format(data=DATA, out=out) for a in ARGS[name]]
    random.seed(31)
    np.random.seed(31)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        run(ORIGINALS / f"{name}.py", args)
    written = [
        f"{part.name}: {line}"
        for part in sorted(out.glob("part-*"))
        for line in part.read_text(encoding="utf-8").splitlines()
    ]
    return [_normal(x) for x in printed.getvalue().splitlines()], [_normal(x) for x in written]


def _same(name: str, plain: list[str], traced: list[str], what: str) -> None:
    """The same lines in the same order (written ones in the same part files): what a user
    comparing the two runs' output sees."""
    if traced == plain:
        return
    missing, extra = Counter(plain) - Counter(traced), Counter(traced) - Counter(plain)
    if missing or extra:
        raise AssertionError(
            f"{name}: traced {what} differ from plain; missing {list(missing.elements())[:5]}, "
            f"extra {list(extra.elements())[:5]}"
        )
    first = next(n for n, (a, b) in enumerate(zip(plain, traced)) if a != b)
    raise AssertionError(
        f"{name}: traced {what} are plain's in another order, from line {first + 1}: "
        f"{traced[first]!r} against {plain[first]!r}"
    )


SPARK_DEFAULTS = {
    "spark_transitive_closure": {"spark.default.parallelism": "2"},
}
"""Spark settings a program runs with, as a cluster's ``spark-defaults.conf`` would set them.
Spark's transitive closure unions its paths with the new ones every round, and its
``distinct()`` keeps the union's partitions unless a default parallelism is set: without it
each of its 14 rounds doubles them (its plain run alone took more than 15 minutes on
local[2]); with it, 10 s plain and 11 s traced, the same 6,816 edges."""


@contextlib.contextmanager
def _spark_defaults(spark, settings: dict[str, str]):
    """``settings`` on the shared session's configuration while the block runs, then as
    before: PySpark's and perfx's shuffles read ``spark.default.parallelism`` from it."""
    conf = spark.sparkContext._conf
    before = {key: conf.get(key) for key in settings}
    conf.setAll(list(settings.items()))
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                conf._jconf.remove(key)
            else:
                conf.set(key, value)


@pytest.mark.spark
@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("name", INPUTS)
def test_unmodified_program_gives_its_plain_output_traced(spark, tmp_path, name):
    tracer = None

    def traced_run(script, args):
        nonlocal tracer
        tracer = trace_script(script, args, spark=spark, store=str(tmp_path / "runs"))

    with _spark_defaults(spark, SPARK_DEFAULTS.get(name, {})):
        plain = _run(name, tmp_path / "plain", lambda script, args: run_plain(script, args, spark))
        assert plain[0] or plain[1], f"{name} prints and writes nothing to compare"
        traced = _run(name, tmp_path / "traced", traced_run)
    assert not any(spark.sparkContext._conf.contains(k) for k in SPARK_DEFAULTS.get(name, {}))
    _same(name, plain[0], traced[0], "printed lines")
    _same(name, plain[1], traced[1], "written lines")
    assert tracer is not None and tracer.ctx is not None
    meta = tracer.ctx.meta
    assert meta["complete"] and meta["outputs"], f"{name}: no traced action in its run"


def test_every_corpus_program_has_its_command_line():
    assert sorted(ARGS) == sorted(INPUTS)
