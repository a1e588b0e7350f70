"""The pieces of the paper's evaluation protocol (section 6): its two queries, logs restricted
to a set of jobs, and pairs of interest picked the way the paper describes them.

The pair of interest is drawn at random (seeded) among the pairs of the training log for
which the query makes sense — DESPITE and OBSERVED hold, EXPECTED does not — and which are
the situation the paper's query asks about:

* WhyLastTaskFaster: "why the last task on an instance runs faster than the earlier tasks
  that were executed on the same instance": T1 is the last task (map, or reduce) its job
  launched on its host, T2 one of the same type launched there before it;
* WhySlowerDespiteSameNumInstances: the slower job read the larger input (the paper's pair,
  whose explanation is that input size was greater).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from perfx.explain.columns import columns_for
from perfx.explain.pairs import conjunction_mask
from perfx.grammar.ast import EntityId, Predicate, Query
from perfx.logs.model import Log

QUERY_TEXT = {
    "WhyLastTaskFaster": """FOR T1, T2 WHERE T1.TaskID = ? AND T2.TaskID = ?
        DESPITE jobID isSame = T AND inputsize compare = SIM AND hostname isSame = T
        OBSERVED duration compare = LT
        EXPECTED duration compare = SIM""",
    "WhySlowerDespiteSameNumInstances": """FOR J1, J2 WHERE J1.JobID = ? AND J2.JobID = ?
        DESPITE numinstances isSame = T AND pig script isSame = T
        OBSERVED duration compare = GT
        EXPECTED duration compare = SIM""",
}
"""The two queries of section 6.2, as written there."""


def query(name: str) -> Query:
    from perfx.grammar.parser import parse

    return parse(QUERY_TEXT[name])


def without_despite(q: Query) -> Query:
    """The under-specified query of section 6.4: the same, with no DESPITE clause."""
    return replace(q, despite=Predicate())


def bound(q: Query, pair: tuple[str, str]) -> Query:
    return replace(q, first=EntityId(pair[0]), second=EntityId(pair[1]))


def restrict(log: Log, job_ids) -> Log:
    """The log of the given jobs only (their job rows and their tasks), same registry."""
    keep = set(map(str, job_ids))
    jobs = log.jobs[log.jobs["id"].astype(str).isin(keep)].reset_index(drop=True)
    tasks = (
        log.tasks[log.tasks["job_id"].astype(str).isin(keep)].reset_index(drop=True)
        if len(log.tasks)
        else log.tasks
    )
    return Log(tasks=tasks, jobs=jobs, registry=log.registry, sources=list(log.sources))


def split_jobs(
    job_ids: np.ndarray, fraction: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Each job goes to the training half with probability ``fraction`` (the paper: 0.5)."""
    train = rng.random(len(job_ids)) < fraction
    return job_ids[train], job_ids[~train]


@dataclass(frozen=True)
class Candidates:
    """Row pairs (first, second) of a log that may serve as the pair of interest."""

    first: np.ndarray
    second: np.ndarray

    def __len__(self) -> int:
        return len(self.first)

    def pick(self, table: pd.DataFrame, rng: np.random.Generator) -> tuple[str, str] | None:
        if not len(self):
            return None
        k = int(rng.integers(len(self)))
        ids = table["id"].astype(str).to_numpy()
        return ids[self.first[k]], ids[self.second[k]]


def candidates(log: Log, name: str, q: Query, table_filter=None) -> Candidates:
    """Pairs for which the query makes sense and which show the paper's situation;
    ``table_filter`` (row mask) limits both executions further, e.g. to one Pig script."""
    entity = q.entity
    table = log.table(entity)
    if table.empty:
        return Candidates(np.zeros(0, int), np.zeros(0, int))
    if name == "WhyLastTaskFaster":
        i, j = _last_task_pairs(table)
    else:
        i, j = _larger_input_pairs(table)
    if table_filter is not None:
        ok = table_filter[i] & table_filter[j]
        i, j = i[ok], j[ok]
    cols = columns_for(log, entity)
    holds = conjunction_mask(cols, q.despite.atoms, i, j) & conjunction_mask(
        cols, q.observed.atoms, i, j
    )
    holds &= ~conjunction_mask(cols, q.expected.atoms, i, j)
    return Candidates(i[holds], j[holds])


def _last_task_pairs(tasks: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(last task of its kind its job launched on a host, one of that kind launched there
    before it). Kind is the task type when the log has one: a reduce that reads about as
    much as a map split is not one of "the earlier tasks" the paper's question is about."""
    kind = (
        tasks["task_type"].astype(str)
        if "task_type" in tasks.columns
        else pd.Series("", index=tasks.index)
    )
    rows = pd.DataFrame(
        {
            "job": tasks["job_id"].astype(str),
            "host": tasks["host"].astype(str),
            "kind": kind,
            "launch": pd.to_numeric(tasks["launch_time"], errors="coerce"),
            "row": np.arange(len(tasks)),
        }
    )
    keys = ["job", "host", "kind"]
    last = rows.loc[rows.groupby(keys)["launch"].idxmax()]
    pairs = last.merge(rows, on=keys, suffixes=("", "_other"))
    pairs = pairs[pairs["launch_other"] < pairs["launch"]]
    return pairs["row"].to_numpy(), pairs["row_other"].to_numpy()


def _larger_input_pairs(jobs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Job pairs of equal cluster size where the first read more input than the second."""
    rows = pd.DataFrame(
        {
            "n": jobs["num_instances"],
            "size": pd.to_numeric(jobs["input_size"]),
            "row": np.arange(len(jobs)),
        }
    )
    pairs = rows.merge(rows, on="n", suffixes=("", "_other"))
    pairs = pairs[pairs["size"] > pairs["size_other"]]
    return pairs["row"].to_numpy(), pairs["row_other"].to_numpy()
