"""Which master a traced script runs on: the one the user gave perfx (``--master``), else the
script's own (``.master(...)`` in its builder, ``SparkContext(master=...)``), else Spark's
own default, as the script runs plainly. A script that set ``local[5]`` and printed its
partition count printed 2 under perfx, exit 0 (a probe of public PySpark programs): its own
master had been dropped; one that set none and printed its master printed ``local[2]``.

No JVM starts here: the builder perfx would start the session from is caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfx.isolation import script
from perfx.isolation.runner import SPARK_DEFAULT_MASTER


class _Started(Exception):
    """Raised in place of starting a session: carries the master it would have used."""


@pytest.fixture
def started_on(monkeypatch):
    def session_builder(master, name, event_dir):
        raise _Started(master)

    monkeypatch.setattr(script, "session_builder", session_builder)

    def master_for(given, options):
        tracer = script.ScriptTracer(Path("job.py"), [], None, "run", None, master=given)
        with pytest.raises(_Started) as started:
            tracer._start(options)
        return started.value.args[0]

    return master_for


def test_the_scripts_own_master_unless_one_is_given(started_on):
    assert started_on(None, {"spark.master": "local[5]", "spark.app.name": "x"}) == "local[5]"
    assert started_on("local[3]", {"spark.master": "local[5]"}) == "local[3]"
    assert started_on(None, {"spark.app.name": "x"}) == SPARK_DEFAULT_MASTER == "local[*]"


def test_a_spark_context_passes_on_its_master():
    import pyspark
    from pyspark import SparkConf

    asked: list[dict] = []
    with script._sessions_from(None, lambda options: asked.append(options)):
        pyspark.SparkContext("local[1]", "positional")
        pyspark.SparkContext(master="local", appName="named")
        pyspark.SparkContext(conf=SparkConf(loadDefaults=False).setMaster("local[4]"))
        pyspark.SparkContext(appName="none")
    assert [options.get("spark.master") for options in asked] == [
        "local[1]",
        "local",
        "local[4]",
        None,
    ]
