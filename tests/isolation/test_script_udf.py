"""Unmodified DataFrame scripts under ``perfx why`` / ``perfx isolate`` (issue 31): a regex
that backtracks on a few long lines of one input file, as a row UDF, a pandas UDF and a
mapInPandas function (tests/isolation/scripts/). The answer must name those lines first, by
file and line number; ``perfx verify`` must remove exactly them; a pure Spark SQL script
gets the task-level answer and says that no record-level tracing applies; a failing script
fails with its own traceback. The scripts run in the shared test session, in-process.

Whether verify's measured speed-up is within 25 % of its prediction is a timing, measured
by ``./dev bench isolation`` (no test asserts on time).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from perfx.cli import main
from perfx.isolation.script import ScriptFailed, run_plain, script_result, trace_script
from perfx.why import why_script
from tests.isolation.scripts.lines import PATHOLOGICAL, write_lines

SCRIPTS = Path(__file__).resolve().parent / "scripts"


@pytest.fixture(scope="module")
def lines_input(tmp_path_factory):
    folder = tmp_path_factory.mktemp("udf-input") / "in"
    return folder, write_lines(folder)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return str(tmp_path_factory.mktemp("script-runs"))


def _script(folder: Path, name: str, *lines: str) -> Path:
    """A script of these lines in ``folder``."""
    script = folder / name
    script.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return script


def _traced_as_plainly(script: Path, spark, store, capsys, split_batches: bool = False):
    """(what ``script`` printed, its tracer): run plainly, then traced, printing the same
    (plain PySpark is the oracle)."""
    run_plain(script, [], spark)
    plain = capsys.readouterr().out
    tracer = trace_script(script, [], spark=spark, store=store, split_batches=split_batches)
    assert capsys.readouterr().out == plain
    return plain, tracer


def _named(answer, top: int = 3) -> set[tuple[str, int]]:
    records = answer.culprits["records"][:top]
    return {(r["location"].rsplit("@", 1)[0], r["line"]) for r in records}


@pytest.mark.spark
@pytest.mark.parametrize("script", ["regex_udf", "regex_pandas_udf", "regex_map_in_pandas"])
def test_why_names_the_slow_lines_first(spark, lines_input, store, script, capsys):
    """A pandas UDF's costliest batches split into their rows, as asked (``--split-batches``;
    a row UDF's calls are rows already)."""
    folder, slow = lines_input
    answer = why_script(
        str(SCRIPTS / f"{script}.py"), [str(folder)], spark=spark, store=store, split_batches=True
    )
    assert "matching lines: 0" in capsys.readouterr().out  # the script's own output
    assert answer.culprits is not None, answer.notes
    assert _named(answer) == slow
    first = answer.culprits["records"][0]
    assert first["share"] is not None and 0 < first["share"] <= 1
    assert "line " in first["excerpt"] and PATHOLOGICAL in first["excerpt"]
    assert not any("--split-batches" in note for note in answer.notes)


@pytest.mark.spark
def test_unasked_a_pandas_udfs_costliest_batch_stays_whole_and_the_answer_says_so(
    spark, lines_input, store
):
    """Splitting a batch calls the script's function again after it: unasked, the answer
    names the batch whole and says how to split it, and at what price."""
    folder, _ = lines_input
    answer = why_script(
        str(SCRIPTS / "regex_map_in_pandas.py"), [str(folder)], spark=spark, store=store
    )
    assert answer.culprits is not None, answer.notes
    assert re.fullmatch(r"keep_only_a\(\(\d+ rows\)\)", answer.culprits["records"][0]["excerpt"])
    assert any(
        note.startswith("the costliest calls of ") and "--split-batches" in note
        for note in answer.notes
    ), answer.notes


@pytest.mark.spark
def test_verify_reruns_the_script_without_the_named_lines(spark, lines_input, store, capsys):
    from perfx.verify import verify

    folder, slow = lines_input
    tracer = trace_script(SCRIPTS / "regex_udf.py", [str(folder)], spark=spark, store=store)
    result = verify(tracer.run_id, without=3, store=store, spark=spark, repeats=1)
    assert {(loc.rsplit("@", 1)[0]) for loc in result.removed} == {p for p, _ in slow}
    assert len(result.removed) == 3
    assert result.predicted_before_ms > result.predicted_after_ms
    assert result.before_ms > 0 and result.after_ms > 0
    assert "the traced run's tasks predicted Spark stage" in result.lines()[2]


@pytest.mark.spark
def test_every_row_the_udf_read_is_counted_once_in_its_task(spark, lines_input, store):
    """The calls noted with their rows and the tallies of cheap calls (``TaskTallies``)
    together count each input line once, in the task that read it: per partition, the rows
    plain PySpark reads there (the workers run several tasks each, so a timer's counts must
    start afresh with each task)."""
    from perfx.isolation.udf import stored_calls

    folder, _ = lines_input
    split = "spark.sql.files.maxPartitionBytes"
    saved = spark.conf.get(split)
    spark.conf.set(split, "32k")  # about 3 partitions a file: 12 tasks on 2 workers
    try:
        tracer = trace_script(SCRIPTS / "regex_udf.py", [str(folder)], spark=spark, store=store)
        frame = spark.read.text(str(folder))
        per_partition = dict(
            frame.rdd.mapPartitionsWithIndex(lambda i, rows: [(i, sum(1 for _ in rows))]).collect()
        )
    finally:
        spark.conf.set(split, saved)
    calls = stored_calls(tracer.store.local_dir(tracer.run_id))
    lines = sum(len(f.read_bytes().splitlines()) for f in Path(folder).iterdir())
    assert int(calls["rows"].sum()) == lines
    assert len(per_partition) > 4
    assert calls.groupby("partition")["rows"].sum().to_dict() == per_partition
    tallied = calls[calls["excerpt"].isna()]
    assert len(tallied) and (tallied["rows"] > 1).all()  # the cheap calls, one row a task
    assert not tallied.duplicated(["udf", "spark_stage", "partition", "attempt"]).any()


