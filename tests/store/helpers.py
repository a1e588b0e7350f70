"""What the store tests compare: a store's Log against the in-memory reader's on the same logs."""

from __future__ import annotations

import pandas as pd

from perfx.logs.model import Log
from perfx.logs.registry import ENTITIES


def assert_same_log(expected: Log, actual: Log, *, column_order: bool = True) -> None:
    """Same tables (a store names each log by its absolute path or URI in ``source``, so that
    column is left out), same registry."""
    for entity in ENTITIES:
        want = expected.table(entity).drop(columns=["source"], errors="ignore")
        got = actual.table(entity).drop(columns=["source"], errors="ignore")
        if not column_order:
            want, got = want.sort_index(axis=1), got.sort_index(axis=1)
        pd.testing.assert_frame_equal(want, got)
        specs = sorted if not column_order else list
        assert specs(expected.registry.names(entity)) == specs(actual.registry.names(entity))
