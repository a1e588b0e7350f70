"""``perfx why PROGRAM INPUT``: the whole chain in one command. Run the program traced with
its event log, find the stage where skew cost the most and its slowest task, explain that task
against its stage, and attach the input records that cost the time."""

from __future__ import annotations

from pathlib import Path

from perfx.isolation.errors import IsolationError

from .chain import open_run, skewed_task, traced_tasks


def why(
    program: str,
    input_path: str,
    *,
    master: str = "local[2]",
    store=None,
    top: int = 5,
    spark=None,
    **options,
):
    """``perfx why``: run ``program`` traced with its event log, find the skewed stage and
    its slowest task, explain it against its stage and attach the records that cost the
    time (after ``_warm_up``: the slowest task must not be merely the first to start)."""
    from perfx.isolation.runner import check_input, load_program, run_traced, traced_session

    from .session import open as open_session

    module = load_program(program)
    check_input(input_path)
    with traced_session(store, master, f"perfx why {Path(program).name}", spark) as run:
        if run.event_log is None:
            raise IsolationError(
                "the Spark session writes no event log (spark.eventLog.enabled): perfx why "
                "reads the traced run's own log; let perfx start the session, or enable "
                "event logging in yours"
            )
        _warm_up(run.spark, program, input_path, module)
        run_traced(
            program,
            input_path,
            spark=run.spark,
            store=run.store,
            run_id=run.run_id,
            module=module,
            event_log=run.event_log,
        )
    # the session is stopped: its event log is complete
    event_log, run_id, lineage_store = run.event_log, run.run_id, run.store
    stored = open_run(run_id, lineage_store)
    task = skewed_task(traced_tasks(stored))
    return open_session([event_log]).explain(
        f"WHY TASK '{task}' SLOWER", run=run_id, store=lineage_store, top=top, **options
    )


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
