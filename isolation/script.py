"""Run a PySpark script as it is, traced: ``perfx isolate SCRIPT.py -- ARGS``.

The script runs as ``python SCRIPT.py ARGS`` would (``runpy`` with ``__name__ ==
"__main__"``, ``sys.argv``, its folder first on ``sys.path``, the caller's working
directory). While it runs, the SparkSession and SparkContext it asks for are perfx's: the
first ``SparkSession.builder.getOrCreate()`` or ``SparkContext(...)`` starts one session
with the script's builder options plus perfx's event log (or returns the session perfx was
given), and hands the script that session behind a thin wrapper whose RDD sources
(``textFile``, ``parallelize``, ``spark.read.text(...).rdd``, ...) are traced
(``TracedContext``). The script's ``stop()`` is left to perfx, which finishes the traced run
first. DataFrame Python UDFs the script defines are timed per call (``udf.py``).
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import runpy
import sys
import time
import types
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .callers import from_pyspark
from .context import TracedContext
from .dataset import TracedDataset, untraced
from .errors import IsolationError, perfx_reading
from .runner import (
    SPARK_DEFAULT_MASTER,
    _stderr_to,
    event_log_of,
    prepare_run,
    session_builder,
    spark_log,
    written,
)

PERFX_KEYS = ("spark.master", "spark.eventLog.enabled", "spark.eventLog.dir")
"""Builder options perfx sets itself: the master (the one it was told to use, else the
script's own, else ``SPARK_DEFAULT_MASTER``) and the event log the traced run reads back."""

NOTHING_TRACED = (
    "the script ran no traced RDD action and no Python UDF{}: no record-level answer applies"
)
"""Said of a script whose run holds no record to answer with (Spark SQL only, or Python
perfx does not time: ``nothing_traced`` fills in the gap)."""


def nothing_traced(meta: dict) -> str:
    """``NOTHING_TRACED``, saying, where the script's Python ran only where perfx does not
    time it (``ScriptTracer.untimed``), what ran there."""
    untimed = meta.get("untimed") or {}
    if not untimed:
        return NOTHING_TRACED.format("")
    ran = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in sorted(untimed.items()))
    return NOTHING_TRACED.format(
        f" that perfx times (its Python ran in {ran}, which perfx does not time)"
    )


UNTRACED_SOURCES = frozenset(
    {
        "pickleFile",
        "sequenceFile",
        "newAPIHadoopFile",
        "newAPIHadoopRDD",
        "hadoopFile",
        "hadoopRDD",
        "binaryFiles",
        "binaryRecords",
    }
)
"""SparkContext methods that build an RDD perfx does not trace: a script calling one fails
at its line (an untraced RDD would silently escape the run)."""


