"""``perfx why PROGRAM INPUT``: the whole chain in one command. Run the program traced with
its event log, find the stage where skew cost the most and its slowest task, explain that task
against its stage, and attach the input records that cost the time."""

from __future__ import annotations

from pathlib import Path

from perfx.explain.errors import ExplainError, NoReference
from perfx.explain.options import ExplainOptions
from perfx.isolation.errors import IsolationError

from .chain import (
    MIN_IMPACT_MS,
    NoStageToCompare,
    costliest_elsewhere,
    open_run,
    skewed_task,
    traced_spark_stages,
    traced_tasks,
)


def why(
    program: str,
    input_path: str,
    *,
    master: str | None = None,
    store=None,
    top: int = 5,
    spark=None,
    options: ExplainOptions | None = None,
):
    """``perfx why``: run ``program`` traced with its event log, find the skewed stage and
    its slowest task, explain it against its stage and attach the records that cost the
    time (after ``_warm_up``: the slowest task must not be merely the first to start)."""
    from perfx.isolation.runner import (
        DEFAULT_MASTER,
        check_input,
        load_program,
        run_traced,
        traced_session,
    )

    from .session import open as open_session

    module = load_program(program)
    check_input(input_path)
    name = f"perfx why {Path(program).name}"
    with traced_session(store, master or DEFAULT_MASTER, name, spark) as run:
        if run.event_log is None:
            raise IsolationError(
                "the Spark session writes no event log (spark.eventLog.enabled): perfx why "
                "reads the traced run's own log; let perfx start the session, or enable "
                "event logging in yours"
            )
        _warm_up(run.spark, program, input_path, module)
        result = run_traced(
            program,
            input_path,
            spark=run.spark,
            store=run.store,
            run_id=run.run_id,
            module=module,
            event_log=run.event_log,
            top=top,
        )
    # the session is stopped: its event log is complete
    event_log, run_id, lineage_store = run.event_log, run.run_id, run.store
    stored = open_run(run_id, lineage_store)
    tasks = traced_tasks(stored)
    try:
        task_id = skewed_task(tasks, stored)
        return _with_records(open_session([event_log]), task_id, options, tasks, stored, top)
    except NoStageToCompare as err:
        return _records_instead(result, str(err))


def _with_records(session, task: str, options, tasks, stored, top: int):
    """The answer on ``task`` (of ``tasks``, the run's traced tasks) with the records inside
    it, or, where its Spark stage ran none of the traced run's stage ends (the first half of
    a repartition or a sort: records moved on, not timed there), the task-level answer and
    where the run's records are."""
    stage = int(tasks.loc[tasks["id"].astype(str) == task, "stage_id"].iloc[0])
    if stage not in traced_spark_stages(stored):
        answer = _explained(session, task, options)
        answer.notes.append(UNTIMED_STAGE.format(task=task, stage=stage, run=stored.run))
        return answer
    answer = _explained(session, task, options, run=stored.run, store=stored.store, top=top)
    return _said_if_elsewhere(answer, tasks, stored)


UNTIMED_STAGE = (
    "no record of task {task} is told apart: its Spark stage {stage} ran none of the traced "
    "run's stage ends (it moved records on to a shuffle, as a repartition's or a sort's first "
    "half does); perfx culprits {run} lists the run's costliest records"
)


def _said_if_elsewhere(answer, tasks, stored):
    """The answer, with a note naming the run's costliest record where the explained task's
    partition has none (``chain.costliest_elsewhere``; ``tasks``: the run's traced tasks)."""
    if answer.culprits is not None:
        note = costliest_elsewhere(tasks, stored, answer.culprits)
        if note is not None:
            answer.notes.append(note)
    return answer


