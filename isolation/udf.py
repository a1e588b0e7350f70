"""DataFrame Python UDFs timed per call, tied to their task and to the row they read.

Inside a traced script (``script.py``), ``udf``, ``pandas_udf``, ``spark.udf.register``,
``DataFrame.mapInPandas`` and ``GroupedData.applyInPandas`` wrap the user's function before
Spark ships it: on the worker, each call (a row for a row UDF; a batch, or a group, for the
pandas forms) is timed and appended to the run's ``udf/`` folder with its task (Spark stage,
partition, attempt), its row count, a digest of the row's text and an excerpt of its
arguments.

A batch's time says which batch was slow, not which of its rows. So each worker also keeps
the arguments of its few batches that cost the most per row (``KEPT``, pickled beside the
calls); when the run finishes, where the user asked for it (``split_batches``: ``perfx why
--split-batches``), a kept batch that cost far more per row than the UDF's cheapest batch
(``OUTLIER``), or a UDF's only batch, has its rows timed one by one on the driver, with the
script's own function, and its time shared among them in proportion. The re-timing happens
after the Spark job, so the tasks' times are the traced run's own. It calls the script's
function again, on rows alone, after the script: whatever else the function does (a row
appended to a file, a database written) it does again, and a script's audit file had 1,133
lines more than its plain run's (a probe of PySpark scripts). So it is asked for, never
done unasked: otherwise the batches stay whole, and the UDFs they are of are noted
(``UdfRecorder.unsplit``) for the answer to say how to split them.

The calls are stored as ``udf_calls.feather`` beside the lineage, each row digest located
where the script read it from text (``path@offset`` and line number), so that ``perfx
culprits``/``perfx why`` name the rows and ``perfx verify`` can remove them.
"""

from __future__ import annotations

import functools
import glob
import heapq
import importlib
import inspect
import io
import json
import os
import pickle
import sys
import time
import warnings
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from statistics import median
from typing import Any

import pandas as pd
from pyspark.accumulators import AccumulatorParam

from . import linehash
from .callers import from_pandas_on_spark, from_pyspark, script_function_within
from .errors import IsolationError

CALLS = "udf_calls.feather"
"""The table of a run's UDF calls, in the run's folder (Arrow IPC: the lineage store reads
every ``.parquet`` file of a run as a stage's partition)."""

OUTLIER = 4.0
"""A kept batch costing this many times its UDF's cheapest per-row cost has its rows timed."""

OUTLIER_MIN_NS = 2_000_000
"""...if it also cost at least this much (2 ms): cheap batches are not worth a look."""

KEPT = 3
"""Batches per worker and UDF whose arguments are kept for the rows' timing."""

EXCERPT = 120

NOTED_NS = 50_000
"""A row UDF call this slow (50 µs) is recorded with its row's digest and arguments; a
cheaper one with its time only (it cannot be a culprit; digesting every row would cost more
than many UDFs do). Only rows that cost this much are located in the input: a cheaper row
is no culprit (``perfx why`` names none under a millisecond, ``chain.MIN_IMPACT_MS``), and
a run whose rows are all cheap is stored without a pass over its input."""


def under_noted(ms):
    """Whether a row's UDF time (ms: a number or a Series) is under ``NOTED_NS``: such a row
    is no culprit and is never located in the input (``UdfRecorder.finish``)."""
    return ms * 1e6 < NOTED_NS


def noted_words() -> str:
    """``NOTED_NS`` as a reader is told it (``50 µs``)."""
    return f"{NOTED_NS // 1000} µs"


WITNESSES = 20
"""A task's first calls are recorded with their rows whatever their cost: they tell which
input files the task read (a repeated line is placed among those)."""

CANDIDATES = 50
"""The costliest calls per task located in the input, of those that cost at least
``NOTED_NS`` (the culprits come from these)."""

COLUMNS = [
    "udf",
    "spark_stage",
    "partition",
    "attempt",
    "ns",
    "rows",
    "batch",
    "digest",
    "excerpt",
]
"""A call's record: the UDF, its task, its time, its rows (1 for a row UDF), the kept
batch's id (or ""), the row's text digest and its arguments' excerpt."""