class ScriptFailed(IsolationError):
    """The script raised or exited non-zero; its own traceback is already printed."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


class ScriptExited(ScriptFailed):
    """The script ended by ``sys.exit(N)``, N not 0, once it had run something on Spark: its
    traced run is finished and stored as any other (``tracer``), and perfx gives what it
    answers of it (``answer``, once made) before it ends with the script's status, as
    ``python SCRIPT.py`` ends (a probe's scripts that signal "done, with warnings" by their
    status got no answer)."""

    def __init__(self, message: str, exit_code: int, tracer=None, answer=None):
        super().__init__(message, exit_code)
        self.tracer, self.answer = tracer, answer


@dataclass
class ScriptTracer:
    """One script's traced run: the session it gets (started on first request unless given)
    and the traced context wrapped around it."""

    script: Path
    args: list[str]
    store: Any
    run_id: str
    event_dir: str | None
    master: str | None = None
    """The master the user named (``--master``): it wins over the script's own."""
    lineage: str = "impact"
    spark: Any = None
    warm_up: bool = False
    split_batches: bool = False
    """Tell the rows of a pandas UDF's outlier batches apart, calling its function again on
    each after the script (``udf.UdfRecorder``): asked for (``--split-batches``)."""
    created: bool = False
    ctx: TracedContext | None = None
    event_log: str | None = None
    reads: list[str] = field(default_factory=list)
    """Paths the script read through ``spark.read`` (its inputs, located for UDF culprits)."""
    udfs: Any = None
    asked: bool = False
    """The script asked for its session or context (a UDF it made may have started one
    before: ``check_started_early``)."""
    stopped: bool = False
    """The script called its session's or context's ``stop()`` (left to perfx: the traced
    run goes on in the same session)."""
    untimed: dict[str, list[str]] = field(default_factory=dict)
    """Python the script hands Spark that perfx does not time, by kind (``Python UDTFs``,
    ``mapInArrow functions``...: ``udf.UNTIMED_FACTORIES``, ``udf.UNTIMED_METHODS``) -> the
    functions' names: a run whose only Python is there has no record-level answer, and must
    not be said to run no Python (a probe of public PySpark programs: Spark's own UDTF
    example was told it ran "no Python UDF")."""
    started_ms: float = 0.0
    """When the script's own Spark work began (epoch ms; after perfx's warm-up): the tasks
    of the session's event log that are the script's."""

    # -- the session the script asks for ----------------------------------------------------

    def session(self, options: dict[str, Any] | None = None):
        """The traced context, created with the session on the script's first request."""
        if self.ctx is not None:
            return self.ctx
        options = dict(options or {})
        if self.spark is None:
            from pyspark.sql import SparkSession

            active = SparkSession.getActiveSession()
            if active is not None:
                self.spark = active
            else:
                self.spark = self._start(options)
                self.created = True
        self.event_log = event_log_of(self.spark, self.event_dir if self.created else None)
        if self.warm_up:
            _warm_up(self.spark)
        self.started_ms = time.time() * 1000
        self.ctx = TracedContext(
            self.spark,
            run_id=self.run_id,
            store=self.store,
            lineage=self.lineage,
            meta={
                "program": str(self.script.resolve()),
                "script": True,
                "args": list(self.args),
                "cwd": os.getcwd(),
                "event_log": self.event_log,
            },
        )
        from .udf import UdfRecorder

        self.udfs = UdfRecorder.for_run(
            self.store, self.run_id, self.spark.sparkContext, self.split_batches
        )
        return self.ctx

    def _start(self, options: dict[str, Any]):
        master = self.master or options.get("spark.master") or SPARK_DEFAULT_MASTER
        builder = session_builder(master, f"perfx {self.script.name}", self.event_dir)
        for key, value in options.items():
            if key not in PERFX_KEYS:
                builder = builder.config(key, value)
        log = spark_log(self.event_dir)
        with _stderr_to(log) if log else _nothing():
            session = _ORIGINAL["getOrCreate"](builder)
        session.sparkContext.setLogLevel("ERROR")
        return session

    def stop(self) -> None:
        if self.created and self.spark is not None:
            self.spark.stop()

    def check_restart(self, options: dict[str, Any]) -> None:
        """After the script stopped its session, a new one with other settings than those it
        runs with: plainly a new SparkContext would take them; a traced run goes on in the one
        session perfx started, and would silently run the rest of the script with the old
        ones (a probe's script printed 2 partitions where it had asked for 3). Runtime SQL
        options are applied as they are to a running session; anything else is refused."""
        if not self.stopped or self.spark is None:
            return
        self.stopped = False
        changed = self._unappliable(options)
        if changed:
            raise IsolationError(
                "the script stopped its Spark session and started another with other settings "
                f"({', '.join(changed)}): a traced run keeps one session and cannot apply them; "
                "give them to the script's first session"
            )

    def check_asked(self, options: dict[str, Any]) -> None:
        """The script asks for its session or context with ``options``: checked against the
        session perfx runs, restarted (``check_restart``) or started before for a UDF
        (``check_started_early``)."""
        self.check_restart(options)
        if self.spark is not None and self.created and not self.asked:
            self.check_started_early(options)
        self.asked = True

    def check_started_early(self, options: dict[str, Any]) -> None:
        """The script's first session, asked for after perfx started one for a UDF the script
        made before it (``udf.patched_udfs``: an Arrow-optimised ``@udf`` of a module, whose
        parameters PySpark reads as it is made; others wait for the script's session,
        ``udf.MadeBeforeSession``): the settings that session could not take. Plainly the
        script's session has them; traced, the run went on without them, and a probe's
        script printed ``local[2] 2`` partitions where it asked for ``local[1]`` and 3."""
        conf = self.spark.sparkContext.getConf()
        changed = self._unappliable(options, conf)
        master = options.get("spark.master")
        if (
            master
            and not self.master
            and _local_threads(str(master)) != _local_threads(conf.get("spark.master", ""))
        ):
            changed.insert(0, f"spark.master={master}")
        if changed:
            raise IsolationError(
                "the script made a UDF before its Spark session, which perfx started then "
                f"without the settings the script gives it later ({', '.join(changed)}): make "
                "the session before the UDF, or give perfx the master (--master)"
            )

    def _unappliable(self, options: dict[str, Any], conf=None) -> list[str]:
        """``key=value`` of the ``options`` the running session has otherwise and cannot
        take (perfx's own keys left out, and the app's name, which names the run and changes
        nothing it computes: a script's second session of another name, in a ``with`` block
        each, was refused, a probe found). ``conf``: the session's, where the caller has it."""
        conf = conf if conf is not None else self.spark.sparkContext.getConf()
        return [
            f"{key}={value}"
            for key, value in options.items()
            if key not in PERFX_KEYS
            and key != "spark.app.name"
            and not self.spark.conf.isModifiable(key)
            and conf.get(key, None) != str(value)
        ]


