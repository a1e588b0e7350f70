"""Spark's and the Python workers' traces go to ``spark.log`` in the run's folder: a failing
user function shows its one-line error and that file's path on the terminal, nothing more."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfx.isolation.errors import IsolationError, UdfError
from perfx.isolation.runner import SPARK_LOG, spark_log, traces_in

FAILING = """
def parse(line):
    raise ValueError(f"cannot parse {line!r}")


def pipeline(ctx, input_path):
    return ctx.textFile(input_path).map(parse)
"""


def _isolate(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """``perfx isolate ARGS`` in a process of its own, from ``folder``: Spark's session is
    perfx's, started with its output going to the run's ``spark.log``."""
    return subprocess.run(
        [sys.executable, "-m", "perfx.cli", "isolate", *args],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=300,
    )


@pytest.mark.spark
def test_a_failing_udf_prints_one_line_and_the_trace_file(tmp_path):
    program, data = tmp_path / "failing.py", tmp_path / "lines.txt"
    program.write_text(FAILING)
    data.write_text("first\nsecond\n")
    store = tmp_path / "runs"
    done = _isolate(tmp_path, str(program), "--input", str(data), "--store", str(store))
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("Starting Spark"), done.stderr
    error = lines[1]
    assert error.startswith("perfx: parse raised ValueError: cannot parse 'first' on record first")
    logged = next(store.glob(f"*/{SPARK_LOG}"))
    assert error.endswith(f"(Spark's and the Python workers' traces: {logged})")
    trace = logged.read_text()
    assert "Traceback (most recent call last)" in trace and "PythonException" in trace
    assert 'raise ValueError(f"cannot parse {line!r}")' in trace


def test_the_log_is_in_the_run_folder(tmp_path):
    events = tmp_path / "runs" / "20260101-000000-abcdef" / "events"
    assert spark_log(str(events)) == str(events.parent / SPARK_LOG)
    assert spark_log(None) is None  # a store without a local folder


def test_errors_name_the_trace_file_only_when_it_holds_something(tmp_path):
    log = tmp_path / SPARK_LOG
    log.write_text("")
    with pytest.raises(IsolationError, match=r"^boom$"), traces_in(str(log)):
        raise IsolationError("boom")
    log.write_text("ERROR Executor: ...\n")
    with pytest.raises(UdfError) as caught, traces_in(str(log)):
        raise UdfError("parse raised ValueError")
    assert (
        str(caught.value)
        == f"parse raised ValueError (Spark's and the Python workers' traces: {log})"
    )
    with pytest.raises(ValueError, match="not ours"), traces_in(str(log)):
        raise ValueError("not ours")
    assert Path(log).read_text() == "ERROR Executor: ...\n"


WORKER_PRINTS = """
import os
os.environ["PYSPARK_PYTHON"] = {workers!r}
from pyspark.sql import SparkSession

spark = SparkSession.builder.master("local[2]").getOrCreate()
again = SparkSession.builder.config("spark.sql.shuffle.partitions", "3").getOrCreate()
spark.sparkContext.parallelize(["printed-on-a-worker-1", "printed-on-a-worker-2"], 2).foreach(print)
print("printed on the driver;", again.conf.get("spark.sql.shuffle.partitions"), "partitions")
spark.stop()
"""


@pytest.mark.spark
def test_a_scripts_prints_on_the_workers_are_in_the_file_the_answer_names(tmp_path):
    """A script printing on the workers (``foreach(print)``) prints to Spark's output, which
    a traced run keeps in ``spark.log``: the answer names that file, which holds them. The
    script's second builder sets a runtime option of the session perfx started, as it does
    plainly (it was ignored: 200 partitions where the script asked for 3). It names its
    workers' interpreter, as tutorials do: the base Python of perfx's, on which a plain run's
    workers run (Spark hands them PySpark) and which, outside perfx's environment, cannot
    import perfx (a traced run failed there)."""
    script, store = tmp_path / "prints.py", tmp_path / "runs"
    script.write_text(WORKER_PRINTS.format(workers=getattr(sys, "_base_executable", "")))
    done = _isolate(tmp_path, str(script), "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("printed on the driver; 3 partitions\n")
    logged = next(store.glob(f"*/{SPARK_LOG}"))
    assert done.stdout.splitlines()[-1] == (
        "Spark's and the Python workers' output (what the script printed on the workers among "
        f"it): {logged}"
    ), done.stdout
    text = logged.read_text()
    assert "printed-on-a-worker-1" in text and "printed-on-a-worker-2" in text


@pytest.mark.parametrize(
    "interpreter, switched",
    [("exit 1", True), ('exec "{python}" "$@"', False)],
    ids=["one that cannot import perfx", "one that can"],
)
def test_local_workers_run_an_interpreter_that_imports_perfx(
    tmp_path, monkeypatch, capsys, interpreter, switched
):
    """A script naming its workers' interpreter keeps it where that one imports perfx, and
    gets perfx's where it cannot, with a line saying so."""
    from types import SimpleNamespace

    from perfx.isolation.context import TracedContext

    named = tmp_path / "python"
    named.write_text("#!/bin/sh\n" + interpreter.format(python=sys.executable) + "\n")
    named.chmod(0o755)
    monkeypatch.setenv("PYSPARK_PYTHON", str(named))
    ctx = SimpleNamespace(sc=SimpleNamespace(master="local[2]", pythonExec=str(named)))
    TracedContext._use_driver_python(ctx)  # type: ignore[arg-type]
    said = capsys.readouterr().err
    if switched:
        assert ctx.sc.pythonExec == sys.executable
        assert said == (
            f"perfx: the workers' Python the script names ({named}) cannot import perfx, whose "
            f"code a traced run's workers run: they run perfx's ({sys.executable})\n"
        )
    else:
        assert ctx.sc.pythonExec == str(named) and said == ""