def _explained(session, task: str, options: ExplainOptions | None, **traced):
    """``WHY TASK 'task' SLOWER`` on the traced run's own log. perfx asked the question
    itself, so a log too short for PerfXplain to learn from (one run of a small program) is
    no reason to withhold the records found: the task is then explained against its stage's
    peers (``--method peers``), and the answer says so. Where no task of its stage was
    clearly faster (the engine's ``NoReference``, picked before any method runs), there is
    nothing to compare it against: ``NoStageToCompare``, whose callers give the run's
    records instead."""
    from perfx.explain.errors import TooFewPairs
    from perfx.explain.options import ExplainOptions

    question = f"WHY TASK '{task}' SLOWER"
    try:
        return session.explain(question, options, **traced)
    except NoReference as err:
        raise NoStageToCompare(_none_faster(task, err)) from None
    except TooFewPairs as err:
        if (options or ExplainOptions()).method != "perfxplain":
            raise
        answer = session.explain(question, ExplainOptions.of(options, method="peers"), **traced)
        answer.notes.append(f"ranked against the task's stage (method peers): PerfXplain had {err}")
        return answer


def _warm_up(session, program: str, input_path: str, module) -> None:
    """Run the program traced once on a sample of its input (the first lines of its first
    file) into a throwaway store: the Python workers, perfx's tracing, the program's code,
    the input reader and the lineage writes are then warm, and the traced run's first tasks
    pay for none of it (they would otherwise be its slowest, for starting first)."""
    import glob
    import itertools
    import os
    import tempfile

    from perfx.isolation.runner import run_traced

    root = input_path.removeprefix("file:")
    files = sorted(
        f
        for pattern in (root, os.path.join(root, "*"))
        for f in glob.glob(pattern)
        if os.path.isfile(f)
    )
    if not files:
        return  # not a local path: the traced run starts cold
    with tempfile.TemporaryDirectory(prefix="perfx-warm-up-") as work:
        sample = os.path.join(work, "sample.txt")
        with open(files[0], "rb") as source, open(sample, "wb") as out:
            out.writelines(itertools.islice(source, 200))
        run_traced(
            program, sample, spark=session, store=os.path.join(work, "runs"), module=module, top=1
        )


NO_RECORD_TRACING = (
    "no record-level tracing applies to task {task}: its stage runs no Python code of the "
    "script (Spark SQL and JVM operators), so perfx cannot name the rows inside it. The Spark "
    "remedy for a skewed task there: let adaptive query execution split skewed join "
    "partitions (spark.sql.adaptive.enabled=true, spark.sql.adaptive.skewJoin.enabled=true), "
    "or salt the hot key / repartition it (spark.sql.shuffle.partitions)"
)
"""Said of a task whose stage ran no Python: the task-level answer stands alone."""

UNTRACED_PYTHON = (
    "no record-level tracing applies to task {task}: its stage runs the script's Python on an "
    "RDD perfx does not trace (a DataFrame's .rdd, or a DataFrame's foreach), so perfx cannot "
    "name the records inside it; it traces the RDDs the script makes from its context "
    "(sc.textFile, sc.parallelize, spark.read.text(path).rdd) and times Python UDFs"
)
"""Said of a task whose stage runs Python perfx did not trace: the task-level answer stands
alone, and no Spark SQL remedy is given for it."""


def why_script(
    script: str,
    args: list[str] | tuple[str, ...] = (),
    *,
    master: str | None = None,
    store=None,
    top: int = 5,
    spark=None,
    options: ExplainOptions | None = None,
    split_batches: bool = False,
):
    """``perfx why SCRIPT.py -- ARGS``: run the script as it is, traced, then explain its
    slowest task against its stage: with the rows whose Python UDF calls cost the most in it,
    or the records of its partition (RDD code), or, for a stage without Python code, the
    plain statement that no record-level answer applies and the Spark remedy."""
    from perfx.isolation.script import ScriptExited, trace_script

    try:
        tracer = trace_script(
            script,
            args,
            master=master,
            store=store,
            spark=spark,
            warm_up=True,
            split_batches=split_batches,
        )
    except ScriptExited as exited:  # by sys.exit(N) after its Spark work: answered all the same
        try:
            answer = _script_answer(exited.tracer, script, top, options)
        except IsolationError:  # nothing to answer: the script's status is the error
            raise exited from None
        raise ScriptExited(str(exited), exited.exit_code, exited.tracer, answer) from None
    return _script_answer(tracer, script, top, options)


