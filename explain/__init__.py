"""Explanations: pair features, training-pair sampling, the DESPITE/BECAUSE search, metrics,
baselines, the evaluation harness, and blocked-time / straggler analysis."""

import sys as _sys
import types as _types


class _CallableModule(_types.ModuleType):
    """``perfx.explain`` is both this package and the API function ``perfx.explain(log,
    query, **options)``: once the package is imported it shadows the lazy attribute of
    ``perfx``, so the package itself answers calls (importing the engine only then)."""

    def __call__(self, *args, **kwargs):
        from .engine import explain

        return explain(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallableModule
