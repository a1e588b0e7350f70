"""Who called: PySpark's own code, or the program perfx traces.

perfx replaces PySpark's session builder, ``SparkContext`` and UDF factories while a script
runs; PySpark's own modules call some of them too (``rdd.toDF()`` asks for the active
session, ``mapInPandas`` makes its UDF with ``pandas_udf``), and must get what they would
plainly."""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
"""perfx's isolation package: frames of its own code are not the program's."""


def from_pyspark(depth: int = 2) -> bool:
    """Whether the caller ``depth`` frames up (2: the caller of the function asking) is
    PySpark's own code."""
    return in_pyspark(sys._getframe(depth))


def pyspark_call() -> tuple[str, str]:
    """(the PySpark function the program called, ``file:line`` of that call) for code
    running inside PySpark's own functions: the outermost frame of PySpark's, and the frame
    that called it."""
    frame = sys._getframe(1)
    while frame.f_back is not None and not in_pyspark(frame):
        frame = frame.f_back
    while frame.f_back is not None and in_pyspark(frame.f_back):
        frame = frame.f_back
    caller = frame.f_back or frame
    return frame.f_code.co_name, f"{caller.f_code.co_filename}:{caller.f_lineno}"


def program_line() -> str:
    """``file:line`` of the innermost caller outside perfx's isolation package and PySpark
    (PySpark's ``first`` calls the dataset's ``take``)."""
    frame = sys._getframe(1)
    while frame.f_back is not None and (
        os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == HERE or in_pyspark(frame)
    ):
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def in_pyspark(frame) -> bool:
    """Is ``frame`` running PySpark's own code?"""
    name = frame.f_globals.get("__name__", "")
    return name == "pyspark" or name.startswith("pyspark.")


def from_pandas_on_spark(depth: int = 2) -> bool:
    """Whether the caller ``depth`` frames up is the pandas API on Spark (``pyspark.pandas``),
    which hands PySpark functions of its own around the script's (``Series.apply``'s)."""
    name = sys._getframe(depth).f_globals.get("__name__", "")
    return name == "pyspark.pandas" or name.startswith("pyspark.pandas.")


LIBRARIES = ("pyspark", "pandas", "numpy", "pyarrow", "py4j", "perfx", "builtins", "functools")
"""Packages whose functions are not the script's, however deep a closure holds them."""
CLOSURE_DEPTH = 4
"""How many functions deep ``script_function_within`` looks: the pandas API on Spark's
``groupby().apply`` holds the script's function three deep."""


def script_function_within(function) -> object | None:
    """The script's function that a library's ``function`` calls, found in the closures of
    the library's functions around it (nearest first), or None where it holds none: the
    pandas API on Spark hands ``mapInPandas`` and ``pandas_udf`` functions of its own
    (``rename_output``, ``udf``), and its ``Series.apply`` was credited to those."""
    seen: set[int] = set()
    level = [function]
    for _ in range(CLOSURE_DEPTH):
        deeper = []
        for held in level:
            for cell in getattr(held, "__closure__", None) or ():
                try:
                    value = cell.cell_contents
                except ValueError:  # a cell not yet filled
                    continue
                if not callable(value) or isinstance(value, type) or id(value) in seen:
                    continue
                seen.add(id(value))
                if not _of_a_library(value):
                    return value
                deeper.append(value)
        level = deeper
    return None


def _of_a_library(function) -> bool:
    module = getattr(function, "__module__", None) or type(function).__module__ or ""
    return any(module == root or module.startswith(root + ".") for root in LIBRARIES)