def _script_answer(tracer, script: str, top: int, options: ExplainOptions | None):
    """``why_script``'s answer of the script's finished traced run (``tracer``)."""
    from perfx.isolation.script import nothing_traced, script_result
    from perfx.isolation.udf import calls_notes, stored_calls

    from .session import open as open_session

    ctx = tracer.ctx
    if ctx is None:  # trace_script refuses a script that created no session
        raise IsolationError(f"{script} ran nothing on Spark to trace")
    if tracer.event_log is None:
        raise IsolationError(
            "the Spark session writes no event log (spark.eventLog.enabled): perfx why "
            "reads the traced run's own log; let perfx start the session, or enable "
            "event logging in yours"
        )
    session = open_session([tracer.event_log])
    calls = stored_calls(tracer.store.local_dir(tracer.run_id))
    tasks = session.raw.tasks
    app_tasks = tasks[
        (tasks["app_id"].astype(str) == str(ctx.meta["app_id"]))
        & (tasks["launch_time"] >= tracer.started_ms)
    ]
    if calls is not None:
        from perfx.isolation.udf import slowest_task

        stage, partition, attempt = slowest_task(calls)
        task = _log_task(app_tasks, stage, partition, attempt)
        try:
            answer = _explained(session, str(task["id"]), options)
        except (ExplainError, NoStageToCompare) as err:
            return _records_instead(script_result(tracer, top), _unexplained(err, task, app_tasks))
        answer.culprits = udf_culprits_of(calls, tracer.run_id, task, top)
        answer.notes.extend(calls_notes(ctx.meta))
        return answer
    if ctx.meta.get("outputs"):
        stored = open_run(tracer.run_id, tracer.store)
        traced = traced_tasks(stored)
        try:
            task_id = skewed_task(traced, stored)
            return _with_records(session, task_id, options, traced, stored, top)
        except NoStageToCompare as err:
            return _records_instead(script_result(tracer, top), str(err))
    try:
        task_id = skewed_task(app_tasks)
        answer = _explained(session, task_id, options)
    except NoStageToCompare as err:  # and no record to give instead
        said = f"{err}; {nothing_traced(ctx.meta)}"
        if stages := _untraced_python_stages(session, app_tasks):
            said += (
                "; its Python ran on an RDD perfx does not trace (a DataFrame's .rdd, or a "
                f"DataFrame's foreach) in Spark stage {', '.join(map(str, stages))}"
            )
        raise IsolationError(said) from None
    untraced = UNTRACED_PYTHON if _runs_python(session, task_id) else NO_RECORD_TRACING
    answer.notes.append(untraced.format(task=task_id))
    return answer


def _untraced_python_stages(session, tasks) -> list[int]:
    """The Spark stages of ``tasks`` (the script's, in its log) whose tasks run the script's
    Python on an RDD perfx does not trace (``_runs_python`` of one task each): a refusal that
    named only the untimed UDTF a script also ran left its slow ``df.rdd.map`` unsaid (a
    probe of PySpark scripts)."""
    first = tasks.drop_duplicates("stage_id")
    return sorted(
        int(stage)
        for stage, task in zip(first["stage_id"], first["id"])
        if _runs_python(session, str(task))
    )


def _runs_python(session, task: str) -> bool:
    """Does ``task``'s stage run Python (explain.gap.runs_python: its plan, else its call
    site)? A DataFrame's ``.rdd.map`` runs the script's function on an RDD perfx does not
    trace, and was said to run "no Python code of the script"."""
    from perfx.explain.columns import columns_for
    from perfx.explain.gap import runs_python

    cols = columns_for(session.raw, "task")
    rows = cols.rows_with_id(task)
    return bool(len(rows)) and runs_python(cols, int(rows[0]))


