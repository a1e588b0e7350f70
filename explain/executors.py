"""The rows of a task's executor: the tasks that shared its JVM, its slots and its Python
workers. A cold start (``explain.starts``) and garbage another task made (``explain.gc``)
are both read from them."""

from __future__ import annotations

import numpy as np

from .columns import Columns


def on_executor(cols: Columns, rows: np.ndarray, row: int) -> np.ndarray:
    """Those of ``rows`` that ran on ``row``'s executor (of its application)."""
    app, executor = cols.key("app_key"), cols.key("executor_id")
    return rows[(app[rows] == app[row]) & (executor[rows] == executor[row])]


def executor_rows(cols: Columns, row: int) -> np.ndarray:
    """Every row of ``row``'s executor (of its application), from rows grouped by executor
    once per table: every straggler of a report may ask, and a pass over the whole table
    each time cost a large log's report one per straggler."""
    grouped = cols.derived.get("rows by executor")
    if grouped is None:
        app, executor = cols.key("app_key"), cols.key("executor_id")
        key = app.astype(np.int64) * (int(executor.max(initial=0)) + 2) + executor
        order = np.argsort(key, kind="stable")
        grouped = cols.derived["rows by executor"] = (key, order, key[order])
    key, order, sorted_keys = grouped
    return order[
        np.searchsorted(sorted_keys, key[row], "left") : np.searchsorted(
            sorted_keys, key[row], "right"
        )
    ]