def digest(value: Any) -> str | None:
    """The row's text digest (its first string argument), matched against input lines."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return None
    return linehash.digest(value.encode("utf-8"))


def _excerpt(values) -> str:
    text = ", ".join(repr(v) for v in values)
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"


# -- on the worker -------------------------------------------------------------------------

_SINKS: dict[str, int] = {}
_KEPT: dict[tuple[str, str], list[tuple[float, str]]] = {}


def _task() -> tuple[int, int, int]:
    from pyspark import TaskContext

    task = TaskContext.get()
    if task is None:
        return -1, -1, -1
    return task.stageId(), task.partitionId(), task.attemptNumber()


def _write(folder: str, record: list) -> None:
    """One call, appended at once (a worker may be killed between tasks: nothing buffered)."""
    _write_line(folder, json.dumps(record, ensure_ascii=False) + "\n")


def _write_line(folder: str, line: str) -> None:
    fd = _SINKS.get(folder)
    if fd is None:
        fd = os.open(
            os.path.join(folder, f"calls-{os.getpid()}.jsonl"),
            os.O_WRONLY | os.O_CREAT | os.O_APPEND,
            0o644,
        )
        _SINKS[folder] = fd
    os.write(fd, line.encode("utf-8"))


class TaskTallies(AccumulatorParam):
    """A row UDF's cheap calls, per task: ``{(stage, partition, attempt): [calls,
    seconds]}``, summed by a Spark accumulator.

    A cheap call cannot be a culprit, but its time is its task's: every task's UDF time must
    add up. Writing a line per call cost more than the UDFs it timed (a regex on a short line:
    tracing ran 4x the plain script), and so did storing each call's counts in a shared file
    mapping (the worker cannot tell which call is a task's last). An accumulator's value is
    what Spark sends back with the task's result: the worker counts in place, and PySpark
    writes the counts when the task ends, before the task is done; the driver has added them
    up (and acknowledged them) before the job returns. A failed attempt's counts are not
    added, as Spark adds no accumulator of a failed task; its recorded calls are kept."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, value1: dict, value2: dict) -> dict:
        for task, (calls, seconds) in value2.items():
            counts = value1.setdefault(task, [0, 0.0])
            counts[0] += calls
            counts[1] += seconds
        return value1


class _TaskCalls:
    """A row UDF's timer state in one task, on the worker: the task, how many of its calls
    were recorded with their row, and its counts in the UDF's ``TaskTallies`` once those
    are ``WITNESSES``.

    PySpark's worker unpickles a task's UDFs for every task (``worker.read_command``), and an
    instance unpickles as a new one (``__reduce__``): each task's timer starts afresh, and
    calls on the driver before the function was shipped do not travel with it. The timer
    need not ask Spark for the task on every call, which cost a third of its time."""

    __slots__ = ("counts", "recorded", "task")

    def __init__(self) -> None:
        self.recorded = 0
        self.task: tuple[int, int, int] | None = None
        self.counts: list[float] | None = None  # [calls, seconds]

    def __reduce__(self):
        return _TaskCalls, ()

    def of_task(self) -> tuple[int, int, int]:
        if self.task is None:
            self.task = _task()
        return self.task


def timed_row(function, name: str, folder: str, tally):
    """A row UDF's function timed per call: a task's first ``WITNESSES`` calls and every call
    of at least ``NOTED_NS`` recorded with its row; the others counted in the task's entry of
    ``tally`` (an accumulator of ``TaskTallies``: calls and seconds). The cheap path is what
    a cheap UDF's tracing costs: two clock reads and two additions. The clock is
    ``perf_counter``'s float seconds, exact to the nanosecond over days of uptime: the
    integer nanoseconds of ``perf_counter_ns`` are a new large int on every read, which made
    the clock reads cost twice as much.

    Spark passes a UDF's columns by position, or by name (``f(s=col)``, since PySpark 3.5).
    A function of plain parameters (``def f(s)``, most UDFs) gets a timer with the same
    parameters (``_TIMER``), which takes either; any other gets one of ``*args, **kwargs``,
    whose packing cost a third of a cheap call's tracing."""
    clock = time.perf_counter
    noted = NOTED_NS / 1e9
    mine = _TaskCalls()

    def note(args: tuple, spent: float) -> None:
        task = mine.of_task()
        first = next((a for a in args if isinstance(a, (str, bytes))), None)
        ns = round(spent * 1e9)
        _write(folder, [name, *task, ns, 1, "", digest(first), _excerpt(args)])
        mine.recorded += 1
        if mine.recorded == WITNESSES:
            # the worker's accumulator of this task (PySpark's Accumulator has no public
            # read inside a task); two uses of the UDF in one task share its entry
            mine.counts = tally._value.setdefault(task, [0, 0.0])

    names = _plain_parameters(function)
    if names is None:
        written = _ANY_ARGUMENTS
    else:
        listed = ", ".join(names)
        written = (listed, listed, f"({listed},)")
    call = _timer_of(written)(function, clock, noted, mine, note)
    return standing_in(function, call)


_TIMER = """
def timer(function, clock, noted, mine, note):
    def call({0}):
        started = clock()
        result = function({1})
        spent = clock() - started
        counts = mine.counts
        if counts is not None and spent < noted:
            counts[0] += 1
            counts[1] += spent
            return result
        note({2}, spent)
        return result
    return call
"""
"""``timed_row``'s timer, written with its parameters (``{0}``), the call of the function
with them (``{1}``) and the row's values (``{2}``), as ``dataclasses`` writes a class's
``__init__``: for a function of plain parameters, those parameters (the names of
``timer``'s own arguments and locals are never one of them: ``_plain_parameters``)."""

_ANY_ARGUMENTS = ("*args, **kwargs", "*args, **kwargs", "(*args, *kwargs.values())")
"""``_TIMER`` written for any other function."""

_TIMER_NAMES = frozenset(
    "timer function clock noted mine note call started result spent counts".split()
)
"""The names ``_TIMER`` uses: a function with a parameter of one of them gets the timer of
``*args, **kwargs``."""


def _plain_parameters(function) -> list[str] | None:
    """The names of a Python function's parameters when each is a plain one (no default, no
    ``*``, no keyword-only) and none is a name of ``_TIMER``'s; else None."""
    if not inspect.isfunction(function):
        return None
    try:
        signature = inspect.signature(function, follow_wrapped=False)
    except (TypeError, ValueError):
        return None
    plain = inspect.Parameter.POSITIONAL_OR_KEYWORD
    names = []
    for parameter in signature.parameters.values():
        if parameter.kind is not plain or parameter.default is not parameter.empty:
            return None
        names.append(parameter.name)
    if not names or _TIMER_NAMES & set(names):
        return None
    return names


@functools.lru_cache(maxsize=64)
def _timer_of(written: tuple[str, str, str]):
    """``_TIMER``'s ``timer``, written with these parameters, call and row (identifiers from a
    function's own signature, or ``_ANY_ARGUMENTS``)."""
    namespace: dict[str, Any] = {"__name__": __name__}  # its functions' module: this one
    # a traceback through the timer names it, not "<string>"
    exec(compile(_TIMER.format(*written), "<perfx's UDF timer>", "exec"), namespace)
    return namespace["timer"]


def _rows_of(batch) -> int:
    frame = batch[-1] if isinstance(batch, tuple) else batch
    return len(frame)


def _record_batch(
    folder: str, name: str, spent: int, batch, keep: bool = True, *, named: str = ""
) -> None:
    """A batch's call; its arguments kept (pickled) while among the worker's ``KEPT``
    costliest per row for this UDF (unless ``keep`` is false: they could not be passed
    again by position); ``named`` says which batch it is (a group's key)."""
    rows = _rows_of(batch)
    kept_id = ""
    per_row = spent / max(rows, 1)
    heap = _KEPT.setdefault((folder, name), [])
    if keep and rows and (len(heap) < KEPT or per_row > heap[0][0]):
        kept_id = f"{os.getpid()}-{time.perf_counter_ns()}"
        with open(os.path.join(folder, f"batch-{kept_id}.pkl"), "wb") as out:
            pickle.dump(batch, out, protocol=pickle.HIGHEST_PROTOCOL)
        heapq.heappush(heap, (per_row, kept_id))
        if len(heap) > KEPT:
            _, evicted = heapq.heappop(heap)
            with_path = os.path.join(folder, f"batch-{evicted}.pkl")
            if os.path.exists(with_path):
                os.remove(with_path)
    _write(folder, [name, *_task(), spent, rows, kept_id, None, f"{named} ({rows} rows)".lstrip()])


def timed_series(function, name: str, folder: str):
    """A pandas UDF (Series or DataFrame arguments, one batch per call) timed per batch.
    Spark passes the columns by position or by name (``f(s=col)``); a batch is kept with
    its arguments by position, as the driver passes them again (``_one_row``)."""

    def call(*args, **kwargs):
        started = time.perf_counter_ns()
        result = function(*args, **kwargs)
        spent = time.perf_counter_ns() - started
        positional = _by_position(function, args, kwargs)
        if positional is None:  # a keyword-only parameter: timed, not kept
            _record_batch(folder, name, spent, (*args, *kwargs.values()), keep=False)
        else:
            _record_batch(folder, name, spent, positional)
        return result

    return standing_in(function, call)


def _by_position(function, args: tuple, kwargs: dict) -> tuple | None:
    """``function``'s arguments, named ones included, in the order of its parameters; None
    where one can only be passed by name, or where its parameters are unknown."""
    if not kwargs:
        return tuple(args)
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except (TypeError, ValueError):  # no signature to bind by (a builtin's, say)
        return None
    return None if bound.kwargs else tuple(bound.args)


def timed_batches(function, name: str, folder: str):
    """A function of an iterator of pandas batches that yields a result per batch
    (``mapInPandas``'s, an iterator pandas UDF's) timed per input batch: the time from
    taking a batch to asking for the next one."""

    def call(batches):
        fed, done = _batch_clock(batches, name, folder)
        yield from function(fed)
        done()

    return standing_in(function, call)


def timed_batch_aggregate(function, name: str, folder: str):
    """A pandas UDF that folds a group's iterator of batches into one value
    (``Iterator[pd.Series] -> float``), timed per input batch as ``timed_batches``."""

    def call(batches):
        fed, done = _batch_clock(batches, name, folder)
        value = function(fed)
        done()
        return value

    return standing_in(function, call)


def _batch_clock(batches, name: str, folder: str):
    """``batches`` as fed to the user's function, each recorded with the time from when the
    function took it to when it asked for the next one; and what records the last one."""
    current: dict[str, Any] = {}

    def feed():
        for batch in batches:
            current["batch"], current["started"] = batch, time.perf_counter_ns()
            yield batch
            done()

    def done():
        batch = current.pop("batch", None)
        if batch is not None:
            spent = time.perf_counter_ns() - current["started"]
            _record_batch(folder, name, spent, batch)

    return feed(), done


def timed_groups(function, name: str, folder: str):
    """An ``applyInPandas`` function (a group's DataFrame, with or without its key) timed
    per group, the group named by its key in the call's excerpt: all of a grouped map's
    groups may have as many rows, and "(750 rows)" did not say which was slow (a probe of
    PySpark scripts). PySpark's worker passes the key to a function of two parameters: the
    timer takes it, and passes it on to a function that takes it.

    A function of another number of parameters is returned as it is, for PySpark to refuse
    it as it does plainly (a timer of two parameters in its place ran a script that fails
    plainly: an object whose ``__call__`` takes the key and the group)."""
    parameters = len(inspect.getfullargspec(function).args)
    if parameters not in (1, 2):
        return function

    def call(key, frame):
        args = (frame,) if parameters == 1 else (key, frame)
        started = time.perf_counter_ns()
        result = function(*args)
        spent = time.perf_counter_ns() - started
        _record_batch(folder, name, spent, args, named=f"group {_excerpt(_plain(key))}")
        return result

    return standing_in(function, lambda key, frame: call(key, frame))


def _plain(values: tuple) -> tuple:
    """A group's key with numpy's scalars as Python's (``3``, not ``np.int64(3)``)."""
    return tuple(value.item() if hasattr(value, "item") else value for value in values)


# -- on the driver -------------------------------------------------------------------------


def _one_row(kind: str, function, batch, i: int):
    """A call of ``function`` on row ``i`` of a kept batch alone (its result consumed)."""
    if kind == "map":
        for _ in function(iter([batch.iloc[i : i + 1]])):
            pass
    elif kind == "iter":  # a batch is a Series or frame, or a tuple of them (several columns)
        row = (
            tuple(a.iloc[i : i + 1] for a in batch)
            if isinstance(batch, tuple)
            else batch.iloc[i : i + 1]
        )
        results = function(iter([row]))
        if isinstance(results, Iterator):  # not one value: an aggregate's
            for _ in results:
                pass
    elif kind == "group":
        function(*batch[:-1], batch[-1].iloc[i : i + 1])
    else:
        function(*[a.iloc[i : i + 1] if hasattr(a, "iloc") else a for a in batch])


def _row_values(kind: str, batch) -> list[tuple[str | None, str]]:
    """(digest, excerpt) of each row of a kept batch."""
    if kind == "group":
        frames = [batch[-1]]
    elif kind in ("map", "iter") and not isinstance(batch, tuple):
        frames = [batch]
    else:
        frames = list(batch)
    columns = []
    for frame in frames:
        if isinstance(frame, pd.DataFrame):
            columns += [frame[c].tolist() for c in frame.columns]
        elif isinstance(frame, pd.Series):
            columns.append(frame.tolist())
    rows = []
    for values in zip(*columns) if columns else []:
        first = next((v for v in values if isinstance(v, (str, bytes))), None)
        rows.append((digest(first), _excerpt(values)))
    return rows


class UdfRecorder:
    """Where a run's UDF calls go while it runs, the script's functions by the name their
    calls are recorded under, each row UDF's tally of cheap calls (an accumulator of the
    run's SparkContext), and the calls' table when the run finishes."""

    def __init__(self, run_dir: Path, context, split_batches: bool = False):
        self.run_dir = run_dir
        self.folder = run_dir / "udf"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.context = context
        self.split_batches = split_batches
        """Time the rows of the outlier batches alone, calling the script's function again."""
        self.functions: dict[str, tuple[str, Any]] = {}
        self.tallies: dict[str, Any] = {}
        self.unsplit: list[str] = []
        """The UDFs whose outlier batches stayed whole (``split_batches`` not asked for)."""
        self.gone: list[str] = []
        """The script's local inputs that were gone when their rows were looked for."""

    @classmethod
    def for_run(cls, store, run_id: str, context, split_batches: bool = False) -> UdfRecorder:
        where = store.local_dir(run_id)
        if where is None:
            raise IsolationError(
                "tracing a script's UDFs needs a lineage store on a local folder (not ignite://)"
            )
        return cls(Path(where), context, split_batches)

    def row_timer(self, function):
        """``function`` as a row UDF timed into this run (``timed_row``)."""
        name = self.name(function, "row")
        if name not in self.tallies:
            self.tallies[name] = self.context.accumulator({}, TaskTallies())
        return timed_row(function, name, str(self.folder), self.tallies[name])

    def name(self, function, kind: str, shown=None) -> str:
        """The name ``function``'s calls are recorded under (its own, or that of the script's
        function ``shown`` it calls; numbered if taken)."""
        base = _name_of(function if shown is None else shown)
        name, number = base, 1
        while name in self.functions and self.functions[name][1] is not function:
            number += 1
            name = f"{base}#{number}"
        self.functions[name] = (kind, function)
        return name

    def calls(self) -> pd.DataFrame:
        rows: list[list] = []
        for part in sorted(self.folder.glob("calls-*.jsonl")):
            text = part.read_text(encoding="utf-8")
            whole = text[: text.rfind("\n") + 1]  # a line cut short by a killed worker: out
            rows.extend(json.loads("[" + whole.replace("\n", ",").rstrip(",") + "]"))
        for name, tally in self.tallies.items():  # after every recorded call: see finish
            for (stage, partition, attempt), (count, seconds) in tally.value.items():
                ns = round(seconds * 1e9)
                rows.append([name, stage, partition, attempt, ns, count, "", None, None])
        return pd.DataFrame(rows, columns=COLUMNS)

    def finish(self, inputs: list[str] | None = None) -> int:
        """Stores the calls (outlier batches split into their rows; each task's
        ``CANDIDATES`` costliest rows of at least ``NOTED_NS`` located in ``inputs``, with
        its ``WITNESSES`` first rows where one of those lines repeats) as one table; returns
        how many."""
        calls = self.calls()
        if calls.empty:
            return 0
        calls = self._rows_of_outliers(calls)
        task = ["udf", "spark_stage", "partition", "attempt"]
        calls["occurrence"] = calls.groupby([*task, "digest"], dropna=True).cumcount()
        calls["position"] = calls.groupby(task).cumcount()
        costly = calls.groupby(task)["ns"].rank(method="first", ascending=False)
        candidate = (costly <= CANDIDATES) & (calls["ns"] >= NOTED_NS)
        costliest = chosen = calls[candidate]
        located: dict[str, list[tuple[str, int]]] = {}
        if costliest["digest"].notna().any():
            # the witnesses place a repeated line (_placed); one pass over the input finds both
            chosen = calls[candidate | (calls["position"] < WITNESSES)]
            located = locate_lines(inputs or [], set(chosen["digest"].dropna()))
            self.gone = [path for path in inputs or [] if _gone(path)]
            if not any(len(located.get(d, ())) > 1 for d in costliest["digest"].dropna()):
                chosen = costliest  # no repeated line to place: the witnesses are not needed
        calls["location"], calls["line"] = None, float("nan")
        where, lines = _placed(chosen, located)
        calls.loc[chosen.index, "location"] = where
        calls.loc[chosen.index, "line"] = lines
        calls.drop(columns=["occurrence", "position"]).to_feather(self.run_dir / CALLS)
        return len(calls)

    def _outliers(self, calls: pd.DataFrame) -> list[tuple[Any, pd.Series, float | None]]:
        """(index, call, the UDF's cheapest per-row cost or None for its only batch) of each
        kept batch that cost ``OUTLIER`` times its UDF's cheapest per-row cost, or is its
        UDF's only batch: the batches whose rows are worth telling apart."""
        batches = calls[(calls["batch"] != "") & (calls["rows"] > 0)]
        per_row = calls["ns"] / calls["rows"].clip(lower=1)
        found = []
        for index, call in batches.iterrows():
            if call["udf"] not in self.functions or call["ns"] < OUTLIER_MIN_NS:
                continue
            of_udf = (calls["udf"] == call["udf"]) & (calls["rows"] > 0)
            cheapest = per_row[of_udf].min()
            alone = of_udf.sum() == 1
            if not alone and per_row[index] <= OUTLIER * cheapest:
                continue
            if (self.folder / f"batch-{call['batch']}.pkl").is_file():
                found.append((index, call, None if alone else float(cheapest)))
        return found

    def _rows_of_outliers(self, calls: pd.DataFrame) -> pd.DataFrame:
        """Each outlier batch (``_outliers``) replaced by its rows, each timed alone here and
        given its share of the batch's measured time, where the user asked for it
        (``split_batches``); otherwise the batches stay whole, their UDFs noted in
        ``unsplit``."""
        outliers = self._outliers(calls)
        if not self.split_batches:
            self.unsplit = list(dict.fromkeys(call["udf"] for _, call, _ in outliers))
            return calls
        split, replaced = [], []
        for index, call, ordinary in outliers:
            kind, function = self.functions[call["udf"]]
            kept = self.folder / f"batch-{call['batch']}.pkl"
            with kept.open("rb") as handle:
                batch = pickle.load(handle)
            times = _times_alone(kind, function, batch, int(call["ns"]))
            if times is None:
                continue  # its rows do not run alone: the batch stays whole
            for (row_digest, text), ns in zip(
                _row_values(kind, batch), _shares(times, int(call["ns"]), ordinary)
            ):
                split.append(
                    {
                        **call.to_dict(),
                        "ns": ns,
                        "rows": 1,
                        "digest": row_digest,
                        "excerpt": text,
                    }
                )
            replaced.append(index)
        if not replaced:
            return calls
        return pd.concat(
            [calls.drop(index=replaced), pd.DataFrame(split, columns=COLUMNS)], ignore_index=True
        )


def _gone(path: str) -> bool:
    """Is ``path``, a local input the script read, gone: no file of it left to search?"""
    local = "://" not in path or path.startswith("file:")
    return local and not input_files(path)


def calls_notes(meta: dict) -> list[str]:
    """What the answer says of how a run's UDF calls were read: the pandas UDFs whose
    costliest batches stayed whole (``UdfRecorder.unsplit``: how to tell their rows apart,
    and at what price), the inputs that were gone when their rows were looked for
    (``UdfRecorder.gone``: a script that removes its temporary input left its rows "(not
    located)", unexplained: a probe of PySpark scripts)."""
    notes = []
    if names := meta.get("unsplit"):
        notes.append(
            f"the costliest calls of {', '.join(names)} are whole batches of rows; "
            "--split-batches tells their rows apart by calling the function again on each row "
            "alone after the script, which repeats whatever else it does (a file or table it "
            "writes)"
        )
    if gone := meta.get("gone"):
        notes.append(
            f"the script's input {', '.join(gone)} was gone when perfx looked for its rows in it "
            "(the script removed it?): the rows read from it are not located"
        )
    return notes


@contextmanager
def _unprinted():
    """What the script's function prints while perfx times its rows again on the driver is
    not the script's output: a grouped-map UDF's ``print(df)`` printed one group's rows twice
    more after the script's own output (a probe of public PySpark programs)."""
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        yield


SAMPLED_ROWS = 8
"""Rows of a batch timed alone first, to foresee what timing them all would cost."""

RETIMING_BUDGET_NS = 5_000_000_000
"""What timing a batch's rows alone may cost beyond ``RETIMING_FOLD`` times the batch's own
time: a pandas UDF with a fixed cost per call (a model loaded per batch, 20 ms) costs that for
each row alone, and timing 2,000 rows twice took 80 s after a 27 s script, to rank rows that
each cost the same (a probe of public PySpark programs)."""

RETIMING_FOLD = 4
"""Times the batch's own measured time that timing its rows alone may cost (each call's fixed
part once per row, and the dear rows twice), before ``RETIMING_BUDGET_NS``."""

AGAIN_FOLD = 1.5
"""A row timed alone at more than this many times the batch's median row is timed again, and
its fastest time kept: a pause of the machine must not make an ordinary row a culprit. Every
row was timed twice: a mapInPandas batch of 6,000 lines took 4.8 s of its 6.5 s budget to
time on a quiet machine, and went over it on a busy one, where its slow lines went unnamed."""


def _times_alone(kind: str, function, batch, batch_ns: int) -> list[int] | None:
    """Each row of a kept batch timed alone (``_time_alone``), or None where they cannot be:
    the script's function refuses a row alone (a grouped-map function may check its group,
    at least two readings per sensor, and raise on a one-row frame the plain run never gave
    it, which ended a traced run Spark had finished in an internal error), or timing them
    would cost more than ``RETIMING_FOLD`` times the batch plus ``RETIMING_BUDGET_NS``
    (foreseen from the median of the first ``SAMPLED_ROWS``, whose costly rows must not make
    the rest look dear, and checked as it goes): a per-call cost then outweighs what sets
    rows apart. The batch is then the finest unit the run answers for."""
    allowed = RETIMING_FOLD * batch_ns + RETIMING_BUDGET_NS
    rows = _rows_of(batch)
    times: list[int] = []
    ends = time.perf_counter_ns() + allowed
    try:
        with _unprinted():
            for i in range(rows):
                times.append(_time_alone(kind, function, batch, i))
                if len(times) == min(SAMPLED_ROWS, rows) and median(times) * rows > allowed:
                    return None  # the sample's typical row, for each row: too dear
                if time.perf_counter_ns() > ends:
                    return None
            dear = AGAIN_FOLD * median(times)
            for i in [i for i, spent in enumerate(times) if spent > dear]:
                times[i] = min(times[i], _time_alone(kind, function, batch, i))
                if time.perf_counter_ns() > ends:
                    return None
    except Exception:  # the script's own function, on input it was never given: any error
        return None
    return times


def _time_alone(kind: str, function, batch, i: int) -> int:
    """Row ``i`` of a kept batch called alone, timed (a dear row twice: ``AGAIN_FOLD``)."""
    began = time.perf_counter_ns()
    _one_row(kind, function, batch, i)
    return time.perf_counter_ns() - began


def _shares(alone: list[int], batch_ns: int, ordinary_ns: float | None = None) -> list[int]:
    """The batch's measured time shared among its rows from their times alone. A row alone
    pays the call's fixed cost (a one-row Series or frame, the iterator), which the batch paid
    once: what a row costs above the median row alone is what sets it apart.

    Where the UDF ran other batches, an ordinary row costs in a batch what a row of its
    cheapest batch cost (``ordinary_ns``): the rest of this batch's time is its costly rows',
    shared in proportion to what each cost above the median alone. The driver's timing says
    which rows; the worker's batch says how much (a row alone on the driver runs at another
    speed than in a loaded worker: spreading what the driver did not account for over every
    row put 330 ms on 5,997 rows that cost 1.2 ms in the UDF's other batch). A UDF's only
    batch has no such measure: a row's own cost is its excess alone (the batch's time bounds
    it), and the rest of the batch's time is shared evenly."""
    if not alone:
        return []
    median = sorted(alone)[len(alone) // 2]
    excess = [max(t - median, 0) for t in alone]
    total = sum(excess)
    if ordinary_ns is not None and total:
        extra = max(batch_ns - ordinary_ns * len(alone), 0)
        return [int(ordinary_ns + extra * e / total) for e in excess]
    scale = min(1.0, batch_ns / total) if total else 0.0
    rest = max(batch_ns - total * scale, 0) / len(alone)
    return [int(e * scale + rest) for e in excess]


def input_files(path: str) -> list[Path]:
    """The local files a Spark read of ``path`` (a file, a folder, a glob) reads."""
    root = path.removeprefix("file://").removeprefix("file:")
    found = []
    for match in sorted(glob.glob(root)):
        where = Path(match)
        if where.is_dir():
            found += sorted(
                f for f in where.rglob("*") if f.is_file() and not f.name.startswith((".", "_"))
            )
        elif where.is_file():
            found.append(where)
    return found


BLOCK = 1 << 24
"""Bytes of an input file searched at a time while locating lines (16 MiB)."""


def locate_lines(inputs: list[str], wanted: set[str]) -> dict[str, list[tuple[str, int]]]:
    """Digest -> every (``path@offset``, line number from 1) of an input line with it, in
    file order: one pass over the input, a block at a time (``linehash.find``).

    The pass runs when the script's job is done, and its blocks are searched on every core:
    numpy lets go of the interpreter's lock while it scans a block, and the scans are most
    of the pass. A block more than there are cores is read ahead; the results are taken in
    file order, which numbers the lines."""
    located: dict[str, list[tuple[str, int]]] = {}
    if not wanted:
        return located
    searched: deque = deque()
    lines_before: dict[str, int] = {}  # a file's lines in its blocks taken so far

    def take() -> None:
        name, base, search = searched.popleft()
        found, lines = search.result()
        number = lines_before.get(name, 0)
        for key, offsets, indexes in found:
            located.setdefault(key, []).extend(
                zip(
                    [f"{name}@{base + offset}" for offset in offsets],
                    [number + index + 1 for index in indexes],
                )
            )
        lines_before[name] = number + lines

    cores = os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=cores) as pool:
        for name, base, data in _input_blocks(inputs):
            searched.append((name, base, pool.submit(linehash.find, data, wanted)))
            if len(searched) > cores:
                take()
        while searched:
            take()
    return located


def _input_blocks(inputs: list[str]):
    """(file's resolved path, byte offset, data) of every block of every input file, once
    each, in the inputs' order."""
    seen: set[Path] = set()
    for path in inputs:
        for file in input_files(path):
            if file.resolve() in seen:
                continue
            seen.add(file.resolve())
            for base, data in _blocks(file):
                yield str(file.resolve()), base, data


def _blocks(file: Path):
    """(byte offset, data) of ``file``'s blocks of whole lines."""
    base = 0
    rest = b""
    with file.open("rb") as handle:
        while True:
            block = handle.read(BLOCK)
            data = rest + block
            if block:  # the last line of a block may go on in the next one (a CR ending
                # the block may be a CR LF's)
                cut = max(data.rfind(b"\n"), data.rfind(b"\r", 0, len(data) - 1)) + 1
                data, rest = data[:cut], data[cut:]
            else:
                rest = b""
            if data:
                yield base, data
                base += len(data)
            if not block:
                return


def _placed(calls: pd.DataFrame, located: dict[str, list[tuple[str, int]]]):
    """Each call's (location, line). A line that occurs once is where its digest is; a
    line that repeats is placed by order: a task's calls follow its input in file order, so
    its k-th call with that text (``occurrence``) is the k-th occurrence among the files
    the task's unique lines come from (a task reads its own files)."""
    where: list[str | None] = [None] * len(calls)
    lines: list[float] = [float("nan")] * len(calls)
    digests, occurrences = calls["digest"].tolist(), calls["occurrence"].tolist()
    tasks = calls.groupby(["udf", "spark_stage", "partition", "attempt"], sort=False).indices
    files_of = {  # each located line's files, in the order of its places
        key: [place.rsplit("@", 1)[0] for place, _ in places] for key, places in located.items()
    }
    for rows in tasks.values():
        files = {
            files_of[digests[r]][0]
            for r in rows
            if digests[r] in located and len(located[digests[r]]) == 1
        }
        for row in rows:
            places = located.get(digests[row]) if digests[row] is not None else None
            if not places:
                continue
            if len(places) > 1:
                in_files = files_of[digests[row]]
                mine = [p for p, f in zip(places, in_files) if f in files] or places
                places = [mine[min(int(occurrences[row]), len(mine) - 1)]]
            where[row], lines[row] = places[0]
    return where, lines


def stored_calls(run_dir: str | os.PathLike | None) -> pd.DataFrame | None:
    """A finished run's UDF calls, or None when its script called no Python UDF."""
    if run_dir is None:
        return None
    where = Path(run_dir) / CALLS
    return pd.read_feather(where) if where.is_file() else None


def slowest_task(calls: pd.DataFrame) -> tuple[int, int, int]:
    """(Spark stage, partition, attempt) of the task that spent the most time in UDFs."""
    spent = calls.groupby(["spark_stage", "partition", "attempt"])["ns"].sum()
    return tuple(int(v) for v in spent.idxmax())  # type: ignore[return-value]


def udf_culprits(
    calls: pd.DataFrame,
    task: tuple[int, int, int] | None = None,
    top: int = 5,
    task_ms: float | None = None,
) -> pd.DataFrame:
    """The rows whose UDF calls cost the most inside ``task`` (default: the task that spent
    the most in UDFs), with their share of the task's time (``task_ms``, else the task's
    UDF time)."""
    task = task or slowest_task(calls)
    stage, partition, attempt = task
    mine = calls[
        (calls.spark_stage == stage) & (calls.partition == partition) & (calls.attempt == attempt)
    ]
    total_ms_of_udfs = mine["ns"].sum() / 1e6
    mine = mine[(mine["rows"] > 0) & mine["excerpt"].notna()]  # not the cheap calls' tallies
    total_ms = task_ms if task_ms else total_ms_of_udfs
    ranked = mine.sort_values("ns", ascending=False).head(top).copy()
    ranked["ms"] = ranked["ns"] / 1e6
    ranked["share"] = ranked["ms"] / total_ms if total_ms else float("nan")
    ranked["spark_stage"], ranked["partition"], ranked["attempt"] = stage, partition, attempt
    return ranked[
        ["udf", "ms", "share", "rows", "location", "line", "excerpt", "spark_stage", "partition"]
    ].reset_index(drop=True)


def stage_prediction(calls: pd.DataFrame, removed: pd.DataFrame) -> tuple[float, float]:
    """(before, after) in ms: the slowest task's UDF time in the stage of the ``removed``
    rows (``udf_culprits``), and the stage's slowest once their calls are gone (the task
    that held them, or the next slowest: the stage waits for its slowest task)."""
    stage, partition = int(removed.spark_stage.iloc[0]), int(removed.partition.iloc[0])
    per_task = calls[calls.spark_stage == stage].groupby(["partition", "attempt"])["ns"].sum() / 1e6
    before = float(per_task.max())
    mine = per_task.xs(partition, level="partition").max() - float(removed["ms"].sum())
    others = per_task.drop(partition, level="partition")
    return before, float(max([mine, *others.tolist()]))


# -- installing the wrappers in a script ---------------------------------------------------


def _name_of(function) -> str:
    """The name PySpark gives a UDF of ``function`` (its column's, ``name(x)``): a callable
    without one (a ``functools.partial``, an object with ``__call__``) is named by its
    class."""
    return getattr(function, "__name__", None) or type(function).__name__


def standing_in(function, timer):
    """``timer``, made to look like the user's ``function`` it calls (``functools.wraps``)
    and named as PySpark names that function: a UDF's column is named after its function,
    and a timer named ``call`` in place of a partial or a callable object made a traced
    script's columns ``call(x)`` where they were ``partial(x)`` (a probe of PySpark
    scripts)."""
    timer = functools.wraps(function)(timer)
    timer.__name__ = _name_of(function)
    return timer


class MadeBeforeSession:
    """The function of a UDF a script made before its Spark session (``@udf`` on a module's
    function, the session made in ``main()``): it stands in for the function's timer until
    PySpark pickles it, the first time a query uses the UDF, by when the script has made its
    session; the timer is made then (``make``), in that session, and pickled in its place.

    Made at once, the timer would start a session for it: the one perfx can start, without
    the settings the script gives its own later (``spark.default.parallelism``), and the run
    was refused (a probe of PySpark scripts). Called on the driver, it is the script's
    function, untimed, as a query would not have called it."""

    def __init__(self, function, make):
        standing_in(function, self)  # its name, doc, signature (``__wrapped__``)
        self._function, self._make, self._timer = function, make, None

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)

    def timer(self):
        """The timer of the function, made on the first call, in the script's session."""
        if self._timer is None:
            self._timer = self._make(self._function)
        return self._timer

    def __reduce__(self):
        return _itself, (self.timer(),)