def _none_faster(task, err: NoReference) -> str:
    """Why the task perfx asked about has no task-level answer: no other task of its stage
    was clearly faster (the figures follow). The engine's own words told the user to name
    the reference with THAN, which ``perfx why`` has no place for (a probe of PySpark
    programs: the slowest task of a stage of alike tasks)."""
    return (
        f"task {task} was not clearly slower than the other tasks of its stage{err.durations}, "
        "so nothing stands out to explain it against them"
    )


def _unexplained(err, task, tasks) -> str:
    """Why the task whose UDF calls cost the most has no task-level answer: it ran alone in
    its stage (no peer to compare it with), or what ``_explained`` said (no other task of
    its stage was clearly faster: ``_none_faster``; the engine's refusal)."""
    peers = tasks[tasks["stage_id"] == task["stage_id"]]
    if len(peers) <= 1:
        return (
            f"task {task['id']} ran alone in its Spark stage {task['stage_id']}: no other task "
            "to compare it with, so no task-level cause"
        )
    return str(err)


def _records_instead(result, reason: str):
    """The traced run's own answer (``perfx isolate``'s: its costliest rows or records)
    where none of its tasks can be explained against its stage, ``reason`` said first: the
    records are still what the user asked for (a small program's two partitions had ended
    ``perfx why`` in an error)."""
    from dataclasses import replace

    kind = "rows" if result.udf_culprits is not None else "records"
    note = f"{reason}; the run's costliest {kind} follow"
    return replace(result, note=f"{note}; {result.note}" if result.note else note)


def _log_task(tasks, stage: int, partition: int, attempt: int):
    """The event log's row of the task that ran ``partition`` of Spark stage ``stage``."""
    from .chain import tasks_of_partition

    done = tasks_of_partition(tasks, stage, partition)
    if done.empty:
        raise IsolationError(
            f"the traced run's event log has no task for Spark stage {stage} partition {partition}"
        )
    if "attempt" in done.columns and (done["attempt"].astype(int) == attempt).any():
        done = done[done["attempt"].astype(int) == attempt]
    return done.iloc[-1]


def udf_culprits_of(calls, run_id: str, task, top: int) -> dict:
    """The rows whose UDF calls cost the most in ``task`` (a log's task row), in the shape
    of ``chain.culprits`` so that every answer renders them alike."""
    from perfx.isolation.udf import udf_culprits

    from .chain import task_partitions

    partition = int(task_partitions(task.to_frame().T).iloc[0])
    key = (int(task["stage_id"]), partition, int(task.get("attempt", 0) or 0))
    task_ms = float(task["duration"]) if task["duration"] == task["duration"] else None
    ranked = udf_culprits(calls, key, top, task_ms)
    return {
        "run": run_id,
        "task": str(task["id"]),
        "traced_stage": f"Spark stage {key[0]}",
        "partition": partition,
        "spark_stage": key[0],
        "traced_task_ms": task_ms,
        "rule": "the Python UDF calls its task made",
        "records": [
            {
                "source": None,
                "location": r.location if isinstance(r.location, str) else f"{r.udf}()",
                "line": None if r.line != r.line or r.line is None else int(r.line),
                "udf": r.udf,
                "excerpt": (f"line {int(r.line)}: " if r.line == r.line and r.line else "")
                + f"{r.udf}({r.excerpt})",
                "impact_ms": float(r.ms),
                "latency_ms": float(r.ms),
                "remediated_ms": 0.0,
                "outputs": int(r.rows),
                "share": float(r.share) if r.share == r.share else None,
            }
            for r in ranked.itertuples()
            if r.ms >= MIN_IMPACT_MS
        ],
        "keys": None,
    }
