"""One application attempt's event log -> raw app/job/stage/task tables.

The hot path is ``read_app``: it looks at the event name in the first bytes of each line and
parses only the events perfx uses (task, stage, job, app and environment events), so the
bulk of a log (accumulator-heavy SQL events, executor metric updates, block manager events)
costs one ``bytes.startswith`` and one dictionary lookup. TaskEnds of successful tasks are decoded by a
typed msgspec decoder that skips the fields perfx does not read (fastend), the rest with
orjson. Task attempts accumulate as one tuple of numbers each, turned into a float array a
block of a few thousand rows at a time: memory follows the number of tasks, not the size of
the file, and pandas is built once at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import orjson

from . import events, fastend, halves, sqlplan, validate
from .lines import (
    EVENT_KEYS,
    TASK_END,
    TASK_END_PREFIXES,
    TASK_START_PREFIXES,
    event_name,
    fast_end,
    name_start,
    task_id_of,
)
from .open import IN_PROGRESS, EventLogSource, iter_lines, missing_numbers

ACCUMULABLES = b'"Accumulables":['
EXECUTOR_METRICS = b',"Task Executor Metrics":'
BLOCK_ROWS = 8192
PROGRESS_BYTES = 8 << 20

NS_COLUMNS = ("executor_cpu_time", "deserialize_cpu_time", "shuffle_write_time")
"""Task metrics Spark logs in nanoseconds; the tables hold ms."""

INT_COLUMNS = ("task_id", "task_index", "attempt", "partition_id", "stage_id", "stage_attempt_id")

Skip = Callable[[str, int, str], None]


def _is_spark_event(name: str) -> bool:
    """Events Spark (core, SQL, streaming) defines; perfx ignores the ones it does not use
    silently and counts only foreign events as skipped."""
    return name.startswith("SparkListener") or name.startswith("org.apache.spark.")


EMPTY_JOB: dict = {}


@dataclass
class AppState:
    """What one application attempt's events said, accumulated in log order."""

    source: str
    app_id: str = ""
    attempt_id: str = ""
    name: str = ""
    user: str = ""
    command: str = ""
    """The driver's command line (``sun.java.command``): the program and its arguments."""
    spark_version: str = ""
    databricks_spark_version: str = ""
    """The Spark version of Databricks' own log-start event, which a Databricks driver writes
    at the top of each rolled part instead of SparkListenerLogStart."""
    start_time: int | None = None
    end_time: int | None = None
    properties: dict[str, str] = field(default_factory=dict)
    stages: dict[tuple[int, int], dict] = field(default_factory=dict)
    jobs: dict[int, dict] = field(default_factory=dict)
    numeric_blocks: list[np.ndarray] = field(default_factory=list)
    numeric_rows: list[tuple | np.ndarray] = field(default_factory=list)
    """Numeric values of the tasks since the last block (events.TASK_NUMERIC order, None for
    missing): a whole block of them becomes one float array at once."""
    nominal_rows: list[tuple] = field(default_factory=list)
    distinct_nominal: dict[tuple, tuple] = field(default_factory=dict, repr=False)
    """Each distinct nominal row once (most tasks share their executor, host, locality and
    type): ``nominal_rows`` holds these, and the strings each TaskEnd decoded are freed at
    once, not held to the end of the read (~40 MB for 150,000 tasks)."""
    running: dict[int, tuple[str, int, bytes | dict | int]] = field(default_factory=dict)
    """task id -> (path, line number, raw line, parsed event or the line's byte offset) of a
    TaskStart not yet ended. Most starts are followed by an end, so their lines are parsed
    (or read: eventlog.halves) only if none comes."""
    unended: list[tuple[tuple, tuple]] = field(default_factory=list)
    ended: dict[int, int] = field(default_factory=dict)
    """task id -> row of its first TaskEnd in the log: one row per task attempt (Spark's task
    ids are unique within an application, and name the stage attempt and attempt), whatever
    the order or the number of its events."""
    repeated_ends: list[RepeatedEnd] = field(default_factory=list)
    """The TaskEnds of a task after its first one in the log, merged by ``merge_ends``."""
    executors: dict[str, dict] = field(default_factory=dict)
    """executor id -> what its ExecutorAdded, BlockManagerAdded and ExecutorRemoved said
    (``executor_table``), the driver's block manager included, as Spark's status listener
    keeps them for its executors page."""

    plans: dict[int, tuple[str, str]] = field(default_factory=dict)
    """SQL execution id -> (engine, first input) of its physical plan (eventlog.sqlplan)."""

    app_ended: bool = False
    """Did the log reach its ApplicationEnd? Without it, the log stops where the
    application was still running, or its driver died, or the file was cut short
    (``last`` says where: ``logs.model.CutOff``)."""
    last: tuple[str, int, str] = ("", 0, "")
    """The file, line number and event type of the last line read ('' where it is no event)."""
    rollovers: list[tuple[str, int, int]] = field(default_factory=list)
    """(path, line, rollover number) of each Databricks part's first event, in the order
    read: numbered from 0, one more per part (``missing_rollovers``)."""

    def __setstate__(self, kept: dict) -> None:
        """A state a store kept before perfx read executors, plans, where the log ends or its
        Databricks parts (logs.store) has none."""
        self.__dict__.update(
            {
                "executors": {},
                "plans": {},
                "app_ended": False,
                "last": ("", 0, ""),
                "rollovers": [],
                **kept,
            }
        )

    # -- event handlers -------------------------------------------------------------------

    def on_log_start(self, event: dict) -> None:
        self.spark_version = event.get("Spark Version", "")

    def on_databricks_log_start(self, event: dict, path: str = "", number: int = 0) -> None:
        self.databricks_spark_version = event.get("Spark Version", "")
        rollover = event.get("Rollover Number")
        if isinstance(rollover, int) and not isinstance(rollover, bool):
            self.rollovers.append((path, number, rollover))

    def missing_rollovers(self, skip: Skip) -> None:
        """Report through ``skip`` each Databricks part missing from the parts read: a
        rollover number skipped (from 0), where the part after the gap begins."""
        for position, lost in missing_numbers([r for _, _, r in self.rollovers], 0):
            path, number, _ = self.rollovers[position]
            skip(path, number, f"Databricks part {lost} missing: its events are not in the log")

    def on_app_start(self, event: dict) -> None:
        self.app_id = event.get("App ID") or self.app_id
        self.attempt_id = str(event.get("App Attempt ID") or "")
        self.name = event.get("App Name", "")
        self.user = event.get("User", "")
        self.start_time = event.get("Timestamp")

    def on_app_end(self, event: dict) -> None:
        self.end_time = event.get("Timestamp")
        self.app_ended = True

    def on_environment(self, event: dict) -> None:
        props = event.get("Spark Properties") or {}
        if isinstance(props, list):  # very old logs wrote [[key, value], ...]
            props = dict(props)
        self.properties.update({str(k): str(v) for k, v in props.items()})
        system = event.get("System Properties") or {}
        if isinstance(system, list):
            system = dict(system)
        self.command = str(system.get("sun.java.command", self.command))
        if not self.app_id:
            self.app_id = self.properties.get("spark.app.id", "")

    def on_job_start(self, event: dict) -> None:
        infos = [events.stage_info(i) for i in event.get("Stage Infos") or ()]
        props = event.get("Properties") or {}
        last = max(infos, key=lambda i: i["stage_id"], default=None)
        ended = self.jobs.get(event["Job ID"], EMPTY_JOB)  # its end came first, or this repeats
        self.jobs[event["Job ID"]] = {
            "job_id": event["Job ID"],
            "submission_time": event.get("Submission Time"),
            "completion_time": ended.get("completion_time"),
            "result": ended.get("result"),
            "failure_reason": ended.get("failure_reason", ""),
            "stage_ids": tuple(event.get("Stage IDs") or (i["stage_id"] for i in infos)),
            "stage_infos": infos,
            "name": last["name"] if last else "",
            "description": props.get("spark.job.description", ""),
            "job_group": props.get("spark.jobGroup.id", ""),
            "sql_execution": props.get("spark.sql.execution.id", ""),
        }
        for info in infos:
            self.stages.setdefault(
                (info["stage_id"], info["stage_attempt_id"]),
                dict(info, submitted=False, completed=False),
            )

    def on_job_end(self, event: dict) -> None:
        job = self.jobs.get(event["Job ID"])
        if job is None:  # a JobEnd whose JobStart is not in the log
            job = self.jobs[event["Job ID"]] = {
                "job_id": event["Job ID"],
                "submission_time": None,
                "stage_ids": (),
                "stage_infos": [],
                "name": "",
                "description": "",
                "job_group": "",
                "failure_reason": "",
            }
        result = event.get("Job Result") or {}
        job["completion_time"] = event.get("Completion Time")
        job["result"] = result.get("Result", "")
        exception = result.get("Exception") or {}
        job["failure_reason"] = (
            exception.get("Message", "") if isinstance(exception, dict) else str(exception)
        )

    def on_sql_execution_start(self, event: dict) -> None:
        plan = str(event.get("physicalPlanDescription") or "")
        self.plans[int(event["executionId"])] = (sqlplan.engine(plan), sqlplan.first_input(plan))

    def _stage(self, event: dict, completed: bool) -> None:
        info = events.stage_info(event["Stage Info"])
        key = (info["stage_id"], info["stage_attempt_id"])
        stage = self.stages.setdefault(key, dict(info, submitted=False, completed=False))
        stage.update({k: v for k, v in info.items() if v is not None})
        stage["submitted"] = True
        stage["completed"] = stage["completed"] or completed

    def on_stage_submitted(self, event: dict) -> None:
        self._stage(event, completed=False)

    def on_stage_completed(self, event: dict) -> None:
        self._stage(event, completed=True)

    def _executor(self, executor_id, time) -> dict:
        """The executor's record, made by the first event that names it (its add time, as
        Spark's status listener takes it)."""
        return self.executors.setdefault(
            str(executor_id),
            {
                "add_time": time,
                "host": None,
                "port": None,
                "total_cores": None,
                "max_memory": None,
                "remove_time": None,
                "remove_reason": None,
            },
        )

    def on_executor_added(self, event: dict) -> None:
        executor = self._executor(event["Executor ID"], event.get("Timestamp"))
        info = event.get("Executor Info") or {}
        executor["host"] = executor["host"] or info.get("Host")  # a block manager's first
        executor["total_cores"] = info.get("Total Cores")

    def on_block_manager_added(self, event: dict) -> None:
        manager = event["Block Manager ID"]
        executor = self._executor(manager["Executor ID"], event.get("Timestamp"))
        executor["host"], executor["port"] = manager.get("Host"), manager.get("Port")
        executor["max_memory"] = event.get("Maximum Memory")

    def on_executor_removed(self, event: dict) -> None:
        executor = self._executor(event["Executor ID"], event.get("Timestamp"))
        executor["remove_time"] = event.get("Timestamp")
        executor["remove_reason"] = event.get("Removed Reason")

    def on_task_start(self, event: dict, path: str = "", number: int = 0) -> None:
        self.running[event["Task Info"]["Task ID"]] = (path, number, event)

    def close_running(self, skip: Skip) -> None:
        """Turn the starts that never ended into task rows (status UNKNOWN). A start logged
        after its task's end (lines swapped or replayed) is merged into the end's row."""
        for task_id, (path, number, pending) in self.running.items():
            if task_id in self.ended:
                continue
            if isinstance(pending, int):  # left in the file by the second half's reader
                with open(path, "rb") as file:
                    pending = halves.line_at(file, pending)
            if isinstance(pending, bytes):
                try:
                    event = orjson.loads(pending)
                except orjson.JSONDecodeError as err:
                    skip(path, number, validate.unparsable(err, pending))
                    continue
                reason = validate.problem("SparkListenerTaskStart", pending)
                if reason is not None:
                    skip(path, number, reason)
                    continue
                pending = event
            self.unended.append(events.task_start(pending))
        self.running.clear()

    def on_task_end(self, event: dict, path: str = "", number: int = 0) -> None:
        numeric, nominal = events.task_end(event)
        task_id = numeric[0]
        if task_id in self.ended:
            self.running.pop(task_id, None)
            self.repeated_ends.append(RepeatedEnd(task_id, numeric, nominal, path, number))
            return
        self._add_row(task_id, numeric, nominal)

    def on_fast_task_end(self, numeric: tuple, nominal: tuple) -> bool:
        """A TaskEnd read by the fast path (fastend.read); False, leaving it to
        ``on_task_end``, for a repeated end of a task, which has to be merged."""
        task_id = numeric[0]
        if task_id in self.ended:
            return False
        self._add_row(task_id, numeric, nominal)
        return True

    def add_decoded_ends(
        self,
        values: np.ndarray,
        nominal: list[tuple],
        first: int,
        read_again: Callable[[int], None],
    ) -> None:
        """``on_fast_task_end`` for consecutive TaskEnds the second half's reader decoded
        (eventlog.halves): their numeric values as rows of floats, the first of them the
        ``first``-th TaskEnd it decoded. Taken as one block when none is of a task that
        already ended; otherwise one by one, each repeated one read again and merged as in
        one pass (``read_again`` with its index among the decoded TaskEnds)."""
        task_ids = values[:, 0].astype(np.int64).tolist()
        ended, running = self.ended, self.running
        if len(set(task_ids)) < len(task_ids) or any(t in ended for t in task_ids):
            for row, task_id in enumerate(task_ids):
                if task_id in ended:
                    read_again(first + row)
                else:
                    self._add_row(task_id, values[row], nominal[row])
            return
        self._flush()
        self.numeric_blocks.append(values)
        self.nominal_rows.extend(nominal)
        row = len(ended)
        for task_id in task_ids:
            running.pop(task_id, None)
            ended[task_id] = row
            row += 1

    def _add_row(self, task_id: int, numeric: tuple | np.ndarray, nominal: tuple) -> None:
        self.running.pop(task_id, None)
        self.ended[task_id] = len(self.ended)
        self.numeric_rows.append(numeric)
        self.nominal_rows.append(self.distinct_nominal.setdefault(nominal, nominal))
        if len(self.numeric_rows) >= BLOCK_ROWS:
            self._flush()

    def _flush(self) -> None:
        """Turn the pending rows into one numpy block (None becomes NaN)."""
        if self.numeric_rows:
            values = np.array(self.numeric_rows, dtype=np.float64)
            assert values.shape == (len(self.numeric_rows), len(events.TASK_NUMERIC))
            self.numeric_blocks.append(values)
            self.numeric_rows = []

    # -- tables ---------------------------------------------------------------------------

    def task_columns(
        self, skip: Skip, block: tuple[str, ...] = ()
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """One array per task column (TASK_NUMERIC, then TASK_NOMINAL, then ``resubmitted``),
        one row per task attempt: every TaskEnd, plus attempts that started and never ended.
        Arrays rather than a DataFrame so that the caller builds the table in one go.

        The float columns named in ``block`` are views of one Fortran-order matrix, returned
        beside them, whose columns are ``block``'s in its order: the caller's frame takes it
        as its float block, as it is (a column of ``block`` that is no TASK_NUMERIC, the
        caller computes into its place). The rows go into it a block of rows at a time, each
        freed once in, and are put in task order column by column in place: at no time is
        there a second copy of the tasks' values (~40 MB for 150,000 tasks).

        Spark logs a second TaskEnd (reason ``Resubmitted``) for a finished map task whose
        output was lost; like the history server, perfx keeps one row per task id, counts the
        resubmissions, and keeps the first end's metrics unless the later one carries some
        (``merge_ends``: also for ends repeated or reordered by a damaged log, which ``skip``
        is told about).

        It consumes the state's rows: once they are columns, the state holds none, so that a
        large log's rows are not held twice while its tables are built."""
        for numeric, nominal in self.unended:
            self.numeric_rows.append(numeric)
            self.nominal_rows.append(nominal)
        self.unended.clear()
        self._flush()
        rest = [name for name in events.TASK_NUMERIC if name not in block]
        rows = sum(len(values) for values in self.numeric_blocks)
        floats = np.empty((rows, len(block)), order="F")
        others = np.empty((rows, len(rest)), order="F")  # freed with its last column
        where = [
            (floats, block.index(name)) if name in block else (others, rest.index(name))
            for name in events.TASK_NUMERIC
        ]  # the matrix and column of each TASK_NUMERIC value
        _move_rows(self.numeric_blocks, where)
        resubmitted = merge_ends(self, where, skip)
        order = task_order(where[0][0][:, where[0][1]])
        if order is not None:
            for column in (*floats.T, *others.T):  # each contiguous: gathered, written back
                column[:] = column[order]
            resubmitted = resubmitted[order]
        columns = {name: m[:, j] for name, (m, j) in zip(events.TASK_NUMERIC, where)}
        nominal_columns = (
            zip(*self.nominal_rows) if self.nominal_rows else [()] * len(events.TASK_NOMINAL)
        )
        for name, column in zip(events.TASK_NOMINAL, nominal_columns):
            texts = (
                fastend.decode_column(column)
                if name in fastend.RAW_NOMINAL
                else np.array(column, dtype=object)
            )
            columns[name] = texts if order is None else texts[order]
        self.nominal_rows = []
        self.distinct_nominal = {}
        self.ended = {}  # its rows are the table's now: not held while the tables are built
        columns["resubmitted"] = resubmitted
        for ns_name in NS_COLUMNS:
            columns[ns_name] /= 1e6  # in place: in the matrix
        for int_name in INT_COLUMNS + ("launch_time",):
            columns[int_name] = columns[int_name].astype(np.int64)
        return columns, floats


def _move_rows(blocks: list[np.ndarray], where: list[tuple[np.ndarray, int]]) -> None:
    """Copy ``blocks`` (rows of TASK_NUMERIC values) into the matrices of ``where``, one
    after the other, TASK_NUMERIC's i-th value into column ``where[i][1]`` of matrix
    ``where[i][0]``; each block leaves the list once in, so that only one is held beside
    the matrices."""
    row = 0
    blocks.reverse()
    while blocks:
        values = blocks.pop()
        for i, (matrix, column) in enumerate(where):
            matrix[row : row + len(values), column] = values[:, i]
        row += len(values)


def task_order(task_id: np.ndarray) -> np.ndarray | None:
    """The order of the rows by task id, Spark's launch order, or None where they are in it:
    the order of the lines (TaskEnds come as tasks finish, replayed or swapped lines
    anywhere) must not change the table, nor any answer computed from it."""
    if len(task_id) < 2 or bool((task_id[1:] > task_id[:-1]).all()):
        return None
    return np.argsort(task_id, kind="stable")


@dataclass(frozen=True)
class RepeatedEnd:
    """A TaskEnd of a task that already had one in the log, and where it was."""

    task_id: int
    numeric: tuple
    nominal: tuple
    path: str
    line: int


def _end_order(end: tuple[np.ndarray, tuple]) -> tuple:
    """Where an end of one task stands in Spark's order, whatever the order of the lines: a
    ``Resubmitted`` end follows the end it revokes; other ends by finish time, then an end
    with metrics after one without, then by their values (any fixed order will do: two such
    ends only come from a damaged log)."""
    numeric, nominal = end
    finish = numeric[5]
    return (
        nominal[6] == "Resubmitted",
        -np.inf if np.isnan(finish) else finish,
        numeric[9] > 0,
        tuple(np.nan_to_num(numeric, nan=-np.inf)),
        tuple(map(str, nominal)),
    )


def merge_ends(state: AppState, where: list[tuple[np.ndarray, int]], skip: Skip) -> np.ndarray:
    """Merge every task's repeated ends into its row of the matrices of ``where``
    (TASK_NUMERIC's i-th value in column ``where[i][1]`` of matrix ``where[i][0]``) and of
    the state's nominal rows; returns the resubmission count of each row.

    The rule, the history server's for a resubmitted map task, made independent of the
    order of the lines: the ends of a task are put in Spark's order (``_end_order``), the
    first is kept, and each later one that carries metrics replaces it. An end repeated
    word for word (a replayed or concatenated log) is a duplicate: counted through ``skip``
    and dropped. Two ends neither of which is a resubmission conflict: reported through
    ``skip``, and resolved by the same rule."""
    resubmitted = np.zeros(len(where[0][0]), dtype=np.int64)
    by_task: dict[int, list[RepeatedEnd]] = {}
    for repeat in state.repeated_ends:
        by_task.setdefault(repeat.task_id, []).append(repeat)
    for task_id, repeats in by_task.items():
        row = state.ended[task_id]
        ends = [(np.array([m[row, j] for m, j in where]), _decoded(state.nominal_rows[row]))]
        for repeat in repeats:
            end = (np.array(repeat.numeric, dtype=np.float64), _decoded(repeat.nominal))
            if any(_same(end, seen) for seen in ends):
                skip(repeat.path, repeat.line, f"duplicate event: a repeated end of task {task_id}")
                continue
            if repeat.nominal[6] != "Resubmitted" and any(e[1][6] != "Resubmitted" for e in ends):
                skip(
                    repeat.path,
                    repeat.line,
                    f"conflicting end: task {task_id} has another end that differs; "
                    "kept the last to finish of those with metrics",
                )
            ends.append(end)
        ends.sort(key=_end_order)
        kept = ends[0]
        for end in ends[1:]:
            if end[0][9] > 0:
                kept = end
        for (m, j), value in zip(where, kept[0]):
            m[row, j] = value
        state.nominal_rows[row] = kept[1]
        resubmitted[row] = sum(end[1][6] == "Resubmitted" for end in ends)
    return resubmitted


def _decoded(nominal: tuple) -> tuple:
    """A nominal row with the fast path's raw bytes (if any) as text, to compare rows."""
    return tuple(v.decode() if isinstance(v, bytes) else v for v in nominal)


def _same(a: tuple[np.ndarray, tuple], b: tuple[np.ndarray, tuple]) -> bool:
    return a[1] == b[1] and np.array_equal(a[0], b[0], equal_nan=True)


HANDLERS: dict[str, Callable[[AppState, dict], None]] = {
    "SparkListenerTaskEnd": AppState.on_task_end,
    "SparkListenerTaskStart": AppState.on_task_start,
    "SparkListenerStageSubmitted": AppState.on_stage_submitted,
    "SparkListenerStageCompleted": AppState.on_stage_completed,
    "SparkListenerJobStart": AppState.on_job_start,
    "SparkListenerJobEnd": AppState.on_job_end,
    "SparkListenerApplicationStart": AppState.on_app_start,
    "SparkListenerApplicationEnd": AppState.on_app_end,
    "SparkListenerEnvironmentUpdate": AppState.on_environment,
    "SparkListenerLogStart": AppState.on_log_start,
    "SparkListenerExecutorAdded": AppState.on_executor_added,
    "SparkListenerBlockManagerAdded": AppState.on_block_manager_added,
    "SparkListenerExecutorRemoved": AppState.on_executor_removed,
    "DBCEventLoggingListenerMetadata": AppState.on_databricks_log_start,
    "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart": (
        AppState.on_sql_execution_start
    ),
}
"""Event name -> handler; every other event is ignored (Spark's) or counted as skipped."""

_HANDLERS_BY_BYTES = {name.encode(): handler for name, handler in HANDLERS.items()}


def read_app(
    source: EventLogSource,
    skip: Skip,
    progress: Callable[[int], None] | None = None,
    *,
    state: AppState | None = None,
    lines: Iterable[tuple[str, int, bytes]] | None = None,
    close: bool = True,
    split: bool = True,
    until: int | None = None,
) -> AppState:
    """Read one application attempt's event log into an ``AppState``.

    ``progress`` is called now and then with the number of bytes read since its last call
    (on-disk bytes: decompressed line bytes for plain logs, whole parts for compressed ones).
    Bad lines (not UTF-8, not JSON, a truncated last line, an event without the fields it
    must have or with one of another type: eventlog.validate, a foreign event) are reported
    through ``skip`` and the reading goes on.

    A large plain log is read on two cores (eventlog.halves), unless ``split`` is False (the
    cores are reading other logs: eventlog.shares): a forked child decodes the second half of
    its lines while this process reads the first, and its lines are then replayed here in
    their order; the state is the same as read in one process.

    A store resumes an in-progress log (logs.store.ingest): it passes the ``state`` it kept
    from the bytes already read, the ``lines`` appended since, and ``close=False`` to keep
    the tasks still running as such, so that the state can be kept again before
    ``close_running`` turns them into rows. The cache's first read of one
    (logs.eventlog.growing) reads the bytes before ``until`` (the end of its last complete
    line) with ``close=False``, on two cores where the log is large."""
    state = state if state is not None else AppState(str(source.path))
    other = OtherLines(state, skip)
    plain = not any(source.codecs)
    second = None
    if lines is None and split and (at := halves.split(source, until)) is not None:
        second = halves.read_later(at, passed_over)
        lines = halves.lines_between(at.path, 0, at.start)
    elif lines is None and until is not None:
        lines = halves.lines_between(source.parts[0], 0, until)
    unreported = 0
    running = state.running
    path, number, line = "", 0, b""
    for path, number, line in lines if lines is not None else iter_lines(source, skip):
        if progress is not None and plain:
            unreported += len(line)
            if unreported > PROGRESS_BYTES:
                progress(unreported)
                unreported = 0
        # the two task events first, by their whole prefix: they are nearly every line
        if (
            line.startswith(TASK_END_PREFIXES)
            and (fast := fast_end(line)) is not None
            and state.on_fast_task_end(*fast)
        ):
            continue
        if line.startswith(TASK_START_PREFIXES) and (task_id := task_id_of(line)) is not None:
            running[task_id] = (path, number, line)
            continue
        other.read(path, number, line)
    if second is not None:
        (path, number, line), size = halves.replay(second, state, other, number)
        unreported += size
    if number:
        state.last = (path, number, event_name(line))
    if close:
        state.missing_rollovers(skip)
        state.close_running(skip)
    if progress is not None:
        progress(unreported if plain else source.size)
    return state


def name_app(state: AppState, source: EventLogSource) -> None:
    """A log without an application start is named after its file."""
    if not state.app_id:
        state.app_id = source.path.name.removesuffix(IN_PROGRESS)


def _named(line: bytes) -> tuple[bytes, Callable[..., None] | None]:
    """The name of the event a line starts with (one of ``EVENT_KEYS``) and its handler."""
    start = name_start(line)
    name = line[start : line.find(b'"', start)]
    return name, _HANDLERS_BY_BYTES.get(name)


def passed_over(line: bytes) -> bool:
    """Is ``line`` an event Spark defines and perfx does not use, passed over unread (and
    unreported)? Most of a log's bytes, in a log of SQL queries."""
    if not line.startswith(EVENT_KEYS):
        return False
    name, handler = _named(line)
    return handler is None and _is_spark_event(name.decode("utf-8", "replace"))


BOM = b"\xef\xbb\xbf"
"""UTF-8's byte order mark, which some editors write at the start of a file."""


class OtherLines:
    """Every line but a TaskStart with its id or a TaskEnd of the fast path: each event
    perfx uses is parsed and handed to its handler; bad lines and foreign events are reported
    through ``skip``, Spark's events perfx does not use are passed over."""

    def __init__(self, state: AppState, skip: Skip) -> None:
        self.state, self.skip = state, skip
        self.ignored: set[bytes] = set()

    def read(self, path: str, number: int, line: bytes) -> None:
        state, skip = self.state, self.skip
        if number == 1 and line.startswith(BOM):
            # a file saved by an editor that marks UTF-8: its first event (the log's Spark
            # version) was skipped as not JSON
            line = line[len(BOM) :]
        if line.startswith(EVENT_KEYS):
            name, handler = _named(line)
            if handler is None:
                if name in self.ignored:
                    return
                if _is_spark_event(name.decode("utf-8", "replace")):
                    self.ignored.add(name)
                    return
        elif not line.strip():
            return
        else:
            name, handler = b"", None
        try:
            event = _parse(line, name)
        except orjson.JSONDecodeError as err:
            skip(path, number, validate.unparsable(err, line))
            return
        event_name = event.get("Event") if isinstance(event, dict) else None
        if handler is None:
            handler = HANDLERS.get(event_name) if isinstance(event_name, str) else None
            if handler is None:
                if not (isinstance(event_name, str) and _is_spark_event(event_name)):
                    skip(
                        path,
                        number,
                        f"unknown event {event_name!r}" if event_name else "not an event",
                    )
                return
        if (
            reason := validate.problem(name.decode() if name else str(event_name), line)
        ) is not None:
            skip(path, number, reason)
            return
        try:
            if handler in (
                AppState.on_task_start,
                AppState.on_task_end,
                AppState.on_databricks_log_start,
            ):
                handler(state, event, path, number)
            else:
                handler(state, event)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            skip(path, number, f"{event.get('Event')} without usable {err}")


def _parse(line: bytes, name: bytes):
    """The event on ``line``; TaskEnds are parsed without their unused parts when possible.
    Raises orjson's error for the whole line."""
    if name == TASK_END:
        try:
            return orjson.loads(_slim(line))
        except orjson.JSONDecodeError:
            pass
    return orjson.loads(line)


def _slim(line: bytes) -> bytes:
    """A TaskEnd line without the parts perfx does not read: the accumulator updates of its
    Task Info and its Task Executor Metrics (about half of a Spark 3+ TaskEnd's bytes).

    Spark writes Task Info's ``Accumulables`` last, then the optional ``Task Executor
    Metrics`` (a flat object of numbers), then ``Task Metrics``; if the line is laid out any
    other way it is returned whole. A cut that went wrong fails to parse, and the caller then
    parses the whole line."""
    start = line.find(ACCUMULABLES)
    if start < 0:
        return line
    end = line.find(b']},"Task ', start)
    if end < 0:
        return line
    rest = line[end + 2 :]
    if rest.startswith(EXECUTOR_METRICS):
        metrics = rest.find(b'},"Task Metrics":')
        if metrics >= 0:
            rest = rest[metrics + 1 :]
    return line[: start + len(ACCUMULABLES)] + b"]}" + rest
