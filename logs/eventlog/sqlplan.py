"""What a SQL execution's physical plan says about how its jobs ran, in two words: the engine
that ran its records and the input it scanned first.

Spark logs each DataFrame/SQL query as a ``SparkListenerSQLExecutionStart`` with its physical
plan as text, and each job of it carries the execution's id in its properties. The next step
of a diagnosis depends on the plan: a traced re-run (perfx isolate) can only find the records
that cost the time where Python code handled them (an RDD program, or a plan with a Python
UDF or UDTF: ``BatchEvalPython``, ``ArrowEvalPython``, a pandas map or group), not in a plan
of JVM operators alone, nor on a GPU (RAPIDS ``Gpu*`` operators) whose costs a CPU re-run
does not have; and it reads its input on this machine, which a plan reading ``gs://`` or
``s3://`` does not have.
"""

from __future__ import annotations

import re

PYTHON = "python"
GPU = "gpu"
JVM = "jvm"
"""The engines a plan's records ran on (``plan_engine`` of a job)."""

_PYTHON_OPERATORS = re.compile(
    r"\b(?:(?:BatchEvalPython|ArrowEvalPython)(?:UDTF)?|FlatMapGroupsInPandas"
    r"|FlatMapCoGroupsInPandas|FlatMapGroupsInArrow|FlatMapCoGroupsInArrow|MapInPandas"
    r"|MapInArrow|PythonMapInArrow|AggregateInPandas|WindowInPandas|ArrowWindowPython"
    r"|FlatMapGroupsInPandasWithState)\b"
)
"""Spark's physical operators that run Python code on the workers. A Python UDTF's are
``BatchEvalPythonUDTF`` (Spark 3.5) and ``ArrowEvalPythonUDTF`` (Spark 4's default): a
UDTF's stage was said to run no Python (Spark's own UDTF example)."""
_GPU_OPERATORS = re.compile(r"\bGpu[A-Z]\w*|com\.nvidia\.spark\.rapids")
_LOCATION = re.compile(r"Location: \w+(?:\(\d+ paths?\))?\s*\[([^\],\s]+)")


def engine(plan: str) -> str:
    """``gpu`` where RAPIDS operators ran it, else ``python`` where a Python UDF or pandas
    function is in it, else ``jvm``."""
    if _GPU_OPERATORS.search(plan):
        return GPU
    if _PYTHON_OPERATORS.search(plan):
        return PYTHON
    return JVM


def first_input(plan: str) -> str:
    """The first location the plan scans (a file index's first path), or ""."""
    found = _LOCATION.search(plan)
    return found.group(1) if found else ""


REMOTE = re.compile(r"^(?:gs|s3[an]?|abfss?|wasbs?|hdfs|dbfs|oss|cos)://", re.IGNORECASE)
"""Schemes of inputs a local traced re-run cannot read as they are."""