@contextmanager
def _nothing():
    yield


def _warm_up(session) -> None:
    """A small traced RDD job into a throwaway store, then a row UDF and a pandas UDF timed
    by perfx's own wrappers (``udf.py``) into a throwaway folder, before the script's first
    job: the Python workers have then imported perfx's UDF timers (and pandas, and Arrow),
    and the script's first tasks do not look slow for having started first. A plain UDF
    warmed the workers but not the timers: the script's first UDF tasks paid their import,
    about 5 s each on a loaded machine against 0.6 s for the script's slow rows, and its
    slow task was then no slower than its peer (issue 31)."""
    import tempfile

    from pyspark.sql.types import StringType
    from pyspark.sql.udf import UserDefinedFunction
    from pyspark.util import PythonEvalType

    from .udf import TaskTallies, timed_row, timed_series

    with tempfile.TemporaryDirectory(prefix="perfx-warm-up-") as work:
        with TracedContext(session, store=work) as ctx:
            parallelism = session.sparkContext.defaultParallelism
            ctx.parallelize(range(parallelism * 50), parallelism).map(str).count()
        calls = os.path.join(work, "udf")
        os.mkdir(calls)
        frame = session.range(parallelism * 50, numPartitions=parallelism)
        tally = session.sparkContext.accumulator({}, TaskTallies())
        touch = UserDefinedFunction(timed_row(str, "warm-up", calls, tally), StringType())
        frame.select(touch("id")).collect()
        texts = timed_series(lambda ids: ids.astype(str), "warm-up", calls)
        pandas = PythonEvalType.SQL_SCALAR_PANDAS_UDF  # not pandas_udf: the script's is patched
        frame.select(UserDefinedFunction(texts, StringType(), evalType=pandas)("id")).collect()


# -- what the script sees ----------------------------------------------------------------


class _StoppedByOwner:
    """A session or context handed to a script whose ``stop()`` (and ``with`` block's end)
    is left to its owner: perfx, which finishes the traced run first, or the session's
    owner for a plain run in a shared session."""

    def stop(self) -> None:
        """The session's owner stops it."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop()  # as a session's or context's own block ends: stopping it


class _StoppedForTracer(_StoppedByOwner):
    """A traced script's session or context: its ``stop()`` is perfx's, which keeps that the
    script asked (``ScriptTracer.check_restart``)."""

    _tracer: ScriptTracer

    def stop(self) -> None:
        self._tracer.stopped = True


class ScriptContext(_StoppedForTracer):
    """The SparkContext a traced script holds: RDD sources traced, the rest Spark's own."""

    def __init__(self, traced: TracedContext, tracer: ScriptTracer):
        self._traced = traced
        self._tracer = tracer
        self._sc = traced.sc
        traced.program_context = self  # what the script's datasets say is their context
        traced.raises_as_spark = True  # the script's handlers meet PySpark's own errors

    def textFile(self, name: str, minPartitions: int | None = None, use_unicode: bool = True):
        return self._traced.textFile(name, minPartitions, use_unicode)

    def wholeTextFiles(self, path: str, minPartitions: int | None = None, use_unicode=True):
        return self._traced.wholeTextFiles(path, minPartitions, use_unicode)

    def parallelize(self, c, numSlices: int | None = None):
        return self._traced.parallelize(c, numSlices)

    def union(self, rdds):
        return self._traced.union(list(rdds))

    def range(self, start: int, end: int | None = None, step: int = 1, numSlices=None):
        return self._traced.range(start, end, step, numSlices)

    def emptyRDD(self):
        return self._traced.emptyRDD()

    def getOrCreate(self, conf=None) -> ScriptContext:
        """The context itself: ``SparkContext(master=...).getOrCreate(conf=...)``, as
        tutorials write it, had returned the real context, and the script's RDDs escaped
        tracing (a probe of public PySpark programs)."""
        return self

    def __repr__(self) -> str:
        return repr(self._sc)  # a script printing its context prints Spark's

    def __getattr__(self, name: str):
        if name in UNTRACED_SOURCES:
            raise untraced(name)
        return getattr(self._sc, name)