@pytest.mark.spark
def test_pure_sql_script_says_no_record_level_tracing_applies(spark, store, capsys):
    answer = why_script(str(SCRIPTS / "sql_skew.py"), ["40000"], spark=spark, store=store)
    assert capsys.readouterr().out.startswith("keys: ")
    assert answer.culprits is None
    said = " ".join(answer.notes)
    assert "no record-level tracing applies" in said
    assert "spark.sql.adaptive.skewJoin.enabled" in said
    assert answer.entity == "task"


@pytest.mark.spark
def test_python_on_a_dataframes_rdd_is_said_to_be_untraced_not_absent(
    spark, tmp_path, store, capsys
):
    """A DataFrame's ``.rdd.map`` runs the script's function on an RDD perfx does not trace:
    its stage was said to run "no Python code of the script", with a Spark SQL remedy (a
    probe of PySpark programs)."""
    script = _script(
        tmp_path,
        "frame_rdd.py",
        "import time",
        "from pyspark.sql import SparkSession",
        "frame = SparkSession.builder.getOrCreate().range(0, 400, 1, 4)",
        "def slow(row):",
        "    if row.id < 100:",
        "        time.sleep(0.005)",
        "    return row.id * 2",
        "print(sum(frame.rdd.map(slow).collect()))",
    )
    answer = why_script(str(script), [], spark=spark, store=store)
    assert capsys.readouterr().out == "159600\n"
    said = " ".join(answer.notes)
    assert "its stage runs the script's Python on an RDD perfx does not trace" in said
    assert "no Python code" not in said and "adaptive" not in said


@pytest.mark.spark
def test_a_slowest_task_no_slower_than_its_stage_gets_the_runs_records(
    spark, tmp_path, store, capsys, monkeypatch
):
    """The slowest task of a stage of alike tasks, of which none is clearly faster: the
    engine's refusal told the user to name a reference with THAN, which ``perfx why`` has no
    place for, and ended it with exit 1 after the script had run (a probe of PySpark
    programs). It says what that means, with the figures, and gives the run's costliest
    records instead. The engine's refusal is made here: whether a task is clearly slower
    than the stage's others depends on this machine's timing."""
    from perfx.explain.errors import NoReference
    from perfx.session import Session

    def no_reference(session, question, options=None, **traced):
        raise NoReference("no task ... (THAN TASK ...)", " (it took 9 ms; the 3 others 8 ms-9 ms)")

    monkeypatch.setattr(Session, "explain", no_reference)
    script = _script(
        tmp_path,
        "alike.py",
        "from pyspark import SparkContext",
        "sc = SparkContext.getOrCreate()",
        "print(sc.parallelize(range(400), 4).map(lambda x: x * 2).sum())",
    )
    result = why_script(str(script), [], spark=spark, store=store)
    assert capsys.readouterr().out == "159600\n"
    assert re.match(
        r"task \S+ was not clearly slower than the other tasks of its stage \(it took 9 ms; "
        r"the 3 others 8 ms-9 ms\), so nothing stands out to explain it against them; the "
        r"run's costliest records follow",
        result.note,
    ), result.note
    assert "THAN" not in result.note and len(result.culprits)


@pytest.mark.spark
def test_a_task_of_a_stage_without_traced_records_gets_its_task_level_answer(spark, store, capsys):
    """A task of the first half of a repartition (records moved on to the shuffle; no stage
    end of the traced run times them there) is answered at task level with where the run's
    records are: ``perfx why`` had stopped, exit 1, "traced no records in Spark stage 5"."""
    from perfx.chain import open_run, traced_spark_stages, traced_tasks
    from perfx.session import open as open_session
    from perfx.why import _with_records

    tracer = trace_script(SCRIPTS / "slow_before_repartition.py", [], spark=spark, store=store)
    assert capsys.readouterr().out == f"{sum(range(40))}\n"
    stored = open_run(tracer.run_id, tracer.store)
    tasks = traced_tasks(stored)
    moved = tasks[~tasks["stage_id"].isin(traced_spark_stages(stored))]
    assert len(moved) == 4  # the repartition's first half: one task per input partition
    task = str(moved.loc[moved["duration"].idxmax(), "id"])
    answer = _with_records(open_session([tracer.event_log]), task, None, tasks, stored, 5)
    assert answer.pair[0] == task and answer.culprits is None
    assert answer.notes[-1] == (
        f"no record of task {task} is told apart: its Spark stage {moved['stage_id'].iloc[0]} "
        "ran none of the traced run's stage ends (it moved records on to a shuffle, as a "
        f"repartition's or a sort's first half does); perfx culprits {tracer.run_id} lists "
        "the run's costliest records"
    )


FAILING = {
    "in its own code": (
        [
            "from pyspark.sql import SparkSession",
            "spark = SparkSession.builder.getOrCreate()",
            "print(spark.sparkContext.parallelize([1, 2]).count())",
            "raise ValueError('the script breaks here')",
        ],
        "ValueError: the script breaks here",
        "line 4, in <module>",
    ),
    "in its UDF, on a worker": (
        [
            "from pyspark.sql import SparkSession, functions as F",
            "spark = SparkSession.builder.getOrCreate()",
            "@F.udf('int')",
            "def parse(s):",
            "    return int(s)",
            "spark.createDataFrame([('1',), ('x',)], ['v']).select(parse('v')).collect()",
        ],
        r"PythonException: ValueError: invalid literal for int\(\) with base 10: 'x'$",
        "line 5, in parse",
    ),
    "in its SQL, with a many-line message": (
        [
            "from pyspark.sql import SparkSession",
            "spark = SparkSession.builder.getOrCreate()",
            "spark.sql('SELEC 1')",
        ],
        r"ParseException: \[PARSE_SYNTAX_ERROR\] .* \.\.\.$",
        "line 3, in <module>",
    ),
    "in the JVM, reading a missing file": (  # Py4J's first line names only the JVM call
        [
            "from pyspark.sql import SparkSession",
            "spark = SparkSession.builder.getOrCreate()",
            "spark.sparkContext.textFile('does/not/exist.txt').count()",
        ],
        r"Py4JJavaError: org\.apache\.hadoop\.mapred\.InvalidInputException: Input path does "
        r"not exist: file:/\S+/does/not/exist\.txt$",
        "line 3, in <module>",
    ),
    "before it runs (it does not compile)": (
        ["def broken(:", "    pass"],
        "SyntaxError: ",
        "line 1\n",
    ),
}
"""Scripts that fail: their lines, their error, and the line of theirs it names."""


