"""The distributed store: Apache Ignite through its Python thin client (``pyignite``), as
PerfDebug stored lineage in Ignite so that it outlives the Spark session.

``ignite://host:port`` (default port 10800). Three kinds of caches:

* ``perfx_runs``: run id -> the run's metadata (JSON);
* ``perfx_lineage_<run>``: ``"<stage>/<partition>/<token>"`` -> the rows one task attempt
  wrote for that partition, as one Arrow IPC stream under a key of its own;
* ``perfx_partitions_<run>``: ``"<stage>/<partition>"`` -> the partition's rows, attempt,
  Spark stage and the key of its rows (JSON).

A partition is published as Parquet files are, by writing first and naming after: the rows go
under a new key, then one ``put`` of the small entry points the partition at them, and the
rows it pointed at before are removed. Whichever attempt of a retried or speculative task
swings the pointer last owns the partition whole; a reader follows the pointers, and if rows
were replaced while it read, it reads the pointers again. Completeness checks read only the
small entries. The per-run caches share one cache group, so that many runs cost one set of
partition structures on the nodes.

Opening the store connects (a node that is not there is named before a traced run starts
Spark); tasks write through their own copy, which connects on its first write.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlparse

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds

from ..errors import IsolationError, StoreError
from .base import PARTITION_COLUMNS, LineageStore, oldest_first, one_line, perfx_home

if TYPE_CHECKING:  # pyignite is imported when a store connects: perfx runs without it
    from pyignite import Client

RUNS = "perfx_runs"
GROUP = "perfx"
DEFAULT_PORT = 10800
TIMEOUT_S = 30
READ_BATCH = 16
"""Partitions fetched per ``get_all``: bounds one response of the node, not the number."""
READS = 20
"""How often a reader follows a partition's entry again when its rows were replaced while it
read them (each time, only the partitions replaced meanwhile)."""

COMPRESSED = pa.ipc.IpcWriteOptions(compression="zstd")
"""Rows travel and are kept compressed, as the Parquet store's files are: a partition's
value is a few times smaller, and the node's time per value grows with its size."""

T = TypeVar("T")


