"""The embedded default store: Parquet files under a run directory, queried with DuckDB.

Layout: ``<root>/<run>/run.json`` and ``<root>/<run>/s<stage>/p<partition>.parquet``. The
root is a local path or any URI pyarrow's filesystems reach (``s3://``, ``gs://``,
``hdfs://``, ...), or, when fsspec is installed, any fsspec protocol. A partition file is
written under a hidden temporary name and moved into place, so readers never see half a
file and a retried task's file replaces the first attempt's. The attempt number and the
Spark stage id ride in the file's Parquet metadata.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from ..errors import IsolationError, StoreError
from .base import PARTITION_COLUMNS, LineageStore, oldest_first, one_line, perfx_home

META = "run.json"


def default_root() -> str:
    """``$PERFX_HOME/runs``, ``~/.perfx/runs`` by default."""
    return os.path.join(perfx_home(), "runs")


def _filesystem(url: str) -> tuple[pafs.FileSystem, str]:
    if "://" not in url:
        return pafs.LocalFileSystem(), str(Path(url).expanduser().resolve())
    try:
        return pafs.FileSystem.from_uri(url)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
        try:
            import fsspec
        except ImportError:
            raise StoreError(
                f"no filesystem for lineage store {url} ({err}); install fsspec for more"
            ) from None
        fs, path = fsspec.core.url_to_fs(url)
        return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path


class ParquetStore(LineageStore):
    """Parquet files per (run, stage, partition); see the module docstring for the layout."""

    def __init__(self, url: str | None = None):
        self.url = url or default_root()
        self._fs_cache: tuple[pafs.FileSystem, str] | None = None

    def __getstate__(self):
        return {"url": self.url}

    def __setstate__(self, state):
        self.url = state["url"]
        self._fs_cache = None

    @property
    def _fs(self) -> tuple[pafs.FileSystem, str]:
        if self._fs_cache is None:
            self._fs_cache = _filesystem(self.url)
        return self._fs_cache

    def _path(self, *parts: str) -> str:
        _fs, root = self._fs
        return "/".join([root.rstrip("/"), *parts])

    def _write_bytes(self, path: str, data: bytes) -> None:
        fs, _ = self._fs
        tmp = f"{path.rsplit('/', 1)[0]}/.{path.rsplit('/', 1)[1]}.{uuid.uuid4().hex}.tmp"
        with fs.open_output_stream(tmp) as out:
            out.write(data)
        fs.move(tmp, path)

    def local_dir(self, run: str) -> str | None:
        return self._path(run) if "://" not in self.url else None

    def begin(self, run: str, meta: dict) -> None:
        try:
            fs, _ = self._fs
            fs.create_dir(self._path(run), recursive=True)
            self._write_bytes(self._path(run, META), json.dumps(meta, indent=1).encode())
        except (OSError, pa.ArrowException) as err:
            raise StoreError(f"cannot write lineage store {self.url}: {one_line(err)}") from None

    def write_partition(self, run, stage, partition, table, attempt=0, spark_stage=-1):
        fs, _ = self._fs
        directory = self._path(run, f"s{stage:03d}")
        path = f"{directory}/p{partition:05d}.parquet"
        table = table.replace_schema_metadata(
            {
                "perfx.attempt": str(attempt),
                "perfx.spark_stage": str(spark_stage),
            }
        )
        try:
            fs.create_dir(directory, recursive=True)
            tmp = f"{directory}/.p{partition:05d}.{uuid.uuid4().hex}.tmp"
            pq.write_table(table, tmp, filesystem=fs, compression="zstd")
            fs.move(tmp, path)
        except (OSError, pa.ArrowException) as err:
            raise StoreError(f"cannot write lineage to {self.url}: {one_line(err)}") from None

    def _files(self, run: str) -> list[pafs.FileInfo]:
        fs, _ = self._fs
        try:
            infos = fs.get_file_info(pafs.FileSelector(self._path(run), recursive=True))
        except FileNotFoundError:
            raise IsolationError(f"no run {run} in {self.url}") from None
        return sorted(
            (
                i
                for i in infos
                if i.is_file
                and i.base_name.endswith(".parquet")
                and not i.base_name.startswith(".")
            ),
            key=lambda i: i.path,
        )

    def partitions(self, run: str) -> pd.DataFrame:
        fs, _ = self._fs
        rows = []
        for info in self._files(run):
            with fs.open_input_file(info.path) as handle:
                meta = pq.ParquetFile(handle).metadata
            extra = {k.decode(): v.decode() for k, v in (meta.metadata or {}).items()}
            stage = int(info.path.rsplit("/", 2)[-2][1:])
            partition = int(info.base_name[1:].split(".")[0])
            rows.append(
                (
                    stage,
                    partition,
                    meta.num_rows,
                    int(extra.get("perfx.attempt", 0)),
                    int(extra.get("perfx.spark_stage", -1)),
                )
            )
        return pd.DataFrame(rows, columns=PARTITION_COLUMNS)

    def mark_complete(self, run: str, meta: dict) -> None:
        try:
            self._write_bytes(
                self._path(run, META), json.dumps({**meta, "complete": True}, indent=1).encode()
            )
        except (OSError, pa.ArrowException) as err:
            raise StoreError(f"cannot write lineage store {self.url}: {one_line(err)}") from None

    def run_meta(self, run: str) -> dict:
        fs, _ = self._fs
        try:
            with fs.open_input_stream(self._path(run, META)) as handle:
                return json.loads(handle.read())
        except FileNotFoundError:
            raise IsolationError(f"no run {run} in {self.url} (perfx runs lists them)") from None

    def tables(self, run: str) -> dict[int, object]:
        fs, _ = self._fs
        by_stage: dict[int, list[str]] = {}
        for info in self._files(run):
            by_stage.setdefault(int(info.path.rsplit("/", 2)[-2][1:]), []).append(info.path)
        return {
            stage: ds.dataset(paths, filesystem=fs, format="parquet")
            for stage, paths in sorted(by_stage.items())
        }

    def runs(self) -> list[dict]:
        fs, root = self._fs
        try:
            infos = fs.get_file_info(pafs.FileSelector(root, allow_not_found=True))
        except OSError as err:
            raise StoreError(f"cannot read lineage store {self.url}: {one_line(err)}") from None
        found = []
        for info in infos:
            if info.type == pafs.FileType.Directory:
                try:
                    found.append(self.run_meta(info.base_name))
                except IsolationError:
                    continue
        return oldest_first(found)
