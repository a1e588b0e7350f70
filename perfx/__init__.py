"""perfx explains the performance of Spark and MapReduce jobs.

The public API is loaded lazily so that ``import perfx.grammar`` (or ``perfx --help``) does
not pull in pandas or pyspark:

    log = perfx.load_log(["/tmp/spark-events"])
    answer = perfx.explain(log, "WHY TASK 33 SLOWER")
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# public name -> "module:attribute"; each later layer adds its entry point here.
_API = {
    "parse": "perfx.grammar.parser:parse",
    "PxqlError": "perfx.grammar.errors:PxqlError",
    "load_log": "perfx.logs.loader:load_log",
    "Log": "perfx.logs.model:Log",
    "explain": "perfx.explain.engine:explain",
    "Explanation": "perfx.explain.explanation:Explanation",
    "ExplainError": "perfx.explain.errors:ExplainError",
    "find_stragglers": "perfx.explain.blocked.stragglers:find_stragglers",
    "whatif": "perfx.explain.blocked.whatif:whatif",
    "add_straggler_features": "perfx.explain.blocked.features:add_straggler_features",
    "isolate": "perfx.isolation.runner:run_traced",
    "TracedContext": "perfx.isolation.context:TracedContext",
    "IsolationError": "perfx.isolation.errors:IsolationError",
}


def __getattr__(name: str):
    target = _API.get(name)
    if target is None:
        raise AttributeError(f"module 'perfx' has no attribute {name!r}")
    module, attr = target.split(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_API))


__all__ = sorted(_API)
