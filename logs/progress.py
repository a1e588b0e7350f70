"""Inverse progress rates: time per unit of work, the yardstick for stragglers and skew.

The one definition perfx uses (the straggler analysis of explain/blocked, the what-if replay
and the computation-skew detection of isolation/detect). The blocked-time paper (after Dolly
and Mantri) divides a task's time by the data it read, so a task that is slow only because it
had more to do is not a straggler. Rates are compared within a stage, so one stage must use
one basis for all its tasks: bytes read (input + shuffle read; a MapReduce task's input size)
when every task read some, else records read when every task read some, else the duration
itself (stages that read nothing, such as ``parallelize``, have nothing better to divide by).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

THRESHOLD = 1.5
"""A task straggles when its inverse progress rate exceeds this multiple of its stage's median."""


def numeric_column(tasks: pd.DataFrame, name: str) -> pd.Series:
    """``tasks[name]`` as numbers, or all NaN when the log lacks that column."""
    if name not in tasks.columns:
        return pd.Series(np.nan, index=tasks.index)
    return pd.to_numeric(tasks[name], errors="coerce")


WORK_COLUMNS = (
    "bytes_in",
    "input_bytes",
    "shuffle_read_bytes",
    "input_size",
    "records_in",
    "input_records",
    "shuffle_read_records",
)
"""The task columns ``work`` reads (``bytes_read``, ``records_read``): a caller that judges a
subset of a wide task table takes these along, and no others."""


def bytes_read(tasks: pd.DataFrame) -> pd.Series:
    """Bytes each task consumed: ``bytes_in`` when the reader derived it, else input + shuffle
    read; MapReduce tasks (no Spark byte counts) have ``input_size``: a map's split, a reduce's
    shuffled bytes."""
    if "bytes_in" in tasks.columns:
        spark = numeric_column(tasks, "bytes_in")
    else:
        counts = tasks.reindex(columns=["input_bytes", "shuffle_read_bytes"]).apply(
            pd.to_numeric, errors="coerce"
        )
        spark = counts.sum(axis=1, min_count=1)
    return spark.fillna(numeric_column(tasks, "input_size"))


def records_read(tasks: pd.DataFrame) -> pd.Series:
    """Records each task consumed: ``records_in``, else input + shuffle read records."""
    if "records_in" in tasks.columns:
        return numeric_column(tasks, "records_in")
    return numeric_column(tasks, "input_records").fillna(0) + numeric_column(
        tasks, "shuffle_read_records"
    ).fillna(0)


def work(tasks: pd.DataFrame, stage: pd.Series | None = None) -> pd.DataFrame:
    """Per task: ``size`` (the work its time is divided by) and ``basis`` (bytes/records/duration),
    with one basis per ``stage_key`` (or per value of ``stage``: its codes, ``stage_groups``)."""
    stage = tasks["stage_key"] if stage is None else stage
    nbytes, nrecords = bytes_read(tasks), records_read(tasks)
    all_bytes = (nbytes > 0).groupby(stage).transform("all")
    all_records = (nrecords > 0).groupby(stage).transform("all")
    # one str object per basis, not one per task (as np.where of the strings makes them)
    basis = np.array(["bytes", "records", "duration"], dtype=object)[
        np.where(all_bytes, 0, np.where(all_records, 1, 2))
    ]
    size = np.where(all_bytes, nbytes, np.where(all_records, nrecords, 1.0))
    return pd.DataFrame({"size": size.astype(float), "basis": basis}, index=tasks.index)


BASIS_WORDS = {"bytes": "time per byte read", "records": "time per record", "duration": "duration"}
"""How a sentence names the rate of each basis."""


def inverse_rate(tasks: pd.DataFrame, stage: pd.Series | None = None) -> pd.DataFrame:
    """Per task: ``rate`` (duration / work, ms per unit), ``size`` and ``basis`` (see ``work``)."""
    w = work(tasks, stage)
    return w.assign(rate=numeric_column(tasks, "duration").astype(float) / w["size"])


def stage_groups(*keys: pd.Series) -> pd.Series:
    """One integer per distinct combination of ``keys`` (a stage's key, with its executor's),
    NaN where one of them is missing: what ``groupby`` forms from the keys, found once. Grouping
    by strings hashes every string again on each call; a stage's tasks are grouped a dozen
    times."""
    combined = np.zeros(len(keys[0]), dtype=np.int64)
    missing = np.zeros(len(keys[0]), dtype=bool)
    for key in keys:
        codes, uniques = pd.factorize(key)
        combined = combined * (len(uniques) + 1) + codes
        missing |= codes < 0
    if missing.any():
        return pd.Series(np.where(missing, np.nan, combined), index=keys[0].index)
    return pd.Series(combined, index=keys[0].index)


def stage_median(values: pd.Series, stage: pd.Series) -> pd.Series:
    """Each task's stage median of ``values`` (NaNs ignored), aligned to the tasks."""
    return values.groupby(stage).transform("median")


def straggles(rate: pd.Series, stage: pd.Series, among: pd.Series | None = None) -> pd.Series:
    """rate > THRESHOLD x the stage median rate, the median taken over ``among`` (default: all)."""
    reference = rate if among is None else rate.where(among)
    return rate > THRESHOLD * stage_median(reference, stage)
