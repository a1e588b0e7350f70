"""The one interface every lineage store implements, and what a run's metadata holds.

A store keeps, per run, one small metadata document (written when the run starts, rewritten
when it completes) and the lineage rows of every (stage, partition), written by the task that
computed that partition. Writing a partition again replaces its rows (a retried or
speculative task), so a partition's rows are always those of exactly one attempt. Queries go
through DuckDB over whatever ``tables`` returns, so they are the same for every store.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod

import pandas as pd
import pyarrow as pa

from ..errors import IsolationError
from ..ids import ID_LAYOUT

PARTITION_COLUMNS = ["stage", "partition", "rows", "attempt", "spark_stage"]


def perfx_home() -> str:
    """Where perfx keeps what it stores on this machine: ``$PERFX_HOME``, else ``~/.perfx``."""
    return os.environ.get("PERFX_HOME") or os.path.join(os.path.expanduser("~"), ".perfx")


class LineageStore(ABC):
    """Where a traced run's lineage goes. Picklable: tasks write through their own copy."""

    url: str

    @abstractmethod
    def begin(self, run: str, meta: dict) -> None:
        """Registers a new, incomplete run; raises StoreError if the store cannot be written."""

    @abstractmethod
    def write_partition(
        self,
        run: str,
        stage: int,
        partition: int,
        table: pa.Table,
        attempt: int = 0,
        spark_stage: int = -1,
    ) -> None:
        """Writes (or replaces) the rows of one partition of one stage, atomically."""

    @abstractmethod
    def partitions(self, run: str) -> pd.DataFrame:
        """One row per written (stage, partition): ``PARTITION_COLUMNS``."""

    @abstractmethod
    def mark_complete(self, run: str, meta: dict) -> None:
        """Rewrites the run's metadata with ``complete: true``."""

    @abstractmethod
    def run_meta(self, run: str) -> dict:
        """The run's metadata; raises IsolationError for an unknown run."""

    @abstractmethod
    def tables(self, run: str) -> dict[int, object]:
        """Stage -> its lineage rows as an Arrow table or dataset (DuckDB scans either)."""

    @abstractmethod
    def runs(self) -> list[dict]:
        """The metadata of every stored run, oldest first."""

    def local_dir(self, run: str) -> str | None:
        """A folder on this machine beside the run's lineage, for files the run keeps with it
        (the Spark event log of the traced execution); None for stores that have none."""
        return None

    def complete_meta(self, run: str) -> dict:
        """The metadata of a run that finished; a query on any other run says why it can't."""
        meta = self.run_meta(run)
        if not meta.get("complete"):
            written = len(self.partitions(run))
            raise IsolationError(
                f"run {run} is incomplete: its traced job did not finish "
                f"({written} partition(s) of lineage written); re-run it with perfx isolate"
            )
        if meta.get("ids", 1) != ID_LAYOUT:
            raise IsolationError(
                f"run {run} was stored by an older perfx, whose record ids read otherwise: "
                "trace the program again with perfx isolate"
            )
        return meta

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"


def one_line(err: BaseException) -> str:
    """An exception's message on one line (for StoreError messages)."""
    return " ".join(str(err).split()) or type(err).__name__


def oldest_first(metas: list[dict]) -> list[dict]:
    """Run metadata in the order ``runs()`` lists them: by creation time, then run id."""
    return sorted(metas, key=lambda m: (m.get("created", ""), m.get("run", "")))
