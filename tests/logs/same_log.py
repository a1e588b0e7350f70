"""One check that two Logs are the same: what a reader built another way (on two cores, read
on from a kept state, from the cache) must equal what one whole read builds."""

from __future__ import annotations

import pandas as pd

from perfx.logs.model import Log
from perfx.logs.registry import ENTITIES


def assert_same_log(other: Log, whole: Log) -> None:
    """Every table (bit for bit), the skipped lines in their order, the ends of logs and the
    sources."""
    for entity in ENTITIES:
        pd.testing.assert_frame_equal(other.table(entity), whole.table(entity), check_exact=True)
    pd.testing.assert_frame_equal(other.executors, whole.executors, check_exact=True)
    assert other.skipped == whole.skipped
    assert other.cut_off == whole.cut_off
    assert other.sources == whole.sources