@pytest.mark.spark
@pytest.mark.parametrize("where", sorted(FAILING))
def test_a_failing_script_fails_with_its_own_traceback(spark, tmp_path, store, capsys, where):
    """Traced, a script fails as it does plainly, its traceback naming its own line; a UDF's,
    from the worker, names perfx's timer by name (its code is written at run time), not
    "<string>"."""
    lines, error, line = FAILING[where]
    script = _script(tmp_path, "broken.py", *lines)
    with pytest.raises(ScriptFailed, match=error) as failed:
        trace_script(script, [], spark=spark, store=store)
    assert "\n" not in str(failed.value)  # one line; the traceback above has all of them
    out, err = capsys.readouterr()
    assert f'File "{script}", {line}' in err and '"<string>"' not in err
    assert "runpy" not in err and "isolation/script.py" not in err  # the script's frames
    if where == "in its own code":
        assert out == "2\n"
        assert err.rstrip().endswith("ValueError: the script breaks here")
    elif where == "in its UDF, on a worker":
        assert "<perfx's UDF timer>" in err
    elif where == "before it runs (it does not compile)":  # as Python shows it: no traceback
        assert err.startswith(f'  File "{script}", line 1\n    def broken(:\n')


@pytest.mark.spark
def test_a_traced_jobs_failure_the_script_does_not_catch_names_the_record(spark, tmp_path, store):
    """Spark's own error reaches the script (``caught_failure``); uncaught, perfx's reading
    of it is the one line: the function, its error and the record."""
    from perfx.isolation.errors import UdfError

    script = _script(
        tmp_path,
        "fails.py",
        "from pyspark.sql import SparkSession",
        "sc = SparkSession.builder.getOrCreate().sparkContext",
        "print(sc.parallelize([1, 2, 0, 4], 2).map(lambda x: 10 // x).collect())",
    )
    with pytest.raises(UdfError) as failed:
        trace_script(script, [], spark=spark, store=store)
    assert str(failed.value) == (
        "<lambda> raised ZeroDivisionError: integer division or modulo by zero on record 0 "
        "(input parallelize[2])"
    )


@pytest.mark.spark
def test_an_accumulator_plain_spark_would_add_to_again_is_refused(spark, tmp_path, store):
    """A dataset plain Spark computes again for a second action, its function adding to an
    accumulator: the traced run, which computes it once, would print another value (20
    against 10 plainly, exit 0); the second action is refused, at its line."""
    from perfx.isolation.errors import IsolationError

    script = _script(
        tmp_path,
        "twice.py",
        "from pyspark.sql import SparkSession",
        "sc = SparkSession.builder.getOrCreate().sparkContext",
        "acc = sc.accumulator(0)",
        "def f(x):",
        "    acc.add(1)",
        "    return x",
        "mapped = sc.parallelize(range(10), 2).map(f)",
        "print(mapped.count())",
        "print(mapped.first(), acc.value)",
    )
    with pytest.raises(IsolationError) as refused:
        trace_script(script, [], spark=spark, store=store)
    assert str(refused.value) == (
        f"{script}:9: this action computes again, in plain Spark, the dataset "
        "parallelize.map, whose function adds to an accumulator: plain Spark adds again for "
        "each action on a dataset it does not keep, and a traced run computes it once, so the "
        "accumulator would hold another value; cache() it before its first action (plain "
        "Spark then computes it once too)"
    )


def test_script_exit_status_is_kept(tmp_path, store):
    script = tmp_path / "usage.py"
    script.write_text("import sys\nsys.exit(2)\n", encoding="utf-8")
    with pytest.raises(ScriptFailed) as failed:
        trace_script(script, [], store=store)
    assert failed.value.exit_code == 2


@pytest.mark.parametrize(
    "lines",
    [("import os", "print(lit)"), ("def broken(:",)],
    ids=["a NameError Python offers a name for", "a script that does not compile"],
)
def test_a_script_named_by_a_relative_path_fails_as_python_shows_it(
    tmp_path, store, capsys, monkeypatch, lines
):
    """Python (the oracle, run plainly) names the script by its absolute path and offers a
    NameError's likely name ("Did you mean: 'list'?"): a traced run's traceback lost both
    (a probe of public PySpark programs)."""
    import subprocess
    import sys

    _script(tmp_path, "broken.py", *lines)
    monkeypatch.chdir(tmp_path)
    plain = subprocess.run([sys.executable, "broken.py"], capture_output=True, text=True)
    assert plain.returncode == 1
    with pytest.raises(ScriptFailed):
        trace_script("broken.py", [], store=store)
    assert capsys.readouterr().err == plain.stderr


@pytest.mark.spark
def test_a_refusal_says_where_the_scripts_untraced_python_ran(spark, store, capsys):
    """No stage of three tasks and no traced record: the refusal says the script's Python
    ran on a DataFrame's ``.rdd``, naming its stage, where it said only that no record-level
    answer applies (a probe of PySpark scripts)."""
    from perfx.isolation.errors import IsolationError

    with pytest.raises(IsolationError) as refused:
        why_script(str(SCRIPTS / "frame_rdd_only.py"), [], spark=spark, store=store)
    assert capsys.readouterr().out == "1560\n"
    assert re.search(
        r"; its Python ran on an RDD perfx does not trace \(a DataFrame's \.rdd, or a "
        r"DataFrame's foreach\) in Spark stage \d+$",
        str(refused.value),
    ), str(refused.value)