def _itself(value):
    """What a ``MadeBeforeSession`` unpickles as: its timer."""
    return value


@contextmanager
def patched_udfs(tracer):
    """While a traced script runs, the UDF factories and DataFrame methods it calls wrap the
    user's function with the timers above (writing into the tracer's run once it has one)."""
    import pyspark.sql.functions as functions
    from pyspark.util import PythonEvalType

    def folder() -> str:
        tracer.session()
        return str(tracer.udfs.folder)

    def recorded_name(function, kind: str, shown=None) -> str:
        tracer.session()
        return tracer.udfs.name(function, kind, shown)

    def shown_as(function):
        """What ``function``'s calls are named after: the script's function within it where
        the pandas API on Spark made it (``script_function_within``), else itself."""
        return script_function_within(function) if from_pandas_on_spark(3) else None

    def row_timer(function):
        tracer.session()
        return tracer.udfs.row_timer(function)

    original_udf, original_pandas = functions.udf, functions.pandas_udf

    def udf(f=None, returnType=None, *args, **kwargs):
        if from_pyspark():
            return original_udf(f, returnType, *args, **kwargs)
        if f is None or isinstance(f, (str,)) or not callable(f):  # @udf(returnType=...)
            return_type = f if returnType is None else returnType

            def decorate(g):
                return udf(g, return_type, *args, **kwargs)

            return decorate
        # an Arrow-optimised UDF (useArrow, keyword-only) has its function's parameters read
        # as it is made, which a MadeBeforeSession does not give: timed at once
        if tracer.ctx is None and not kwargs.get("useArrow"):
            made = MadeBeforeSession(f, row_timer)
            return original_udf(made, returnType or "string", *args, **kwargs)
        return original_udf(row_timer(f), returnType or "string", *args, **kwargs)

    def pandas_udf(f=None, returnType=None, functionType=None):
        if from_pandas_on_spark():  # around a script's function, or one of its own
            return made_pandas_udf(f, returnType, functionType, on_spark=True)
        if from_pyspark():  # mapInPandas and applyInPandas make theirs with it
            return original_pandas(f, returnType, functionType)
        return made_pandas_udf(f, returnType, functionType)

    def made_pandas_udf(f, returnType, functionType, on_spark: bool = False):
        """The script's pandas UDF, timed; or one the pandas API on Spark makes (``on_spark``)
        around a script's function (``Series.apply``'s), timed and named after that
        function, where one of its own (an index's, a filter's) is made as it asks."""
        if f is None or not callable(f) or hasattr(f, "typeName"):
            # as PySpark reads a decorator's arguments: @pandas_udf(type), (type, kind),
            # (type, functionType=kind), (returnType=type, functionType=kind)
            return_type = f or returnType
            kind = functionType
            if kind is None and f is not None and isinstance(returnType, int):
                kind = returnType

            def decorate(g):
                return made_pandas_udf(g, return_type, kind, on_spark)

            return decorate
        shown = script_function_within(f) if on_spark else f
        if shown is None:
            return original_pandas(f, returnType, functionType)
        # a UDF of an iterator of batches (Iterator[pd.Series], or of tuples of Series)
        # yields a result per batch, as mapInPandas does, or folds a group's batches into a
        # value (PySpark 4.1 and later): timed per batch, as mapInPandas is
        made = original_pandas(f, returnType, functionType)
        kind = made.evalType
        if kind == PythonEvalType.SQL_GROUPED_MAP_PANDAS_UDF:
            # GroupedData.apply hands its function to applyInPandas, timed there per group;
            # wrapped here too, its arity (a group, or its key and the group) would be lost
            return made
        if kind == PythonEvalType.SQL_SCALAR_PANDAS_ITER_UDF:
            timer, timed_as = timed_batches, "iter"
        elif kind == getattr(PythonEvalType, "SQL_GROUPED_AGG_PANDAS_ITER_UDF", None):
            timer, timed_as = timed_batch_aggregate, "iter"
        else:
            timer, timed_as = timed_series, "series"

        def timed(function):
            return timer(function, recorded_name(function, timed_as, shown), folder())

        if tracer.ctx is not None or on_spark:
            return original_pandas(timed(f), returnType, functionType)
        # PySpark reads the kind from the function's type hints, which a MadeBeforeSession
        # does not give: the kind read from them above is given, without the warning PySpark
        # prints for a kind given (SPARK-28264)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return original_pandas(MadeBeforeSession(f, timed), made.returnType, kind)

    def map_in(original):
        def map_in_pandas(self, func, schema, *args, **kwargs):
            timed = timed_batches(func, recorded_name(func, "map", shown_as(func)), folder())
            return original(self, timed, schema, *args, **kwargs)

        return map_in_pandas

    def apply_in(original):
        def apply_in_pandas(self, func, schema, *args, **kwargs):
            timed = timed_groups(func, recorded_name(func, "group", shown_as(func)), folder())
            return original(self, timed, schema, *args, **kwargs)

        return apply_in_pandas

    def untimed(kind: str, method: bool = False):
        """A factory or method noted in ``tracer.untimed`` as running ``kind``."""

        def noting(original):
            @functools.wraps(original)
            def noted(*args, **kwargs):
                made = original(*args, **kwargs)
                function = _untimed_function(args, kwargs, method)
                if function is None:  # a decorator's arguments: its function comes next
                    return untimed(kind)(made) if callable(made) else made
                names = tracer.untimed.setdefault(kind, [])
                name = getattr(function, "__name__", None) or type(function).__name__
                if name not in names:
                    names.append(name)
                return made

            return noted

        return noting

    patches: list[tuple[Any, str, Any]] = [
        (module, name, lambda _, made=made: made)
        for module in _factory_modules(functions)
        for name, made in (("udf", udf), ("pandas_udf", pandas_udf))
        if name in vars(module)
    ]
    patches += [
        (module, "pandas_udf", lambda _: pandas_udf) for module in _pandas_on_spark_modules()
    ]
    for name, kind in UNTIMED_FACTORIES.items():
        if hasattr(functions, name):
            patches.append((functions, name, untimed(kind)))
    for owner in _frame_classes():
        if "mapInPandas" in vars(owner):
            patches.append((owner, "mapInPandas", map_in))
        if "applyInPandas" in vars(owner):
            patches.append((owner, "applyInPandas", apply_in))
    for owner, name, kind in _untimed_methods():
        patches.append((owner, name, untimed(kind, method=True)))
    saved = [(owner, name, vars(owner)[name]) for owner, name, _ in patches]
    for owner, name, make in patches:
        setattr(owner, name, make(getattr(owner, name)))
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
        for module in _pandas_on_spark_modules():  # imported by the script: bound ours
            if vars(module)["pandas_udf"] is pandas_udf:
                module.pandas_udf = original_pandas