class IgniteStore(LineageStore):
    """Lineage in Apache Ignite caches; see the module docstring for the layout."""

    def __init__(self, url: str):
        parsed = urlparse(url)
        try:
            port = parsed.port or DEFAULT_PORT
        except ValueError:  # not a number, or out of range
            port = 0
        if parsed.scheme != "ignite" or not parsed.hostname or not port:
            raise StoreError(f"bad Ignite store URL {url!r}: use ignite://host:port")
        self.url = url
        self.host = parsed.hostname
        self.port = port
        self._client: Client | None = None
        self._caches: dict[str, Any] = {}
        self._connected()

    def __getstate__(self):
        return {"url": self.url, "host": self.host, "port": self.port}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._client = None
        self._caches = {}

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def _connected(self) -> Client:
        if self._client is None:
            from pyignite import Client

            client = Client(timeout=TIMEOUT_S)
            try:
                client.connect(self.host, self.port)
            except Exception as err:
                raise StoreError(
                    f"cannot reach Ignite at {self.address} ({self.url}): {one_line(err)}"
                ) from None
            self._client = client
        return self._client

    def _do(self, doing: str, action: Callable[[Client], T]) -> T:
        """``action`` on the connection; any failure is a one-line StoreError saying what was
        being done, and drops the connection (the next call connects again)."""
        client = self._connected()
        try:
            return action(client)
        except IsolationError:
            raise
        except Exception as err:
            self._client, self._caches = None, {}
            raise StoreError(f"cannot {doing} Ignite at {self.address}: {one_line(err)}") from None

    def _cache(self, client: Client, name: str):
        """The cache ``name``, created if need be; asked of the node once per connection."""
        from pyignite.datatypes.prop_codes import PROP_GROUP_NAME, PROP_NAME

        if name not in self._caches:
            config = name if name == RUNS else {PROP_NAME: name, PROP_GROUP_NAME: GROUP}
            self._caches[name] = client.get_or_create_cache(config)
        return self._caches[name]

    def _run_cache(self, client: Client, run: str, kind: str):
        """The run's ``kind`` cache for reading (``begin`` created it); reading creates none."""
        name = f"perfx_{kind}_{run}"
        if name not in client.get_cache_names():
            raise IsolationError(f"no run {run} in {self.url}")
        return client.get_cache(name)

    def begin(self, run: str, meta: dict) -> None:
        def register(client: Client) -> None:
            for kind in ("lineage", "partitions"):
                self._cache(client, f"perfx_{kind}_{run}")
            self._cache(client, RUNS).put(run, json.dumps(meta))

        self._do("write to", register)

    def write_partition(self, run, stage, partition, table, attempt=0, spark_stage=-1):
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema, options=COMPRESSED) as writer:
            writer.write_table(table)
        key = f"{stage}/{partition}"
        rows_key = f"{key}/{uuid.uuid4().hex}"
        entry = {
            "stage": stage,
            "partition": partition,
            "rows": table.num_rows,
            "attempt": attempt,
            "spark_stage": spark_stage,
            "key": rows_key,
        }

        def publish(client: Client) -> None:
            lineage = self._cache(client, f"perfx_lineage_{run}")
            lineage.put(rows_key, sink.getvalue().to_pybytes())
            before = self._cache(client, f"perfx_partitions_{run}").get_and_put(
                key, json.dumps(entry)
            )
            if before is not None:
                lineage.remove_key(json.loads(before)["key"])

        try:
            self._do("write to", publish)
        except StoreError as err:
            raise StoreError(
                f"lineage of stage {stage} partition {partition} (Spark stage {spark_stage}, "
                f"attempt {attempt}) of run {run} not written: {err}"
            ) from None

    def _entries(self, run: str) -> list[dict]:
        """The run's partition entries, by (stage, partition)."""

        def scan(client: Client) -> list:
            with self._run_cache(client, run, "partitions").scan(page_size=1024) as cursor:
                return [json.loads(value) for _, value in cursor]

        return sorted(self._do("read from", scan), key=lambda e: (e["stage"], e["partition"]))

    def _entry(self, run: str, entry: dict) -> dict:
        """The partition's entry as it is now."""
        key = f"{entry['stage']}/{entry['partition']}"
        value = self._do("read from", lambda c: self._run_cache(c, run, "partitions").get(key))
        return json.loads(value)

    def partitions(self, run: str) -> pd.DataFrame:
        return pd.DataFrame(self._entries(run), columns=PARTITION_COLUMNS)

    def mark_complete(self, run: str, meta: dict) -> None:
        complete = json.dumps({**meta, "complete": True})
        self._do("write to", lambda c: self._cache(c, RUNS).put(run, complete))

    def run_meta(self, run: str) -> dict:
        value = self._do("read from", lambda c: self._cache(c, RUNS).get(run))
        if value is None:
            raise IsolationError(f"no run {run} in {self.url} (perfx runs lists them)")
        return json.loads(value)

    def tables(self, run: str) -> dict[int, object]:
        entries = self._entries(run)
        found = self._rows(run, [e["key"] for e in entries])
        for _ in range(READS):
            stale = [i for i, e in enumerate(entries) if e["key"] not in found]
            if not stale:
                break
            for i in stale:  # replaced since the listing: follow the partition's new entry
                entries[i] = self._entry(run, entries[i])
            found.update(self._rows(run, [entries[i]["key"] for i in stale]))
        else:
            raise StoreError(
                f"the lineage of run {run} in {self.url} was replaced {READS} times while "
                "being read: a task of the run is still writing it"
            )
        by_stage: dict[int, list[pa.Table]] = {}
        for entry in entries:
            table = pa.ipc.open_stream(pa.py_buffer(found[entry["key"]])).read_all()
            by_stage.setdefault(entry["stage"], []).append(table)
        return {
            stage: ds.dataset(pa.concat_tables(parts)) for stage, parts in sorted(by_stage.items())
        }

    def _rows(self, run: str, keys: list[str]) -> dict[str, bytes]:
        """The stored rows under ``keys`` (those that exist), fetched a batch at a time."""

        def fetch(client: Client) -> dict[str, bytes]:
            lineage = self._run_cache(client, run, "lineage")
            found: dict[str, bytes] = {}
            for start in range(0, len(keys), READ_BATCH):
                found.update(lineage.get_all(keys[start : start + READ_BATCH]))
            return found

        return self._do("read from", fetch)

    def runs(self) -> list[dict]:
        def scan(client: Client) -> list:
            with self._cache(client, RUNS).scan(page_size=256) as cursor:
                return [json.loads(value) for _, value in cursor]

        return oldest_first(self._do("read from", scan))

    def local_dir(self, run: str) -> str | None:
        """The run's Spark event log and Spark's output stay on the machine that traced it,
        under ``$PERFX_HOME/ignite/<host>-<port>/<run>`` (the lineage is in Ignite)."""
        return os.path.join(perfx_home(), "ignite", f"{self.host}-{self.port}", run)
