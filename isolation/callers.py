"""Who called: PySpark's own code, or the program perfx traces.

perfx replaces PySpark's session builder, ``SparkContext`` and UDF factories while a script
runs; PySpark's own modules call some of them too (``rdd.toDF()`` asks for the active
session, ``mapInPandas`` makes its UDF with ``pandas_udf``), and must get what they would
plainly."""

from __future__ import annotations

import sys


def from_pyspark(depth: int = 2) -> bool:
    """Whether the caller ``depth`` frames up (2: the caller of the function asking) is
    PySpark's own code."""
    name = sys._getframe(depth).f_globals.get("__name__", "")
    return name == "pyspark" or name.startswith("pyspark.")