def _factory_modules(functions: Any) -> list[Any]:
    """The modules a script imports the UDF factories from: ``pyspark.sql.functions`` and
    where PySpark defines them (``pyspark.sql.functions.builtin``,
    ``pyspark.sql.pandas.functions``). A ``pandas_udf`` imported from where it is defined
    went untimed, and the run was said to have "no Python UDF" (a probe of public PySpark
    programs)."""
    found = [functions]
    for name in ("pyspark.sql.functions.builtin", "pyspark.sql.pandas.functions"):
        try:
            found.append(importlib.import_module(name))
        except ImportError:  # an older PySpark: its factories are in functions alone
            continue
    return found


def _pandas_on_spark_modules() -> list[Any]:
    """The pandas API on Spark's modules imported so far that hold ``pandas_udf``: each
    imported it by name (``from pyspark.sql.functions import pandas_udf``), so that the
    factory a traced script gives them is the one they hold from then on."""
    return [
        module
        for name, module in list(sys.modules.items())
        if name.startswith("pyspark.pandas") and module is not None and "pandas_udf" in vars(module)
    ]


UNTIMED_FACTORIES = {
    "udtf": "Python UDTFs",
    "arrow_udtf": "Arrow UDTFs",
    "arrow_udf": "Arrow UDFs",
}
"""``pyspark.sql.functions``' factories of Python code perfx does not time -> how a reader
is told of them (``ScriptTracer.untimed``)."""

