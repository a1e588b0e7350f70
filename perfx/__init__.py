"""perfx explains the performance of Spark and MapReduce jobs.

The front door is :func:`perfx.open`, which loads logs into a :class:`~perfx.session.Session`
that answers every question the CLI answers, with the same features and options::

    import perfx

    session = perfx.open(["/tmp/spark-events"])
    answer = session.explain("WHY TASK 33 SLOWER")

The public API is loaded lazily so that ``import perfx.grammar`` (or ``perfx --help``) does
not pull in pandas or pyspark. No public name is spelled like a subpackage (``perfx.explain``
is the package of the explanation engine, never a function).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # what editors and type checkers see; at run time __getattr__ loads them
    from perfx.explain.errors import ExplainError
    from perfx.explain.explanation import Explanation
    from perfx.grammar.errors import PxqlError
    from perfx.grammar.parser import parse
    from perfx.isolation.context import TracedContext
    from perfx.isolation.errors import IsolationError
    from perfx.isolation.runner import run_traced as isolate
    from perfx.logs.errors import LogError
    from perfx.logs.loader import load_log
    from perfx.logs.model import Log
    from perfx.session import Session, open

_API = {
    "open": "perfx.session:open",
    "Session": "perfx.session:Session",
    "parse": "perfx.grammar.parser:parse",
    "PxqlError": "perfx.grammar.errors:PxqlError",
    "load_log": "perfx.logs.loader:load_log",
    "Log": "perfx.logs.model:Log",
    "LogError": "perfx.logs.errors:LogError",
    "Explanation": "perfx.explain.explanation:Explanation",
    "ExplainError": "perfx.explain.errors:ExplainError",
    "isolate": "perfx.isolation.runner:run_traced",
    "TracedContext": "perfx.isolation.context:TracedContext",
    "IsolationError": "perfx.isolation.errors:IsolationError",
}
"""Public name -> ``module:attribute``, imported on first use."""


def __getattr__(name: str) -> Any:
    target = _API.get(name)
    if target is None:
        raise AttributeError(f"module 'perfx' has no attribute {name!r}")
    module, attr = target.split(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_API))


__all__ = [
    "ExplainError",
    "Explanation",
    "IsolationError",
    "Log",
    "LogError",
    "PxqlError",
    "Session",
    "TracedContext",
    "isolate",
    "load_log",
    "open",
    "parse",
]
"""The names of ``_API``, spelled out for linters and ``from perfx import *``."""
