"""``run_traced``: load a program file, run it traced, and answer the first questions.

A program is a Python file defining ``pipeline(ctx, input_path)`` that returns the final
traced dataset, or a value an action computed (a count, a reduced number, a dict); it may
run actions in the middle too, and every job it runs is part of the traced run. It is loaded by path and shipped to the workers by value, so it needs no
installation; what it imports must be importable on the workers (perfx itself is).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import sys
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from . import sources
from .context import TracedContext
from .dataset import TracedDataset
from .errors import IsolationError
from .queries import StoredRun, outputs, top_culprits
from .records import TracedRecord


@dataclass
class IsolationResult:
    """A finished traced run: its id and metadata, the output records with their provenance
    (slowest first, with their slowest input located) and the top culprit inputs."""

    run_id: str
    meta: dict
    records: list[TracedRecord]
    outputs: pd.DataFrame
    culprits: pd.DataFrame
    value: Any = None
    """What the pipeline returned when it was not a dataset (an action's value)."""
    note: str | None = None
    """Said beside the answer: an empty output from an input that is not empty."""
    udf_culprits: pd.DataFrame | None = None
    """A script's rows whose Python UDF calls cost the most in its slowest task (None: the
    script called no Python UDF; ``udf.udf_culprits``)."""
    spark_log: str | None = None
    """Where the session perfx started for a script wrote Spark's and the Python workers'
    output (``spark_log``), when it wrote any: what a script printed on the workers
    (``foreach(print)``) is there, not on the terminal."""


def empty_output_note(meta: dict, outputs: pd.DataFrame) -> str | None:
    """A plain statement when a run's output is empty though its input is not (a program
    that filters everything out, or reads its input wrong, is not a run without culprits)."""
    if len(outputs):
        return None
    size = 0
    for source in meta.get("sources", {}).values():
        if source["kind"] == "collection":
            size += source.get("size", 0)
        else:
            size += sources.source_bytes(source)
    if not size:
        return None
    return (
        "the program's output is empty although its input is not: no output record, so no "
        "culprit; check the program's parsing and filters"
    )


def load_program(path: str | os.PathLike):
    """The program module at ``path``; raises IsolationError if it has no ``pipeline``."""
    from pyspark import cloudpickle

    path = Path(path)
    if not path.is_file():
        raise IsolationError(f"no program file {path}")
    name = f"perfx_program_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # Python loads only its own suffixes (.py, .pyc, ...)
        raise IsolationError(f"{path} is not a Python program (a .py file)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        del sys.modules[name]
        raise IsolationError(f"{path}: {type(err).__name__}: {err}") from None
    if not callable(getattr(module, "pipeline", None)):
        raise IsolationError(f"{path} defines no pipeline(ctx, input_path) function")
    cloudpickle.register_pickle_by_value(module)
    return module


QUIET_LOG4J = Path(__file__).with_name("log4j2-quiet.properties")
"""Spark's logging for the sessions perfx starts: errors only (see the file)."""


DEFAULT_MASTER = "local[2]"
"""The master perfx starts a pipeline program's session on when the user names none
(``--master``): two local cores, the machines it is built for."""

SPARK_DEFAULT_MASTER = "local[*]"
"""The master Spark runs an application on that names none (spark-submit's default, which
PySpark starts its JVM with): a script's traced run takes it where neither the script nor
the user names one, as ``python SCRIPT.py`` does. On ``DEFAULT_MASTER`` instead, a script
that printed its master printed ``local[2]`` for ``local[*]``, and one on a machine of more
cores got fewer partitions than it gets plainly (a probe of PySpark scripts). A master
named in ``spark-defaults.conf`` or ``PYSPARK_SUBMIT_ARGS`` is not looked for."""


def with_worker_sockets(builder):
    """``builder`` set to connect the JVM to its Python workers through Unix domain sockets,
    where the system has them (the pyspark installed, 4.3, reads the setting; a Spark without
    it ignores it). Over PySpark 4.3's default loopback TCP connection, a Python task spends
    25-45 ms in its worker whatever its work (measured: a task counting 10 records, 0 ms over
    a Unix socket), so that a 4-partition count took 0.21 s against 0.105 s: most of a
    traced run's time on small data (``./dev bench worker_sockets``). Only the transport
    changes: the same bytes reach the same worker code."""
    if not hasattr(socket, "AF_UNIX"):
        return builder
    return builder.config("spark.python.unix.domain.socket.enabled", "true")


def session_builder(
    master: str = DEFAULT_MASTER, name: str = "perfx", event_dir: str | None = None
):
    """A SparkSession builder for a session perfx starts itself: no Spark UI or console
    progress bar (perfx shows its own), Spark's logging down to errors, its Python workers
    reached by Unix domain sockets (``with_worker_sockets``), and, on a local master, the
    workers on this Python and the driver on the loopback address (a local run needs no
    other, and Spark warns about the host name otherwise). With ``event_dir``,
    Spark writes its event log there (Spark's own format and codec)."""
    from pyspark.sql import SparkSession

    if master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = with_worker_sockets(
        SparkSession.builder.master(master)
        .appName(name)
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.enabled", "false")
        .config(
            "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={QUIET_LOG4J.as_uri()}"
        )
    )
    if event_dir is not None:
        Path(event_dir).mkdir(parents=True, exist_ok=True)
        builder = builder.config("spark.eventLog.enabled", "true").config(
            "spark.eventLog.dir", Path(event_dir).resolve().as_uri()
        )
    return builder


def spark_session(
    master: str = DEFAULT_MASTER,
    name: str = "perfx isolate",
    event_dir: str | None = None,
    log: str | None = None,
):
    """``(session, created)``: the active SparkSession if there is one (a notebook, a test),
    else a new one from ``session_builder``; ``created`` says whether the caller should stop it.
    A new session's JVM, and the Python workers it starts, write their output to ``log``
    (``spark_log``) rather than the terminal."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    with _stderr_to(log) if log else nullcontext():
        session = session_builder(master, name, event_dir).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session, True


SPARK_LOG = "spark.log"
"""The file in a run's folder that holds Spark's and its Python workers' output."""


def spark_log(event_dir: str | None) -> str | None:
    """Where a session perfx starts for a run writes Spark's and the Python workers' output
    (their traces when a task fails): ``spark.log`` in the run's folder, beside its event
    log; None when the lineage store has no local folder (the output stays on the terminal)."""
    if event_dir is None:
        return None
    folder = Path(event_dir).parent
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / SPARK_LOG)


@contextmanager
def _stderr_to(path: str):
    """This process's standard error (file descriptor 2) points at ``path`` while the JVM
    starts: the JVM inherits it, and so do the Python workers it forks later, so log4j's
    console output, the JVM's own notices and the workers' traces all go there. Python's own
    standard error comes back when the JVM is up."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(path, "ab") as log:
            os.dup2(log.fileno(), 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def written(path: str | None) -> str | None:
    """``path`` where it names a file with something in it (a run's ``spark.log`` that Spark
    or its workers wrote to), else None."""
    return path if path and os.path.isfile(path) and os.path.getsize(path) else None


@contextmanager
def traces_in(log: str | None):
    """A run's one-line error names the file with Spark's and the Python workers' traces."""
    try:
        yield
    except IsolationError as err:
        if written(log) is None:
            raise
        raise type(err)(f"{err} (Spark's and the Python workers' traces: {log})") from None


@dataclass(frozen=True)
class TracedSession:
    """What one traced run runs in: the Spark session, the run's lineage store and id, and
    where the session writes its event log (None when event logging is off)."""

    spark: Any
    store: Any
    run_id: str
    event_log: str | None


@contextmanager
def traced_session(
    store=None,
    master: str = DEFAULT_MASTER,
    name: str = "perfx isolate",
    spark=None,
    run_id: str | None = None,
):
    """A session for one traced run: the run's store opened and its id chosen (``run_id``,
    else a new one); unless
    ``spark`` (or an active session) is given, a session started here whose event log goes
    beside the lineage and whose own and Python workers' output goes to ``spark.log`` there
    (a failing run's one-line error names that file). A session started here is stopped on
    the way out, which completes its event log."""
    lineage_store, run_id, event_dir = prepare_run(store, run_id)
    log = spark_log(event_dir)
    session, created = (
        (spark, False) if spark is not None else spark_session(master, name, event_dir, log)
    )
    with traces_in(log if created else None):
        try:
            event_log = event_log_of(session, event_dir if created else None)
            yield TracedSession(session, lineage_store, run_id, event_log)
        finally:
            if created:
                session.stop()


def check_input(input_path: str) -> None:
    """Refuse a local input that does not exist before a JVM starts (Spark would say so only
    after starting, in py4j's words). Remote URIs (``s3://``, ``hdfs://``) are Spark's to read."""
    import glob

    if "://" in input_path and not input_path.startswith("file://"):
        return
    local = input_path.removeprefix("file://").removeprefix("file:")
    if not glob.glob(local):
        raise IsolationError(f"no input at {input_path}: no file or folder matches it")


def prepare_run(store=None, run_id: str | None = None):
    """``(store, run_id, event_dir)`` for a traced run about to start: its lineage store
    opened, its id chosen, and the folder beside its lineage where a session perfx starts
    for it writes the Spark event log (None when the store has no local folder)."""
    from .context import new_run_id
    from .stores import LineageStore, open_store

    store = store if isinstance(store, LineageStore) else open_store(store)
    run_id = run_id or new_run_id()
    where = store.local_dir(run_id)
    return store, run_id, (os.path.join(where, "events") if where else None)


def event_log_of(session, event_dir: str | None) -> str | None:
    """Where the session writes its event log: ``event_dir`` if perfx configured it, else
    the session's own ``spark.eventLog.dir`` when event logging is on (a notebook's). Read
    from the session's runtime configuration, which holds its context's: a copy of the
    context's (``getConf``) costs a call to the JVM per key, 0.02 s of every traced run."""
    conf = session.conf
    if conf.get("spark.eventLog.enabled", "false").lower() != "true":
        return None
    if event_dir is not None:
        return str(Path(event_dir).resolve())
    configured = conf.get("spark.eventLog.dir", "")
    return configured.removeprefix("file://").removeprefix("file:") or None


def run_traced(
    program: str | os.PathLike,
    input_path: str,
    *,
    spark=None,
    master: str = DEFAULT_MASTER,
    store=None,
    lineage: str = "impact",
    top: int = 10,
    run_id: str | None = None,
    module=None,
    event_log: str | None = None,
    **pipeline_args,
) -> IsolationResult:
    """Runs ``program``'s pipeline on ``input_path`` traced, stores its lineage and returns
    the outputs and the top ``top`` culprits. Uses ``spark`` if given, else the active
    session, else starts (and stops) one on ``master`` that writes the traced execution's
    event log beside the run's lineage (``meta["event_log"]``), so that the run knows its own
    tasks. ``module`` is ``program`` already
    loaded by ``load_program`` (its top-level code then runs once, not twice); ``event_log``
    names where a caller's session writes its event log."""
    module = module or load_program(program)
    check_input(input_path)
    name = f"perfx isolate {Path(program).name}"
    with traced_session(store, master, name, spark, run_id) as run:
        ctx = TracedContext(
            run.spark,
            run_id=run.run_id,
            store=run.store,
            lineage=lineage,
            meta={
                "program": str(Path(program).resolve()),
                "input": input_path,
                "event_log": event_log or run.event_log,
            },
        )
        try:
            dataset = module.pipeline(ctx, input_path, **pipeline_args)
        except IsolationError:
            raise
        except Exception as err:
            raise IsolationError(
                f"{program}: pipeline raised {type(err).__name__}: {err}"
            ) from None
        value = None
        if isinstance(dataset, TracedDataset):
            records = dataset.collect_traced()
        elif not ctx._outputs:
            raise IsolationError(
                f"{program}: pipeline ran no traced action: return the final traced dataset "
                f"(or a value an action on one computed), not {type(dataset).__name__}"
            )
        else:
            records, value = [], dataset
        meta = ctx.finish()
    stored = StoredRun.open(ctx.store, ctx.run_id)
    found = outputs(stored)
    return IsolationResult(
        ctx.run_id,
        meta,
        records,
        found,
        top_culprits(stored, top),
        value,
        empty_output_note(meta, found),
    )