UNTIMED_METHODS = {
    ("PandasMapOpsMixin", "mapInArrow"): "mapInArrow functions",
    ("PandasGroupedOpsMixin", "applyInArrow"): "applyInArrow functions",
    ("PandasGroupedOpsMixin", "applyInPandasWithState"): "applyInPandasWithState functions",
    ("PandasCogroupedOps", "applyInArrow"): "cogrouped applyInArrow functions",
    ("PandasCogroupedOps", "applyInPandas"): "cogrouped applyInPandas functions",
}
"""(class, method) of DataFrames and grouped data that run Python perfx does not time
(only one DataFrame's groups are timed for ``applyInPandas``) -> how a reader is told of
them, likewise."""


def _untimed_function(args: tuple, kwargs: dict, method: bool):
    """The user's function (or UDTF class) a call hands Spark, or None where the call gave
    only a decorator's arguments. A ``method``'s comes after ``self``."""
    named = kwargs.get("f") or kwargs.get("func") or kwargs.get("cls")
    if named is not None:
        return named
    given = args[int(method)] if len(args) > int(method) else None
    return given if callable(given) and not isinstance(given, str) else None


def _untimed_methods() -> list[tuple[type, str, str]]:
    """(class, method, kind) of the ``UNTIMED_METHODS`` this PySpark has."""
    found = []
    for (owner, name), kind in UNTIMED_METHODS.items():
        cls = _pandas_ops_class(owner)
        if cls is not None and name in vars(cls):
            found.append((cls, name, kind))
    return found


