"""The distributed store: Apache Ignite through its Python thin client (``pyignite``), as
PerfDebug stored lineage in Ignite so that it outlives the Spark session.

``ignite://host:port`` (default port 10800). Three kinds of caches:

* ``perfx_runs``: run id -> the run's metadata (JSON);
* ``perfx_lineage_<run>``: ``"<stage>/<partition>"`` -> that partition's rows as one Arrow
  IPC stream. One ``put`` per partition replaces the whole partition atomically, so a retried
  or speculative task can never leave a mix of two attempts;
* ``perfx_partitions_<run>``: the same keys -> rows, attempt and Spark stage (JSON), put
  after the rows, so that completeness checks never read the big values.

Tasks write through their own client (the store is pickled without its connection).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import pandas as pd
import pyarrow as pa

from ..errors import IsolationError, StoreError
from .base import PARTITION_COLUMNS, LineageStore, oldest_first, one_line

if TYPE_CHECKING:  # pyignite is imported when a store connects: perfx runs without it
    from pyignite import Client

RUNS = "perfx_runs"
DEFAULT_PORT = 10800


class IgniteStore(LineageStore):
    """Lineage in Apache Ignite caches; see the module docstring for the layout."""

    def __init__(self, url: str):
        parsed = urlparse(url)
        if parsed.scheme != "ignite" or not parsed.hostname:
            raise StoreError(f"bad Ignite store URL {url!r}: use ignite://host:port")
        self.url = url
        self.host = parsed.hostname
        self.port = parsed.port or DEFAULT_PORT
        self._client: Client | None = None

    def __getstate__(self):
        return {"url": self.url, "host": self.host, "port": self.port}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._client = None

    def _cache(self, name: str):
        from pyignite import Client

        try:
            if self._client is None:
                client = Client(timeout=30)
                client.connect(self.host, self.port)
                self._client = client
            return self._client.get_or_create_cache(name)
        except Exception as err:
            self._client = None
            raise StoreError(
                f"cannot reach Ignite at {self.host}:{self.port}: {one_line(err)}"
            ) from None

    def _put(self, cache: str, key: str, value) -> None:
        handle = self._cache(cache)
        try:
            handle.put(key, value)
        except Exception as err:
            raise StoreError(
                f"cannot write to Ignite at {self.host}:{self.port}: {one_line(err)}"
            ) from None

    def _scan(self, cache: str):
        handle = self._cache(cache)
        try:
            with handle.scan(page_size=256) as cursor:
                return list(cursor)
        except Exception as err:
            raise StoreError(
                f"cannot read from Ignite at {self.host}:{self.port}: {one_line(err)}"
            ) from None

    def begin(self, run: str, meta: dict) -> None:
        self._put(RUNS, run, json.dumps(meta))

    def write_partition(self, run, stage, partition, table, attempt=0, spark_stage=-1):
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        key = f"{stage}/{partition}"
        self._put(f"perfx_lineage_{run}", key, sink.getvalue().to_pybytes())
        self._put(
            f"perfx_partitions_{run}",
            key,
            json.dumps(
                {
                    "stage": stage,
                    "partition": partition,
                    "rows": table.num_rows,
                    "attempt": attempt,
                    "spark_stage": spark_stage,
                }
            ),
        )

    def partitions(self, run: str) -> pd.DataFrame:
        rows = [json.loads(value) for _, value in self._scan(f"perfx_partitions_{run}")]
        frame = pd.DataFrame(rows, columns=PARTITION_COLUMNS)
        return frame.sort_values(["stage", "partition"], ignore_index=True)

    def mark_complete(self, run: str, meta: dict) -> None:
        self._put(RUNS, run, json.dumps({**meta, "complete": True}))

    def run_meta(self, run: str) -> dict:
        handle = self._cache(RUNS)
        try:
            value = handle.get(run)
        except Exception as err:
            raise StoreError(
                f"cannot read from Ignite at {self.host}:{self.port}: {one_line(err)}"
            ) from None
        if value is None:
            raise IsolationError(f"no run {run} in {self.url} (perfx runs lists them)")
        return json.loads(value)

    def tables(self, run: str) -> dict[int, object]:
        by_stage: dict[int, list[pa.Table]] = {}
        for key, value in sorted(
            self._scan(f"perfx_lineage_{run}"),
            key=lambda kv: tuple(int(p) for p in kv[0].split("/")),
        ):
            table = pa.ipc.open_stream(pa.py_buffer(bytes(value))).read_all()
            by_stage.setdefault(int(key.split("/")[0]), []).append(table)
        return {stage: pa.concat_tables(parts) for stage, parts in sorted(by_stage.items())}

    def runs(self) -> list[dict]:
        metas = [json.loads(value) for _, value in self._scan(RUNS)]
        return oldest_first(metas)
