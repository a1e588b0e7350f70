"""Shared fixtures: one SparkSession per test session (a JVM start costs seconds; every PySpark
test shares it) and one Apache Ignite node per test session, started by the first test that
needs it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.data_files import DATA

__all__ = ["DATA", "ignite_node"]
"""DATA stays importable from here for the benchmarks that still do (tests/bench); tests
name their data through tests.data_files."""


if "PYTEST_XDIST_WORKER" in os.environ:
    # pytest-xdist's workers start with COLUMNS=80 in their environment; perfx reads COLUMNS
    # as the user's terminal width, and the tests expect what a pipe gets, as in one process
    os.environ.pop("COLUMNS", None)

# Every JVM that spark-submit starts for a test (the shared session, and those of the demo's,
# `perfx why`'s and scripts' subprocesses, which inherit this) compiles with C1 only and
# collects with the serial collector: test jobs are many and short, so C2's compilation
# threads cost more CPU than its code saves, on 2 cores (tests/isolation/test_oracle.py under
# -n 2: 184 s before, 156 s after). A user's Spark keeps the JVM's defaults.
os.environ.setdefault("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that uses the session's Spark (directly or through another fixture) is marked
    ``spark`` even where its module forgot the mark: ``./dev test --quick`` (``-m "not
    spark"``) must start no JVM."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)


@pytest.fixture(scope="session", autouse=True)
def perfx_home(tmp_path_factory):
    """Every test's ``$PERFX_HOME`` is a temporary folder, never the user's home, and the
    table cache (logs.cache) is off unless a test turns it on (``cache=True``, or
    ``PERFX_CACHE`` unset): an answer read back from a cache another test wrote would let a
    test pass without the reader it means to check."""
    saved = {name: os.environ.get(name) for name in ("PERFX_HOME", "PERFX_CACHE")}
    home = tmp_path_factory.mktemp("perfx-home")
    os.environ["PERFX_HOME"] = str(home)
    os.environ["PERFX_CACHE"] = "0"
    yield home
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def spark_event_dir(tmp_path_factory) -> Path:
    """Where the shared SparkSession writes its (plain, uncompressed, single-file) event log."""
    return tmp_path_factory.mktemp("spark-events")


@pytest.fixture(scope="session")
def spark(spark_event_dir):
    """One local[2] SparkSession for the whole run, logging events as plain JSON lines so
    that tests can read the log of the jobs they ran while the app is still running, and
    serving its UI (and REST API) on a free loopback port."""
    import sys

    from pyspark.sql import SparkSession

    from perfx.isolation.runner import with_worker_sockets

    # Workers run this interpreter (the venv), so they can import perfx (traced programs).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        with_worker_sockets(SparkSession.builder.master("local[2]"))
        .appName("perfx-tests")
        # the UI's REST API is a source perfx reads (perfx.open(spark)); a free port, on
        # loopback, so that parallel test runs do not contend for 4040
        .config("spark.ui.enabled", "true")
        .config("spark.ui.port", "0")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", spark_event_dir.as_uri())
        .config("spark.eventLog.compress", "false")
        .config("spark.eventLog.rolling.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def ignite_node(work: Path, **options):
    """A node of Apache Ignite started for a test (tests/ignite/node.py), stopped by the
    caller. Where none can be started, the test is skipped saying why, except under CI
    (``CI`` set), where the Ignite tests must run: there it fails."""
    from tests.ignite.node import NodeUnavailable, start

    try:
        return start(work, **options)
    except NodeUnavailable as err:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the Ignite tests: {err}")
        pytest.skip(f"no Ignite node for this test: {err}")


@pytest.fixture(scope="session")
def ignite_url(tmp_path_factory):
    """``ignite://host:port`` of an Apache Ignite node for the whole run: the one
    PERFX_IGNITE_HOST names (host or host:port), else one started here and stopped at the
    end of the run."""
    host = os.environ.get("PERFX_IGNITE_HOST")
    if host:
        yield f"ignite://{host}"
        return
    node = ignite_node(tmp_path_factory.mktemp("ignite-node"))
    yield node.url
    node.stop()