def _frame_classes() -> list:
    """The classes that define ``mapInPandas`` / ``applyInPandas`` for a classic session's
    DataFrames and grouped data (the DataFrame's own method calls the mixin's)."""
    found = [_pandas_ops_class(name) for name in ("PandasMapOpsMixin", "PandasGroupedOpsMixin")]
    return [cls for cls in found if cls is not None]


PANDAS_OPS_MODULES = ("pyspark.sql.pandas.map_ops", "pyspark.sql.pandas.group_ops")
"""Where a classic session's DataFrame and grouped-data classes get their pandas and Arrow
methods."""


def _pandas_ops_class(name: str) -> type | None:
    """The class ``name`` of ``PANDAS_OPS_MODULES``, or None where this PySpark has none."""
    import importlib

    for module in PANDAS_OPS_MODULES:
        try:
            loaded = importlib.import_module(module)
        except ImportError:
            continue
        if hasattr(loaded, name):
            return getattr(loaded, name)
    return None


def traced_registration(registration, tracer):
    """``spark.udf``: ``register(name, f, returnType)`` registers the timed function."""

    class Registration:
        def register(self, name, f, returnType=None):
            if callable(f) and not hasattr(f, "func"):
                f = tracer.udfs.row_timer(f)
            return registration.register(name, f, returnType)

        def __getattr__(self, attribute):
            return getattr(registration, attribute)

    return Registration()