class ScriptSession(_StoppedForTracer):
    """The SparkSession a traced script holds: its ``sparkContext`` is the traced one, its
    text reader's ``.rdd`` traced, its UDFs timed; the rest is Spark's own."""

    def __init__(self, session, tracer: ScriptTracer):
        self._session = session
        self._tracer = tracer
        self.sparkContext = ScriptContext(tracer.session(), tracer)

    @property
    def _sc(self):
        """The session's context as some of Spark's own examples read it
        (``transitive_closure.py``): the traced one too."""
        return self.sparkContext

    @property
    def read(self):
        return ScriptReader(self._session.read, self._tracer)

    @property
    def udf(self):
        from .udf import traced_registration

        return traced_registration(self._session.udf, self._tracer)

    def __repr__(self) -> str:
        return repr(self._session)  # a script printing its session prints Spark's

    def __getattr__(self, name: str):
        return getattr(self._session, name)


class ScriptReader:
    """``spark.read``: Spark's reader; the paths it reads are the run's inputs, and a text
    read's ``.rdd`` is its rows, traced."""

    def __init__(self, reader, tracer: ScriptTracer):
        self._reader = reader
        self._tracer = tracer

    def text(self, paths, *args, **kwargs):
        frame = self._reader.text(paths, *args, **kwargs)
        self._note(paths)
        if isinstance(paths, str) and not args and not kwargs:
            traced = self._tracer.session()
            frame.__class__ = _text_frame_class(type(frame))
            frame._perfx_rdd = lambda rows: traced.read.scanned(rows, paths)
        return frame

    def _note(self, paths) -> None:
        if not isinstance(paths, (str, list, tuple)):  # an RDD of lines: no file read
            return
        for path in [paths] if isinstance(paths, str) else paths:
            if isinstance(path, str) and path not in self._tracer.reads:
                self._tracer.reads.append(path)

    def __getattr__(self, name: str):
        attribute = getattr(self._reader, name)
        if name in ("csv", "json", "parquet", "orc", "load"):

            def read(path=None, *args, **kwargs):
                if path is not None:
                    self._note(path)
                return attribute(path, *args, **kwargs)

            return read
        return attribute


_TEXT_FRAMES: dict[type, type] = {}


def _text_frame_class(base: type) -> type:
    """A subclass of Spark's DataFrame class whose ``.rdd`` is its own rows, traced; named
    as its base is, so that what a script prints of its frame's class is Spark's (a probe's
    script printed ``TracedTextFrame`` for ``DataFrame``)."""
    if base not in _TEXT_FRAMES:

        def rdd(frame):
            return frame._perfx_rdd(base.rdd.__get__(frame))  # type: ignore[attr-defined]

        named = {"__qualname__": base.__qualname__, "__module__": base.__module__}
        _TEXT_FRAMES[base] = type(base.__name__, (base,), {"rdd": property(rdd), **named})
    return _TEXT_FRAMES[base]


# -- installing and running ----------------------------------------------------------------

_ORIGINAL: dict[str, Any] = {}