@pytest.mark.spark
def test_rows_of_an_input_the_script_removed_are_said_to_be_unlocatable(spark, store, capsys):
    """A script that removes its temporary input once done: its rows cannot be located in
    it when its run finishes, and the answer says why, where it only said "(not located)"
    (a probe of PySpark scripts)."""
    plain, tracer = _traced_as_plainly(SCRIPTS / "removed_input.py", spark, store, capsys)
    assert plain == "1490\n"
    result = script_result(tracer)
    gone = tracer.ctx.meta["gone"]
    assert len(gone) == 1 and gone[0].endswith("lines.txt")
    assert f"the script's input {gone[0]} was gone when perfx looked for its rows" in (
        result.note or ""
    )
    assert result.udf_culprits["location"].isna().all()


@pytest.mark.spark
@pytest.mark.parametrize("command", ["isolate", "why"])
def test_a_script_that_exits_with_a_status_after_its_work_is_answered_then_ends_with_it(
    spark, lines_input, store, tmp_path, capsys, command
):
    """``sys.exit(3)`` once the script's Spark work is done (a script's "done, with
    warnings"): perfx answers its run, then ends with the script's status and says so, where
    it gave no answer (a probe of PySpark scripts)."""
    folder, slow = lines_input
    script = _script(
        tmp_path,
        "warns.py",
        "import runpy, sys",
        f"runpy.run_path({str(SCRIPTS / 'regex_udf.py')!r}, run_name='__main__')",
        "sys.exit(3)",
    )
    out = tmp_path / "answer.json"
    args = [command, str(script), "--store", store, "--format", "json", "--out", str(out)]
    with pytest.raises(SystemExit) as ended:
        main([*args, "--", str(folder)])
    assert ended.value.code == 3
    printed = capsys.readouterr()
    assert "matching lines: 0" in printed.out  # the script's own output
    assert printed.err.rstrip().endswith(f"perfx: {script} exited with status 3")
    answer = json.loads(out.read_text(encoding="utf-8"))
    rows = answer["udf_culprits"] if command == "isolate" else answer["culprits"]["records"]
    assert {row["line"] for row in rows[:3]} == {line for _, line in slow}


