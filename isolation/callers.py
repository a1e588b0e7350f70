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