_PYSPARK_MODULES = (
    "pyspark.rdd",
    "pyspark.sql",
    "pyspark.sql.functions",
    "pyspark.sql.types",
    "pyspark.sql.window",
    "pyspark.sql.pandas.functions",
    "pyspark.sql.readwriter",
)
"""PySpark modules a script imports that read ``SparkContext`` from ``pyspark`` when first
imported: imported before the script's ``SparkContext`` replaces the real one there."""


def _local_threads(master: str) -> int | str:
    """The threads a local master runs tasks on (``local[*]`` as many as the machine has
    cores), or the master itself where it is no local one: two masters that run alike."""
    found = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", master.strip())
    if found is None:
        return master
    threads = found.group(1)
    if threads is None:
        return 1
    return os.cpu_count() or 1 if threads == "*" else int(threads)


@contextmanager
def _sessions_from(session_for, context_for, before_pyspark_asks=None):
    """While a script runs, ``SparkSession.builder.getOrCreate()`` gives
    ``session_for(builder, original_getOrCreate)`` and ``SparkContext(...)`` (as the script
    imports it from ``pyspark`` or ``pyspark.context``; the class PySpark's own modules hold
    stays the real one) gives ``context_for(options)``. PySpark's own calls get the real
    objects, ``before_pyspark_asks(options)`` called first where given (for
    ``getActiveSession`` too): the pandas API on Spark asks for the session the script never
    made itself."""
    import pyspark
    from pyspark.sql import SparkSession

    builder_class: Any = type(SparkSession.builder)
    _ORIGINAL["getOrCreate"] = original = builder_class.getOrCreate

    def get_or_create(builder):
        if from_pyspark():
            if before_pyspark_asks is not None:
                before_pyspark_asks(builder._options)
            return original(builder)
        return session_for(builder, original)

    original_active = vars(SparkSession)["getActiveSession"]

    @functools.wraps(original_active.__func__)
    def get_active_session(cls):
        if before_pyspark_asks is not None and from_pyspark():
            before_pyspark_asks({})
        return original_active.__func__(cls)

    real_context: Any = pyspark.SparkContext
    for module in _PYSPARK_MODULES:  # imported with the real class before it is replaced
        importlib.import_module(module)

    class ContextClass(type):
        """Class-level reads (``SparkContext._active_spark_context``) and ``isinstance``
        go to the real class: PySpark modules imported later see it through this one."""

        def __getattr__(cls, name):
            return getattr(real_context, name)

        def __instancecheck__(cls, instance) -> bool:
            return isinstance(instance, (real_context, ScriptContext, _Unstopped))

    class SparkContext(metaclass=ContextClass):
        """What ``from pyspark import SparkContext`` gives the script."""

        def __new__(cls, master=None, appName=None, *args, conf=None, **kwargs):
            if from_pyspark():
                return real_context(master, appName, *args, conf=conf, **kwargs)
            options = dict(conf.getAll()) if conf is not None else {}
            if master:
                options["spark.master"] = master
            if appName:
                options["spark.app.name"] = appName
            return context_for(options)

        @classmethod
        def getOrCreate(cls, conf=None):
            if from_pyspark():
                return real_context.getOrCreate(conf)
            return cls(conf=conf)

    def new_session(cls, *args, **kwargs):
        """``SparkSession(sc)`` of the script's context, as older programs write it: the
        session ``getOrCreate`` gives. A real session holding the traced context had handed
        PySpark's own code traced datasets (``createDataFrame`` of a list failed: a probe of
        public PySpark programs)."""
        given = args[0] if args else kwargs.get("sparkContext")
        if isinstance(given, ScriptContext) and not from_pyspark():
            return session_for(SparkSession.builder, original)
        return object.__new__(cls)

    builder_class.getOrCreate = get_or_create
    SparkSession.getActiveSession = classmethod(get_active_session)  # type: ignore[method-assign, assignment]
    own_new = vars(SparkSession).get("__new__")  # none in PySpark 4: object's
    SparkSession.__new__ = new_session  # type: ignore[method-assign]
    pyspark.SparkContext = SparkContext  # type: ignore[misc, assignment]
    real_module = sys.modules["pyspark.context"]
    sys.modules["pyspark.context"] = _module_giving(real_module, SparkContext=SparkContext)
    try:
        yield
    finally:
        builder_class.getOrCreate = original
        SparkSession.getActiveSession = original_active  # type: ignore[method-assign]
        # deleting the patch would leave ``SparkSession(sc, options=...)`` failing in this
        # process ("object.__new__() takes exactly one argument"): CPython keeps a class's
        # __new__ slot once assigned, so PySpark's next session (a notebook's, a test's) needs
        # a __new__ that takes its arguments
        SparkSession.__new__ = own_new or _object_new  # type: ignore[method-assign]
        pyspark.SparkContext = real_context  # type: ignore[misc]
        sys.modules["pyspark.context"] = real_module


