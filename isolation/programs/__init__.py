"""The benchmark programs of PerfDebug's section 5, each a module with

* ``pipeline(ctx, input_path, delay=None)``: the program, written against the RDD API, so it
  runs traced (``ctx`` a TracedContext) or plain (``ctx`` a SparkContext) unchanged;
* ``generate(path, records, seed)``: a seeded data set in the paper's record format.

``delay = (line, seconds)`` makes the program's first UDF sleep on that one input line: the
fault injection of the paper's accuracy experiment (section 5.5).
"""

from __future__ import annotations

import time

PROGRAMS = ("movie_ratings", "college_student", "weather", "taxi")


def with_delay(function, delay: tuple[str, float] | None):
    """``function``, or a version of it that first sleeps on one input line."""
    if delay is None:
        return function
    line, seconds = delay

    def delayed(value):
        if value == line:
            time.sleep(seconds)
        return function(value)

    delayed.__qualname__ = function.__qualname__
    return delayed
