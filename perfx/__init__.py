"""perfx explains the performance of Spark and MapReduce jobs.

The public API is loaded lazily so that ``import perfx.grammar`` (or ``perfx --help``) does
not pull in pandas or pyspark:

    log = perfx.load_log(["/tmp/spark-events"])
    answer = perfx.explain(log, "WHY TASK 33 SLOWER")
"""

from __future__ import annotations

import importlib
import sys
import types

__version__ = "0.1.0"

# public name -> "module:attribute"; each later layer adds its entry point here.
_API = {
    "parse": "perfx.grammar.parser:parse",
    "PxqlError": "perfx.grammar.errors:PxqlError",
    "load_log": "perfx.logs.loader:load_log",
    "Log": "perfx.logs.model:Log",
    "explain": "perfx.chain:explain",
    "Explanation": "perfx.explain.explanation:Explanation",
    "ExplainError": "perfx.explain.errors:ExplainError",
    "find_stragglers": "perfx.explain.blocked.stragglers:find_stragglers",
    "whatif": "perfx.explain.blocked.whatif:whatif",
    "add_straggler_features": "perfx.explain.blocked.features:add_straggler_features",
    "isolate": "perfx.isolation.runner:run_traced",
    "TracedContext": "perfx.isolation.context:TracedContext",
    "IsolationError": "perfx.isolation.errors:IsolationError",
}


class _Api(types.ModuleType):
    """Keeps an API name callable when a subpackage of the same name is imported: importing
    ``perfx.explain.engine`` makes the import system set ``perfx.explain`` to the subpackage,
    which would shadow the API function ``perfx.explain`` depending on import order. The
    subpackage then answers calls as the API function does, with its signature, and stays an
    ordinary package for ``import perfx.explain.engine as engine``."""

    def __setattr__(self, name: str, value) -> None:
        if (
            name in _API
            and isinstance(value, types.ModuleType)
            and not isinstance(value, _CallablePackage)
        ):
            value.__class__ = _CallablePackage
        super().__setattr__(name, value)


class _CallablePackage(types.ModuleType):
    """A subpackage named like an API function, callable as that function."""

    @property
    def _api(self):
        module, attr = _API[self.__name__.rpartition(".")[2]].split(":")
        return getattr(importlib.import_module(module), attr)

    @property
    def __signature__(self):
        import inspect

        return inspect.signature(self._api)

    def __call__(self, *args, **kwargs):
        return self._api(*args, **kwargs)


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

sys.modules[__name__].__class__ = _Api
