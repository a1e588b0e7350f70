"""The row-UDF timer without Spark (``udf.timed_row``): a task's first calls recorded with
their rows, the rest counted in the task's entry of an accumulator (``TaskTallies``), and a
copy shipped to a worker starting afresh."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from pyspark.accumulators import Accumulator, _accumulatorRegistry

from perfx.isolation import udf
from perfx.isolation.udf import TaskTallies


def test_tallies_add_up_per_task():
    tallies = TaskTallies()
    total = tallies.zero({(9, 9, 9): [1, 1]})
    assert total == {}
    tallies.addInPlace(total, {(3, 0, 0): [2, 3.5e-6]})
    tallies.addInPlace(total, {(3, 0, 0): [1, 0.5e-6], (3, 1, 1): [1, 0.7e-6]})
    assert total == {(3, 0, 0): [3, 3.5e-6 + 0.5e-6], (3, 1, 1): [1, 0.7e-6]}


def test_the_timer_records_its_witnesses_then_tallies_and_ships_without_its_counts(
    tmp_path: Path, monkeypatch
):
    """A task's first ``WITNESSES`` calls are recorded with their rows, the rest tallied. A
    copy unpickled as PySpark's worker unpickles it for each task starts afresh, whatever
    the original had counted: it records its own witnesses, and its tally adds to the
    task's (in one process, the copy's accumulator is the original's, as a worker's two
    uses of one UDF in a task share theirs)."""
    from pyspark import cloudpickle

    monkeypatch.setattr(udf, "_task", lambda: (4, 2, 0))
    recorder = udf.UdfRecorder(tmp_path, context=None)
    recorder.tallies["upper"] = tally = Accumulator(10_001, {}, TaskTallies())
    monkeypatch.setitem(_accumulatorRegistry, 10_001, tally)  # out of the registry after
    timed = udf.timed_row(str.upper, "upper", str(recorder.folder), tally)
    for _ in range(udf.WITNESSES + 7):
        assert timed("w") == "W"
    shipped = cloudpickle.loads(cloudpickle.dumps(timed))
    for _ in range(udf.WITNESSES + 3):
        assert shipped("w") == "W"
    calls = recorder.calls()
    noted, tallied = calls[calls["excerpt"].notna()], calls[calls["excerpt"].isna()]
    assert len(noted) == 2 * udf.WITNESSES and set(noted["excerpt"]) == {"'w'"}
    assert tallied[["spark_stage", "partition", "attempt", "rows"]].values.tolist() == [
        [4, 2, 0, 10]
    ]
    assert int(tallied["ns"].iloc[0]) > 0


def _width(s):
    return len(s)


def _padded(s, fill="."):
    return s.rjust(6, fill)


def _count(result):  # a parameter named as a local of the timer it would be written into
    return len(result)


def test_the_timer_takes_arguments_by_position_and_by_name_as_its_function_does(
    tmp_path: Path, monkeypatch
):
    """Spark passes a UDF's columns by position, or by name (``f(s=col)``). A function of
    plain parameters gets a timer written with them; any other (a default, a builtin, a
    parameter named as the timer's own locals) one of ``*args, **kwargs``. Each answers and
    fails as its function does, shipped or not, and records its named arguments' row."""
    from pyspark import cloudpickle

    monkeypatch.setattr(udf, "_task", lambda: (1, 0, 0))
    recorder = udf.UdfRecorder(tmp_path, context=None)
    tally = Accumulator(10_002, {}, TaskTallies())
    monkeypatch.setitem(_accumulatorRegistry, 10_002, tally)

    def timed(function):
        return udf.timed_row(function, function.__name__, str(recorder.folder), tally)

    assert udf._plain_parameters(_width) == ["s"]
    assert udf._plain_parameters(_padded) is None
    assert udf._plain_parameters(_count) is None
    assert udf._plain_parameters(str.upper) is None
    for function in (_width, _padded, _count):
        shipped = cloudpickle.loads(cloudpickle.dumps(timed(function)))
        for copy in (timed(function), shipped):
            assert copy.__wrapped__ is function and copy.__name__ == function.__name__
            assert copy("abc") == function("abc")
            named = {"result": "de"} if function is _count else {"s": "de"}
            assert copy(**named) == function(**named)
            with pytest.raises(TypeError) as plain:
                function("a", "b", "c")
            with pytest.raises(TypeError) as traced:
                copy("a", "b", "c")
            assert str(traced.value) == str(plain.value)
    assert timed(_padded)(s="de", fill="-") == "----de"
    calls = recorder.calls()
    assert "'de', '-'" in set(calls["excerpt"])
    assert udf.digest("de") in set(calls["digest"])


def test_a_kept_batch_of_an_iterator_udf_is_split_into_its_rows(tmp_path: Path):
    """An iterator pandas UDF's batch of two columns is a tuple of Series: its rows are
    timed one by one through the function (an iterator of one row in, its results out) and
    each gets its text's digest and its arguments' excerpt."""
    import pandas as pd

    def shifted(batches):
        for texts, shifts in batches:
            yield texts.str.len() + shifts

    recorder = udf.UdfRecorder(tmp_path, context=None, split_batches=True)
    recorder.functions["shifted"] = ("iter", shifted)
    batch = (pd.Series(["a", "bb", "ccc"]), pd.Series([0, 1, 2]))
    (recorder.folder / "batch-k.pkl").write_bytes(pickle.dumps(batch))
    row = ["shifted", 2, 0, 0, 9_000_000, 3, "k", None, "(3 rows)"]
    calls = recorder._rows_of_outliers(pd.DataFrame([row], columns=udf.COLUMNS))
    assert calls["rows"].tolist() == [1, 1, 1]
    assert calls["digest"].tolist() == [udf.digest(t) for t in ("a", "bb", "ccc")]
    assert calls["excerpt"].tolist() == ["'a', 0", "'bb', 1", "'ccc', 2"]
    assert 0 < calls["ns"].sum() <= 9_000_000


def test_a_batch_is_split_only_when_asked_for_and_its_function_is_not_called_again(
    tmp_path: Path,
):
    """Splitting a batch calls the script's function again on each row: unasked, the batch
    stays whole, its function is not called (a side output is not written again: a probe's
    script's audit file got 1,133 lines more), and its UDF is noted for the answer to say
    how to split it, and at what price."""
    import pandas as pd

    written: list[int] = []

    def audited(batches):
        for frame in batches:
            written.append(len(frame))  # a side output: a file, a table
            yield frame

    batch = pd.DataFrame({"id": [1, 2, 3]})
    (tmp_path / "udf").mkdir()
    (tmp_path / "udf" / "batch-k.pkl").write_bytes(pickle.dumps(batch))
    row = ["audited", 2, 0, 0, 9_000_000, 3, "k", None, "(3 rows)"]
    for asked in (False, True):
        recorder = udf.UdfRecorder(tmp_path, context=None, split_batches=asked)
        recorder.functions["audited"] = ("map", audited)
        calls = recorder._rows_of_outliers(pd.DataFrame([row], columns=udf.COLUMNS))
        assert calls["rows"].tolist() == ([1, 1, 1] if asked else [3])
        assert recorder.unsplit == ([] if asked else ["audited"])
        assert bool(written) == asked
    assert udf.calls_notes({"unsplit": ["audited"]}) == [
        "the costliest calls of audited are whole batches of rows; --split-batches tells their "
        "rows apart by calling the function again on each row alone after the script, which "
        "repeats whatever else it does (a file or table it writes)"
    ]
    assert udf.calls_notes({}) == []