def _object_new(cls, *args, **kwargs):
    """``object.__new__`` for a class whose ``__init__`` takes the arguments."""
    return object.__new__(cls)


def _module_giving(module: types.ModuleType, **names) -> types.ModuleType:
    """A stand-in for ``module`` in ``sys.modules`` whose ``names`` are replaced: what
    ``from pyspark.context import SparkContext`` (a tutorial's import) gives a script. The
    module itself is untouched: its own code reads its own globals."""
    stand_in = types.ModuleType(module.__name__, module.__doc__)
    stand_in.__dict__.update(vars(module))
    stand_in.__dict__.update(names)
    return stand_in


@contextmanager
def installed(tracer: ScriptTracer):
    """While the script runs, the session and context it asks for are the tracer's (traced
    RDD sources), and ``pyspark.sql.functions.udf``/``pandas_udf`` and ``mapInPandas`` /
    ``applyInPandas`` time each call (``udf.py``)."""
    from .udf import patched_udfs

    def session_for(builder, original):
        existed = tracer.spark is not None
        tracer.check_asked(builder._options)
        tracer.session(builder._options)
        if existed or not tracer.created:
            # the running session takes the script's runtime options, as a plain
            # getOrCreate applies them (a second builder's spark.sql.shuffle.partitions was
            # ignored traced: a probe of public PySpark programs)
            original(builder)
        return ScriptSession(tracer.spark, tracer)

    def context_for(options):
        tracer.check_asked(options)
        return ScriptContext(tracer.session(options), tracer)

    making = False

    def before_pyspark_asks(options):  # the pandas API on Spark's default session
        nonlocal making
        if tracer.ctx is None and not making:  # not again while the session is being made
            making = True
            try:
                tracer.session(options)
            finally:
                making = False

    with (
        _sessions_from(session_for, context_for, before_pyspark_asks),
        patched_udfs(tracer),
        _rdds_of_datasets(),
    ):
        yield


def _plain_values(value):
    """A traced dataset as the plain RDD of its output values (computed and traced first: its
    records' lineage ends where Spark's own code takes it), anything else as it is."""
    return value._values()[1] if isinstance(value, TracedDataset) else value


@contextmanager
def _rdds_of_datasets():
    """While a traced script runs, PySpark's functions that take an RDD take a traced dataset
    as its output values, as ``TracedDataset.toDF`` does: ``createDataFrame`` (which the
    session's, and ``SQLContext``'s, call), ``spark.read.json`` and ``spark.read.csv`` of an
    RDD of lines, and MLlib's (every RDD it hands the JVM goes through ``_py2java``). They
    failed on an object that is no RDD (a probe of public PySpark programs)."""
    from pyspark.mllib import common
    from pyspark.sql.readwriter import DataFrameReader
    from pyspark.sql.session import SparkSession

    def taking_values(original, first: str):
        """``original`` with its first argument (named ``first``) as plain values."""

        @functools.wraps(original)
        def method(self, *args, **kwargs):
            if args:
                args = (_plain_values(args[0]), *args[1:])
            elif first in kwargs:
                kwargs[first] = _plain_values(kwargs[first])
            return original(self, *args, **kwargs)

        return method

    patched = [
        (SparkSession, "createDataFrame", "data"),
        (DataFrameReader, "json", "path"),
        (DataFrameReader, "csv", "path"),
    ]
    originals = [vars(owner)[name] for owner, name, _ in patched]
    py2java = common._py2java
    for (owner, name, first), original in zip(patched, originals):
        setattr(owner, name, taking_values(original, first))
    common._py2java = lambda sc, obj: py2java(sc, _plain_values(obj))
    try:
        yield
    finally:
        for (owner, name, _), original in zip(patched, originals):
            setattr(owner, name, original)
        common._py2java = py2java


