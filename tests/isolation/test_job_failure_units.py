"""The one line a failed traced job ends with, where perfx does not know the failure
(isolation.context): a Python worker's error says what was raised, not only that something
was, and a worker without perfx says what to do."""

from __future__ import annotations

from perfx.isolation.context import _first_line

WORKER_WITHOUT_PERFX = """org.apache.spark.api.python.PythonException: [PYTHON_EXCEPTION] \
An exception was thrown from the Python worker: Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/pyspark/python/lib/pyspark.zip/pyspark/worker.py", \
line 4197, in invoke_udf
    func, profiler, deserializer, serializer = read_command(pickleSer, init_info.udf_info)
                                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/venv/lib/python3.11/site-packages/pyspark/python/lib/pyspark.zip/pyspark/serializers.py", \
line 483, in loads
    return cloudpickle.loads(obj, encoding=encoding)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
ModuleNotFoundError: No module named 'perfx'
 SQLSTATE: 38000
\tat org.apache.spark.api.python.BasePythonRunner$ReaderIterator.handlePythonException(PythonRunner.scala:1097)
"""
"""A Spark 4 executor's error for a worker whose Python cannot import perfx (a script set
PYSPARK_PYTHON to another interpreter), as its spark.log held it."""


def test_a_python_workers_error_is_the_exception_it_raised(monkeypatch):
    monkeypatch.setenv("PYSPARK_PYTHON", "/usr/bin/python3")
    line = _first_line(RuntimeError(WORKER_WITHOUT_PERFX))
    assert line.startswith(
        "ModuleNotFoundError: No module named 'perfx': the workers ran /usr/bin/python3, which "
        "cannot import perfx"
    )
    assert "by not setting PYSPARK_PYTHON in the script" in line


def test_another_workers_error_is_its_exception_alone():
    text = WORKER_WITHOUT_PERFX.replace(
        "ModuleNotFoundError: No module named 'perfx'", "ValueError: bad record"
    )
    assert _first_line(RuntimeError(text)) == "ValueError: bad record"


def test_a_jvm_error_is_its_first_line():
    assert _first_line(RuntimeError("\njava.io.IOException: disk full\n\tat x.y")) == (
        "java.io.IOException: disk full"
    )