@pytest.mark.spark
def test_isolate_command_runs_the_script_then_answers_in_out_and_culprits_again(
    spark, lines_input, store, tmp_path
):
    from click.testing import CliRunner

    from perfx.cli import cli

    folder, slow = lines_input
    out = tmp_path / "answer.json"
    script = str(SCRIPTS / "regex_udf.py")
    args = ["isolate", script, "--store", store, "--format", "json", "--out", str(out)]
    result = CliRunner().invoke(cli, [*args, "--", str(folder)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "matching lines: 0" in result.stdout  # the script's; perfx's answer is in --out
    answer = json.loads(out.read_text(encoding="utf-8"))
    named = {(r["location"].rsplit("@", 1)[0], r["line"]) for r in answer["udf_culprits"][:3]}
    assert named == slow
    assert answer["culprits"] == [] and answer["outputs"] == []
    again = CliRunner().invoke(
        cli, ["culprits", answer["run"], "--store", store, "--format", "json"]
    )
    assert again.exit_code == 0, again.output
    stored = json.loads(again.output)
    assert stored["udf_culprits"][:3] == answer["udf_culprits"][:3]
    text = CliRunner(env={"COLUMNS": "250"}).invoke(  # the location cell holds a temporary path
        cli, ["culprits", answer["run"], "--store", store]
    )
    assert "Rows whose Python UDF calls cost the most" in text.output
    assert "part-2.txt" in text.output
    # a row's share is of the task's UDF time: a 3 µs call was "48 % of the task"
    assert "share of the task's UDF time" in text.output


def test_isolate_command_refuses_script_arguments_with_input(tmp_path):
    from click.testing import CliRunner

    from perfx.cli import cli

    program = tmp_path / "p.py"
    program.write_text("def pipeline(ctx, input_path):\n    return None\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["isolate", str(program), "--input", str(tmp_path), "x"])
    assert result.exit_code == 2
    assert "arguments after PROGRAM.py are a script's" in result.output


@pytest.mark.spark
def test_a_run_whose_rows_are_all_cheap_is_stored_without_a_pass_over_its_input(
    spark, tmp_path, store, monkeypatch
):
    """No call reaches ``udf.NOTED_NS`` (set to 10 s here, so that no pause of a busy
    machine makes one): no row is located (none is a culprit), so the input is not read
    again, and ``perfx verify`` says that no row stands out."""
    from click.testing import CliRunner

    from perfx.cli import cli
    from perfx.isolation import udf
    from perfx.isolation.errors import IsolationError
    from perfx.verify import verify

    folder = tmp_path / "in"
    write_lines(folder, lines=500, slow={})

    def unwanted(*args):
        raise AssertionError("the input was read to locate rows that do not stand out")

    monkeypatch.setattr(udf, "NOTED_NS", 10_000_000_000)
    monkeypatch.setattr(udf, "locate_lines", unwanted)
    tracer = trace_script(SCRIPTS / "regex_udf.py", [str(folder)], spark=spark, store=store)
    calls = udf.stored_calls(tracer.store.local_dir(tracer.run_id))
    assert calls["location"].isna().all() and len(calls[calls["excerpt"].notna()])
    with pytest.raises(IsolationError, match="3 of its top 3 rows cost under 10000000 µs"):
        verify(tracer.run_id, without=3, store=store, spark=spark, repeats=1)
    text = CliRunner(env={"COLUMNS": "250"}).invoke(
        cli, ["culprits", tracer.run_id, "--store", store]
    )
    assert text.output.count("(under 10000000 µs: not located)") == 10


@pytest.mark.spark
@pytest.mark.parametrize(
    ("script", "udfs"),
    [
        ("named_arguments", {"width", "padded", "letters"}),
        (
            "pandas_udf_kinds",
            {"lengths", "shifted_lengths", "mean_length", "longest", "arrow_width"},
        ),
        ("rdd_to_dataframe", set()),
        ("old_sql_context", set()),
        ("grouped_map_apply", {"centred", "sized"}),
        ("what_spark_says", set()),
        ("printing_udf", {"doubled"}),
        ("rdd_idioms", set()),
        ("context_idioms", set()),
        ("caught_failure", set()),
        ("accumulators", set()),
        ("callable_udfs", {"partial", "Tagger", "partial#2"}),
        ("udfs_before_session", {"shouted", "lengths"}),
        ("text_frame_type", set()),
    ],
)
@pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0:FutureWarning")  # SQLContext
def test_udf_forms_run_traced_as_they_run_plainly(spark, store, capsys, script, udfs):
    """Forms of UDF a script may use beyond the regex scripts': columns passed by name
    (``f(s=col)``, which PySpark passes as keyword arguments), and the pandas UDF kinds
    PySpark tells apart by type hints (an iterator of batches to an iterator of results;
    Series to a scalar), an Arrow-optimised row UDF, and UDFs of callables without a name
    (a partial, an object with ``__call__``: their columns are named after their classes,
    where a traced run named them ``call(x)``). Each prints what it prints plainly,
    and each UDF's calls are stored. A traced RDD may become a DataFrame (``toDF``,
    ``createDataFrame``, the older ``SQLContext.createDataFrame``), its lineage ending
    there."""
    from perfx.isolation.udf import stored_calls

    # printing_udf's only batch is split, its prints then kept from the script's output
    split = script == "printing_udf"
    plain, tracer = _traced_as_plainly(SCRIPTS / f"{script}.py", spark, store, capsys, split)
    lines = {
        "named_arguments": 1,
        "old_sql_context": 3,
        "grouped_map_apply": 3,
        "what_spark_says": 7,
        "printing_udf": 1,
        "rdd_idioms": 5,
        "context_idioms": 2,
        "caught_failure": 2,
        "accumulators": 3,
        "callable_udfs": 2,
        "udfs_before_session": 2,
        "text_frame_type": 1,
    }
    assert plain.count("\n") == lines.get(script, 4)
    calls = stored_calls(tracer.store.local_dir(tracer.run_id))
    assert (set() if calls is None else set(calls["udf"])) == udfs
    if script == "named_arguments":
        assert plain == (
            "[(2, 2, '....de', 'ddddde', 2), (3, 3, '...abc', 'aaaabc', 3), "
            "(5, 5, '.fghij', 'ffghij', 5)]\n"
        )
    elif script == "grouped_map_apply":  # a group's rows: each timed call is one group
        assert plain.startswith("[Row(id=1, v=-0.5), Row(id=1, v=0.5), Row(id=2, v=-3.0)")
        assert plain.endswith("PySparkValueError True\n")  # three parameters: refused
        # each call named by its group's key
        assert sorted(calls["excerpt"]) == 2 * ["group 1 (2 rows)"] + 2 * ["group 2 (3 rows)"]
    elif script == "printing_udf":  # its only batch, timed again row by row on the driver
        assert plain.startswith("[Row(doubled(id)=0), Row(doubled(id)=2)")
        assert int(calls["rows"].sum()) == 5 and len(calls) == 5
    elif script == "what_spark_says":
        assert "perfx.isolation" not in plain and "Disk Memory Serialized 2x Replicated" in plain
        assert plain.endswith("True 10 1\n")  # an RDD told from a list
    elif script == "caught_failure":  # Spark's own error, and the run whole without its job
        assert plain == "caught PythonException\n[('a', 150), ('b', 100), ('c', 100)]\n"
        assert tracer.ctx is not None and len(tracer.ctx.meta["outputs"]) == 1
    elif script == "accumulators":
        assert plain == (
            "20 380 20\n[32, 34, 36, 38] 20 380\n[(0, 135), (1, 145), (2, 155)] 3 30\n"
        )
    elif script == "text_frame_type":  # Spark's class name, whose .rdd perfx traces
        assert plain.startswith("DataFrame DataFrame pyspark.sql.") and plain.endswith(" 3\n")
    elif script == "udfs_before_session":  # made before the session, timed in it
        assert plain.endswith("['AB', 'CDE', 'F']\n")
        assert len(calls[calls["udf"] == "shouted"]) == 6  # 3 rows in each query
    elif script == "callable_udfs":  # the columns named after the callables' classes
        assert plain.startswith("['x', 'partial(x)', 'Tagger(x)', 'partial(x)']\n")
    elif script == "context_idioms":
        assert plain == "True ['1', '2', '3']\n[b'alpha', b'beta']\n"
        assert tracer.ctx is not None and len(tracer.ctx.meta["outputs"]) == 2
    elif script == "rdd_idioms":
        assert plain.splitlines()[::3] == [
            "[('a', 'ResultIterable', 2), ('b', 'ResultIterable', 1)]",
            "[[1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]",
        ]
        assert plain.endswith("no such input\n")
    elif script in ("rdd_to_dataframe", "old_sql_context"):
        # the datasets that became DataFrames, each once however often (rdd_to_dataframe:
        # totals and its mapped rows; old_sql_context: the rows, and the collected counts)
        assert tracer.ctx is not None and len(tracer.ctx.meta["outputs"]) == 2
    else:
        for udf in ("lengths", "shifted_lengths", "arrow_width"):  # outlier batches split
            assert int(calls.loc[calls["udf"] == udf, "rows"].sum()) == 60  # into rows too


CONTEXTS = {
    # Spark's own transitive_closure.py takes its context as spark._sc
    "the session's private context": (
        "from pyspark.sql import SparkSession",
        "sc = SparkSession.builder.getOrCreate()._sc",
    ),
    # as tutorials write it: it returned the real context, and the RDD actions escaped
    # tracing (the run said it ran none)
    "a context asked again with getOrCreate": (
        "from pyspark import SparkConf, SparkContext",
        "sc = SparkContext(master='local').getOrCreate(conf=SparkConf().setAppName('again'))",
    ),
}
"""Ways a script gets its SparkContext other than ``spark.sparkContext``: its lines."""


@pytest.mark.spark
@pytest.mark.parametrize("how", sorted(CONTEXTS))
def test_a_script_getting_its_context_another_way_is_traced(spark, tmp_path, store, capsys, how):
    """The RDDs of a context got another way are traced as ``spark.sparkContext``'s are."""
    script = _script(
        tmp_path,
        "context.py",
        *CONTEXTS[how],
        "print(sc.parallelize(range(10), 2).map(lambda v: v * v).sum())",
    )
    tracer = trace_script(script, [], spark=spark, store=store)
    assert capsys.readouterr().out == "285\n"
    assert tracer.ctx is not None and tracer.ctx.meta["outputs"]


@pytest.mark.spark
def test_a_script_of_the_pandas_api_on_spark_runs_in_the_traced_session(
    spark, tmp_path, store, capsys
):
    """The pandas API on Spark asks for its default session itself (PySpark's own code): it
    is the traced one. It was a session of its own, and the run ended "created no
    SparkSession or SparkContext" after the script's output (a probe of public programs)."""
    script = _script(
        tmp_path,
        "pandas_on_spark.py",
        "import pyspark.pandas as ps",
        "print(ps.DataFrame({'a': [1, 2, 3]}).a.sum())",
    )
    tracer = trace_script(script, [], spark=spark, store=store)
    assert capsys.readouterr().out == "6\n"
    assert tracer.ctx is not None and tracer.spark is spark


@pytest.mark.spark
@pytest.mark.filterwarnings("ignore::Warning")  # the pandas API on Spark's advice on its use
def test_the_pandas_api_on_sparks_calls_are_named_after_the_scripts_functions(
    spark, tmp_path, store, capsys
):
    """``Series.apply`` and ``groupby().apply`` hand PySpark functions of the pandas API on
    Spark's own around the script's: their calls are timed and named after the script's
    functions, where ``Series.apply`` went untimed and ``groupby().apply``'s calls were
    named ``rename_output`` (a probe of PySpark scripts)."""
    script = _script(
        tmp_path,
        "pandas_on_spark_apply.py",
        "import pandas as pd",
        "import pyspark.pandas as ps",
        "psdf = ps.DataFrame({'k': list(range(1500)), 'g': [i % 3 for i in range(1500)]})",
        "def squared(x) -> int:",
        "    return x * x",
        "psdf['sq'] = psdf['k'].apply(squared)",
        "def summarize(pdf):",
        "    return pd.DataFrame({'gg': [pdf['g'].iloc[0]], 's': [int(pdf['sq'].sum())]})",
        "out = psdf.groupby('g').apply(summarize).to_pandas()",
        "print(out.sort_values('gg').to_string(index=False))",
    )
    # over the 1,000 rows the pandas API on Spark applies with pandas alone on the driver
    plain, tracer = _traced_as_plainly(script, spark, store, capsys)
    assert plain.split() == ["gg", "s", "0", "373875750", "1", "374624750", "2", "375374750"]
    assert set(tracer.udfs.calls()["udf"]) == {"squared", "summarize"}


@pytest.mark.spark
def test_pyspark_functions_taking_an_rdd_take_a_traced_one(spark, tmp_path, store, capsys):
    """``spark.read.json``/``csv`` of an RDD of lines and MLlib's functions (their RDDs go to
    the JVM through ``_py2java``) take a traced dataset as its output values, as plainly: they
    failed on an object that is no RDD (a probe of public programs). Plain PySpark is the
    oracle."""
    script = _script(
        tmp_path,
        "takes_an_rdd.py",
        "from pyspark.sql import SparkSession",
        "from pyspark.mllib.stat import Statistics",
        "spark = SparkSession.builder.getOrCreate()",
        "sc = spark.sparkContext",
        'lines = sc.parallelize([\'{"a": 1, "b": "x"}\', \'{"a": 2, "b": "y"}\'], 2)',
        "print(spark.read.json(lines).orderBy('a').collect())",
        "print(spark.read.csv(path=sc.parallelize(['1,x', '2,y'], 2)).collect())",
        "rows = sc.parallelize([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]], 2)",
        "print(Statistics.colStats(rows).mean())",
    )
    plain, _ = _traced_as_plainly(script, spark, store, capsys)
    assert plain.startswith("[Row(a=1, b='x'), Row(a=2, b='y')]") and plain.count("\n") == 3


@pytest.mark.spark
def test_a_session_made_of_the_context_gives_dataframes_of_lists(spark, tmp_path, store, capsys):
    """``SparkSession(sc)``, as older programs make their session: ``createDataFrame`` of a
    list failed traced ("TracedDataset has no attribute '_to_java_object_rdd'": a probe of
    public programs), the session holding the traced context that PySpark's own code asked
    for a plain RDD. Plain PySpark is the oracle; the RDD of the context stays traced."""
    script = _script(
        tmp_path,
        "session_of_context.py",
        "from pyspark.context import SparkContext",
        "from pyspark.sql.session import SparkSession",
        "sc = SparkContext('local[2]')",
        "spark = SparkSession(sc)",
        "df = spark.createDataFrame([(1.0, 'a'), (0.0, 'b'), (1.0, 'c')], ['label', 'x'])",
        "print(df.orderBy('x').collect())",
        "print(spark.sparkContext.parallelize([3, 1, 2], 2).map(lambda v: v * 2).collect())",
    )
    plain, tracer = _traced_as_plainly(script, spark, store, capsys)
    assert plain.startswith("[Row(label=1.0, x='a')") and plain.endswith("[6, 2, 4]\n")
    assert len(script_result(tracer).outputs) == 3  # the context's RDD was traced


@pytest.mark.spark
def test_a_group_function_that_refuses_a_row_alone_keeps_its_slow_group_whole(
    spark, tmp_path, store, capsys
):
    """A grouped-map function that checks its group (two readings at least) raised on the
    one-row frames perfx times a slow group's rows with, and the traced run, which Spark had
    finished, ended in an internal error (a probe of public PySpark programs). The slow
    group's call stays whole, the costliest; plain PySpark is the oracle for the output."""
    from perfx.isolation.udf import stored_calls

    script = _script(
        tmp_path,
        "checked_groups.py",
        "import time",
        "from pyspark.sql import SparkSession",
        "spark = SparkSession.builder.getOrCreate()",
        "rows = [(s, t, float(t * (s + 1))) for s in range(4) for t in range(30)]",
        "frame = spark.createDataFrame(rows, 'sensor int, t int, v double')",
        "def slope(group):",
        "    if len(group) < 2:",
        "        raise ValueError('a sensor needs at least two readings')",
        "    if group['sensor'].iloc[0] == 3:",
        "        time.sleep(0.3)",
        "    group = group.sort_values('t')",
        "    rise = group['v'].iloc[-1] - group['v'].iloc[0]",
        "    return group.head(1).assign(v=rise / (group['t'].iloc[-1] - group['t'].iloc[0]))",
        "out = frame.groupBy('sensor').applyInPandas(slope, 'sensor int, t int, v double')",
        "print(sorted(out.collect()))",
    )
    plain, tracer = _traced_as_plainly(script, spark, store, capsys)
    assert plain.startswith("[Row(sensor=0, t=0, v=1.0), Row(sensor=1, t=0, v=2.0)")
    calls = stored_calls(tracer.store.local_dir(tracer.run_id))
    costliest = calls.sort_values("ns").iloc[-1]
    assert (costliest["rows"], len(calls)) == (30, 4)
    assert costliest["ns"] >= 300_000_000


@pytest.mark.spark
def test_a_pandas_udf_costing_the_same_per_call_keeps_its_batch_whole(
    spark, tmp_path, store, capsys
):
    """A pandas UDF whose every call costs 20 ms (a model loaded per batch): each of its only
    batch's 2,000 rows costs that alone, and timing them all twice on the driver took 80 s
    after the script, to rank rows that cost the same (a probe of public PySpark programs).
    Foreseen from the first rows, the batch is kept whole."""
    from perfx.isolation.udf import stored_calls

    script = _script(
        tmp_path,
        "fixed_cost.py",
        "import time",
        "import pandas as pd",
        "from pyspark.sql import SparkSession",
        "from pyspark.sql.functions import pandas_udf",
        "spark = SparkSession.builder.getOrCreate()",
        "@pandas_udf('double')",
        "def score(amount: pd.Series) -> pd.Series:",
        "    time.sleep(0.02)",
        "    return amount * 2.0",
        "frame = spark.range(0, 2000, 1, 1)",
        "print(frame.select(score('id').alias('s')).groupBy().sum('s').collect()[0][0])",
    )
    plain, tracer = _traced_as_plainly(script, spark, store, capsys)
    assert plain == "3998000.0\n"
    calls = stored_calls(tracer.store.local_dir(tracer.run_id))
    assert calls["rows"].tolist() == [2000]


@pytest.mark.spark
def test_a_script_restarting_its_session_with_other_settings_is_refused(
    spark, tmp_path, store, capsys
):
    """Plainly, a session started after ``spark.stop()`` is a new SparkContext with the
    settings it asks for; a traced run goes on in its one session, and had run the rest of
    a probe's script with the old settings (2 partitions where it asked for 3), exit 0. A
    restart asking for what the session has goes on, as plainly (under another app name
    too: it names the run); one asking for other settings is refused, naming them."""
    from perfx.isolation.errors import IsolationError

    same = _script(
        tmp_path,
        "restart_same.py",
        "from pyspark.sql import SparkSession",
        "spark = SparkSession.builder.getOrCreate()",
        "print(spark.range(4).count())",
        "spark.stop()",
        "spark = SparkSession.builder.appName('again').getOrCreate()",
        "print(spark.sparkContext.parallelize([1, 2, 3], 2).sum())",
    )
    plain, _ = _traced_as_plainly(same, spark, store, capsys)
    assert plain == "4\n6\n"
    other = _script(
        tmp_path,
        "restart_other.py",
        "from pyspark.sql import SparkSession",
        "with SparkSession.builder.getOrCreate() as spark:",
        "    print(spark.range(4).count())",
        "spark = SparkSession.builder.config('spark.default.parallelism', '3').getOrCreate()",
        "print(spark.sparkContext.parallelize(range(9)).getNumPartitions())",
    )
    with pytest.raises(IsolationError) as refused:
        trace_script(other, [], spark=spark, store=store)
    assert str(refused.value) == (
        "the script stopped its Spark session and started another with other settings "
        "(spark.default.parallelism=3): a traced run keeps one session and cannot apply them; "
        "give them to the script's first session"
    )


@pytest.mark.spark
def test_after_a_traced_script_a_session_is_made_as_plainly(spark, tmp_path, store, capsys):
    """A traced script's run patches ``SparkSession.__new__``; undone by deleting it, the
    process's next ``SparkSession(sc, options=...)`` (PySpark's own getOrCreate, in a
    notebook or the next test file's session) failed with "object.__new__() takes exactly one
    argument"."""
    from pyspark.sql import SparkSession

    script = _script(
        tmp_path,
        "count.py",
        "from pyspark.sql import SparkSession",
        "spark = SparkSession.builder.getOrCreate()",
        "print(spark.sparkContext.parallelize([1, 2]).count())",
    )
    _traced_as_plainly(script, spark, store, capsys)
    assert SparkSession(spark.sparkContext, options={}).range(3).count() == 3


@pytest.mark.spark
def test_settings_given_after_a_session_started_for_a_udf_are_refused(spark, store):
    """A UDF made before the script's session that cannot wait for it (an Arrow-optimised
    ``@udf`` of a module) starts perfx's session then; the script's own builder comes later. Its settings that session cannot
    take are refused, naming them (a probe's script ran on ``local[2]`` with 2 partitions,
    exit 0, where it asked for ``local[1]`` and 3); a master that runs as many threads, and
    the app's name, go on."""
    from perfx.isolation.errors import IsolationError
    from perfx.isolation.script import ScriptTracer

    tracer = ScriptTracer(Path("early.py"), [], store, "early", None, spark=spark, created=True)
    tracer.check_started_early({"spark.master": "local[2,4]", "spark.app.name": "mine"})
    with pytest.raises(IsolationError) as refused:
        tracer.check_started_early(
            {"spark.master": "local[1]", "spark.app.name": "mine", "spark.default.parallelism": "3"}
        )
    assert str(refused.value) == (
        "the script made a UDF before its Spark session, which perfx started then without the "
        "settings the script gives it later (spark.master=local[1], spark.default.parallelism=3): "
        "make the session before the UDF, or give perfx the master (--master)"
    )


@pytest.mark.spark
def test_udfs_made_before_the_session_leave_it_the_scripts_settings(tmp_path):
    """A module's ``@udf`` and ``@pandas_udf`` functions, made before the session ``main()``
    makes with a partition count: perfx makes their timers once the session is the
    script's, and the script runs plainly and traced in a process of its own alike. perfx
    started a session for the first UDF, without the script's settings, and refused the run
    (a probe of PySpark scripts)."""
    script = SCRIPTS / "udfs_before_session.py"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    runs = [
        [sys.executable, str(script)],
        [sys.executable, "-m", "perfx.cli", "isolate", str(script), "--store", str(tmp_path)]
        + ["--out", str(tmp_path / "answer.txt")],
    ]
    plain, traced = (
        subprocess.run(run, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
        for run in runs
    )
    assert plain.returncode == 0 and plain.stdout.startswith("3 [('ab', 'AB', 2)"), plain.stderr
    assert (traced.returncode, traced.stdout) == (0, plain.stdout), traced.stderr[-2000:]
    assert "shouted" in (tmp_path / "answer.txt").read_text()


@pytest.mark.spark
def test_why_gives_the_rows_when_the_slow_task_ran_alone_in_its_stage(spark, tmp_path, store):
    """One small input file is one task: no peer to explain it against. perfx why says so
    and gives the run's costliest rows, as perfx isolate does (it ended in an error, exit 1,
    naming the stored run)."""
    from perfx.isolation.runner import IsolationResult

    folder = tmp_path / "one-file"
    write_lines(folder, files=1, lines=500, slow={0: (7,)})
    result = why_script(str(SCRIPTS / "regex_udf.py"), [str(folder)], spark=spark, store=store)
    assert isinstance(result, IsolationResult)
    assert re.fullmatch(
        r"task \S+ ran alone in its Spark stage \d+: no other task to compare it with, so no "
        r"task-level cause; the run's costliest rows follow",
        result.note or "",
    )
    assert result.udf_culprits is not None and int(result.udf_culprits["line"].iloc[0]) == 7


@pytest.mark.spark
def test_why_gives_the_records_of_a_program_too_small_to_compare_tasks(spark, tmp_path, store):
    """A small program's stages run two tasks each: no task is explained against its stage,
    and perfx why gives the run's costliest records instead, exit 0 (it ended in an error on
    14 of 27 small public programs)."""
    from click.testing import CliRunner

    from perfx.cli import cli

    script = _script(
        tmp_path,
        "small.py",
        "from pyspark.sql import SparkSession",
        "sc = SparkSession.builder.getOrCreate().sparkContext",
        "print(sc.parallelize(['a', 'bb' * 3000, 'c'], 2).map(lambda s: s.upper()).count())",
    )
    args = ["why", str(script), "--store", store, "--format", "json"]
    done = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert done.exit_code == 0, done.output
    printed, answer = done.output.split("\n", 1)
    assert printed == "3"  # the script's own line, then perfx's answer
    said = json.loads(answer)
    assert said["note"] == (
        "no stage of the traced run has three tasks to compare, so no task is explained "
        "against its stage (more input partitions would give it some); the run's costliest "
        "records follow"
    )
    assert {c["location"] for c in said["culprits"]} <= {
        "parallelize[0]",
        "parallelize[1]",
        "parallelize[2]",
    }
    assert said["culprits"]


@pytest.mark.spark
def test_why_on_a_small_sql_script_says_there_is_neither_answer(spark, tmp_path, store):
    """No stage to compare a task in and no record traced: one line says both."""
    from perfx.isolation.errors import IsolationError

    script = _script(
        tmp_path,
        "small_sql.py",
        "from pyspark.sql import SparkSession",
        "print(SparkSession.builder.getOrCreate().range(3, numPartitions=1).count())",
    )
    with pytest.raises(IsolationError) as said:
        why_script(str(script), [], spark=spark, store=store)
    assert str(said.value) == (
        "no stage of the traced run has three tasks to compare, so no task is explained "
        "against its stage (more input partitions would give it some); the script ran no "
        "traced RDD action and no Python UDF: no record-level answer applies"
    )


@pytest.mark.spark
def test_a_script_whose_python_perfx_does_not_time_is_told_so(spark, tmp_path, store, capsys):
    """A Python UDTF and a mapInArrow function run Python on the workers that perfx does not
    time: the answer names them, where it said the script ran "no Python UDF" (Spark's own
    UDTF example, in a probe of public PySpark programs)."""
    script = _script(
        tmp_path,
        "untimed.py",
        "from pyspark.sql import SparkSession",
        "from pyspark.sql.functions import udtf",
        "spark = SparkSession.builder.getOrCreate()",
        "@udtf(returnType='word: string, n: int')",
        "class Split:",
        "    def eval(self, text: str):",
        "        for w in text.split():",
        "            yield w, len(w)",
        "spark.udtf.register('split_words', Split)",
        "spark.createDataFrame([('a bb ccc',), ('dddd e',)], 'text string')"
        ".createOrReplaceTempView('t')",
        "print(spark.sql('SELECT count(*), sum(n) FROM t, LATERAL split_words(text)').collect())",
        "def doubled(batches):",
        "    for batch in batches:",
        "        yield batch",
        "print(spark.range(4).mapInArrow(doubled, 'id long').count())",
    )
    plain, tracer = _traced_as_plainly(script, spark, store, capsys)
    assert plain == "[Row(count(1)=5, sum(n)=11)]\n4\n"
    assert script_result(tracer).note.startswith(
        "the script ran no traced RDD action and no Python UDF that perfx times (its Python "
        "ran in Python UDTFs: Split; mapInArrow functions: doubled, which perfx does not "
        "time): no record-level answer applies"
    )
