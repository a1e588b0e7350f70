"""Record-level isolation (PerfDebug) on stock PySpark: traced execution, lineage stores,
latency propagation and culprit queries.

The post-mortem half (``propagate``, ``rank_culprits``, stores, queries) needs no Spark;
``TracedContext`` and ``run_traced`` import pyspark, so they load on first use."""

from __future__ import annotations

import importlib

_LAZY = {
    "TracedContext": "perfx.isolation.context:TracedContext",
    "TracedDataset": "perfx.isolation.dataset:TracedDataset",
    "run_traced": "perfx.isolation.runner:run_traced",
    "propagate": "perfx.isolation.propagation:propagate",
    "rank_culprits": "perfx.isolation.propagation:rank_culprits",
    "open_store": "perfx.isolation.stores:open_store",
    "IsolationError": "perfx.isolation.errors:IsolationError",
}


def __getattr__(name: str):
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'perfx.isolation' has no attribute {name!r}")
    module, attr = target.split(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_LAZY))


__all__ = sorted(_LAZY)