class _Unstopped(_StoppedByOwner):
    """A plain session or context whose ``stop()`` is left to its owner (a plain run of a
    script in a session it shares); its ``sparkContext`` is one too."""

    def __init__(self, wrapped):
        self._wrapped = wrapped

    @property
    def sparkContext(self):
        return _Unstopped(self._wrapped.sparkContext)

    def __repr__(self) -> str:
        return repr(self._wrapped)

    def __getattr__(self, name: str):
        return getattr(self._wrapped, name)


def run_plain(script: str | os.PathLike, args: list[str] | tuple[str, ...], spark) -> None:
    """Runs ``script`` as ``python SCRIPT.py ARGS`` would, untraced, in the given session
    (its ``getOrCreate()`` and ``SparkContext(...)`` return it; its ``stop()`` is left to
    the session's owner): the plain run a traced one is compared with and ``perfx verify``
    times. A failing script raises ScriptFailed."""
    path = check_script(script)

    def session_for(builder, original):
        return _Unstopped(original(builder))

    def context_for(options):
        return _Unstopped(spark.sparkContext)

    with _sessions_from(session_for, context_for):
        run_as_main(path, list(args))


@contextmanager
def as_main(script: Path, args: list[str]):
    """``sys.argv`` and ``sys.path[0]`` as ``python SCRIPT.py ARGS`` sets them."""
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [str(script), *map(str, args)]
    sys.path.insert(0, str(script.resolve().parent))
    try:
        yield
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path


def run_as_main(script: Path, args: list[str]) -> None:
    """Runs the script as ``__main__``. A script that raises has its own traceback printed
    (from its own frames) and ends in ScriptFailed, one that exits with another status than
    0 in ScriptExited; ``sys.exit(0)`` is a normal end."""
    with as_main(script, args):
        try:
            # by its absolute path, as Python 3.9 and later run a script: its __file__ and
            # its traceback's lines name it so
            runpy.run_path(os.path.abspath(script), run_name="__main__")
        except SystemExit as done:
            code = done.code
            if code in (None, 0):
                return
            if not isinstance(code, int):
                print(code, file=sys.stderr)
            raise ScriptExited(
                f"{script} exited with status {code}", code if isinstance(code, int) else 1
            ) from None
        except IsolationError:
            raise
        except BaseException as err:  # the script's own failure, shown as Python shows it
            reading = perfx_reading(err)
            if reading is not None:  # a traced job's failure: perfx's one line names the record
                raise reading from None
            tb = err.__traceback__
            while (
                tb is not None
                and Path(tb.tb_frame.f_code.co_filename).resolve() != script.resolve()
            ):
                tb = tb.tb_next
            if tb is None and not isinstance(err, SyntaxError):
                tb = err.__traceback__  # none of the script's frames: all of them
            # Python's own display, where 3.11's traceback module drops a NameError's "Did
            # you mean" (a probe of public PySpark programs). It shows the exception's own
            # traceback, cut here to the script's frames; a script that does not compile has
            # none: Python shows its line and a caret
            sys.__excepthook__(type(err), err.with_traceback(tb), tb)
            raise ScriptFailed(
                f"{script} failed: {type(err).__name__}: {_summary(err)}", 1
            ) from None


def _summary(err: BaseException) -> str:
    """An exception's text in one line, for the one-line error (the traceback printed above it
    has all of it): a worker's Python traceback gives its last line, the exception the user's
    code raised there; any other text its first (Spark's SQL errors add the query and a caret
    below it)."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    if not lines:
        return ""
    if "Traceback (most recent call last):" in lines:
        return lines[-1]
    java = [line for line in lines if _JAVA_RAISED.match(line)]
    if java:  # Py4J's first line names only the JVM call ("calling o41.partitions")
        return java[0][2:]
    return lines[0] + (" ..." if len(lines) > 1 else "")


_JAVA_RAISED = re.compile(r"^: [\w$]+(?:\.[\w$]+)+(?:Exception|Error)\b")
"""The line of a Py4J error that gives the exception the JVM raised: ``: org.apache.hadoop.
mapred.InvalidInputException: Input path does not exist: ...`` (a probe of public PySpark
programs: a missing input's one-line error named only the JVM method that failed)."""


def check_script(script: str | os.PathLike) -> Path:
    path = Path(script)
    if not path.is_file():
        raise IsolationError(f"no script file {path}")
    if path.suffix not in (".py", ".pyw"):
        raise IsolationError(f"{path} is not a Python script (a .py file)")
    return path


def trace_script(
    script: str | os.PathLike,
    args: list[str] | tuple[str, ...] = (),
    *,
    spark=None,
    master: str | None = None,
    store=None,
    lineage: str = "impact",
    run_id: str | None = None,
    warm_up: bool = False,
    split_batches: bool = False,
) -> ScriptTracer:
    """Runs ``script`` with ``args`` traced and finishes its run (lineage and UDF calls
    stored, run marked complete); returns the tracer (run id, store, event log). A session
    started here is stopped on the way out, which completes its event log. A failing script
    raises ScriptFailed naming where Spark's output went."""
    path = check_script(script)
    lineage_store, run_id, event_dir = prepare_run(store, run_id)
    tracer = ScriptTracer(
        path,
        list(args),
        lineage_store,
        run_id,
        event_dir,
        master,
        lineage,
        spark,
        warm_up,
        split_batches,
    )
    exited = None
    try:
        with installed(tracer):
            try:
                run_as_main(path, list(args))
            except ScriptExited as ended:
                if tracer.ctx is None:  # it ran nothing on Spark: its status is all there is
                    raise
                exited = ended
        if tracer.ctx is None:
            raise IsolationError(
                f"{path} created no SparkSession or SparkContext: nothing ran on Spark to trace"
            )
        tracer.ctx.meta["inputs"] = list(tracer.reads)
        udf_calls = tracer.udfs.finish(tracer.reads) if tracer.udfs is not None else 0
        if tracer.udfs is not None:
            for said in ("unsplit", "gone"):
                if getattr(tracer.udfs, said):
                    tracer.ctx.meta[said] = getattr(tracer.udfs, said)
        if not tracer.ctx._outputs and not udf_calls:
            tracer.ctx.meta["untraced"] = True
        if tracer.untimed:
            tracer.ctx.meta["untimed"] = tracer.untimed
        tracer.ctx.finish()
    except ScriptFailed as err:
        log = spark_log(event_dir) if tracer.created else None
        where = f"; Spark's output is in {log}" if log and os.path.isfile(log) else ""
        if tracer.ctx is not None:
            tracer.ctx._unpersist()
        raise ScriptFailed(f"{err}{where}", err.exit_code) from None
    finally:
        tracer.stop()
    if exited is not None:
        raise ScriptExited(str(exited), exited.exit_code, tracer)
    return tracer


def script_result(tracer: ScriptTracer, top: int = 10):
    """A finished script run's answer: its traced outputs and culprit inputs (RDD code) and
    the rows whose Python UDF calls cost the most in its slowest task."""
    import pandas as pd

    from .queries import StoredRun, outputs, top_culprits
    from .runner import IsolationResult, empty_output_note
    from .udf import calls_notes, stored_calls, udf_culprits

    stored = StoredRun.open(tracer.store, tracer.run_id)
    meta = stored.meta
    if meta.get("outputs"):
        found, culprits = outputs(stored), top_culprits(stored, top)
    else:
        found = culprits = pd.DataFrame()
    calls = stored_calls(tracer.store.local_dir(tracer.run_id))
    note = empty_output_note(meta, found) if meta.get("outputs") else None
    if calls is None and not meta.get("outputs"):
        note = (
            f"{nothing_traced(meta)} (perfx why SCRIPT.py gives the task-level one where a "
            "stage ran three tasks or more)"
        )
    note = "; ".join(([note] if note else []) + calls_notes(meta)) or None
    return IsolationResult(
        tracer.run_id,
        meta,
        [],
        found,
        culprits,
        None,
        note,
        None if calls is None else udf_culprits(calls, top=top),
        written(spark_log(tracer.event_dir) if tracer.created else None),
    )
