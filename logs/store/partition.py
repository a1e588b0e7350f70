"""One application's tables as a store partition (``data/app=<name>/<table>.parquet``), and
the registry and schemas that describe them, as bytes the manifest keeps once per hash.

A partition is written under a temporary name beside the others and moved into place whole
(``publish``): readers never see half of one."""

from __future__ import annotations

import re
import uuid

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from ..model import Log
from ..registry import ENTITIES, ENTITY_TABLE
from .fs import Location
from .manifest import DATA

STATE = "state.pickle"
"""An in-progress log's reader state, to resume it from the bytes already read."""
UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def partition_name(app_id: str, attempt_id: str) -> str:
    """The partition of one application attempt: a directory name made of its ids."""
    name = UNSAFE.sub("_", app_id) or "app"
    return f"{name}_attempt-{UNSAFE.sub('_', attempt_id)}" if attempt_id else name


def folder(store: Location, partition: str) -> Location:
    return store.join(DATA, f"app={partition}")


def write_tables(store: Location, log: Log, state: bytes | None) -> tuple[str, dict[str, bytes]]:
    """Write ``log``'s tables (and an in-progress ``state``) under a fresh temporary folder;
    returns its name and each written table's serialized Arrow schema."""
    temporary = f"_tmp-{uuid.uuid4().hex}"
    where = store.join(DATA, temporary)
    store.fs.create_dir(where.path, recursive=True)
    try:
        return temporary, _write(where, log, state)
    except BaseException:
        store.fs.delete_dir(where.path)
        raise


def _write(where: Location, log: Log, state: bytes | None) -> dict[str, bytes]:
    schemas: dict[str, bytes] = {}
    for entity in ENTITIES:
        frame = log.table(entity)
        if not len(frame.columns):
            continue
        table = pa.Table.from_pandas(frame, preserve_index=False)
        pq.write_table(
            table,
            where.join(f"{ENTITY_TABLE[entity]}.parquet").path,
            filesystem=where.fs,
            compression="zstd",
        )
        schemas[ENTITY_TABLE[entity]] = table.schema.remove_metadata().serialize().to_pybytes()
    if state is not None:
        where.join(STATE).write_bytes(state)
    return schemas


def publish(store: Location, temporary: str, partition: str) -> None:
    """Move a written partition into place, replacing the one it supersedes."""
    target = folder(store, partition)
    if target.exists():
        store.fs.delete_dir(target.path)
    written = store.join(DATA, temporary)
    if store.fs.type_name == "local":
        store.fs.move(written.path, target.path)
        return
    # Object stores (S3, GCS) rename no folder: copy each object, then drop the temporary
    # ones. Readers still never see half a partition: only the manifest, written last,
    # makes it visible.
    store.fs.create_dir(target.path, recursive=True)
    for info in store.fs.get_file_info(pafs.FileSelector(written.path)):
        store.fs.copy_file(info.path, target.join(info.base_name).path)
    store.fs.delete_dir(written.path)


def discard(store: Location, temporary: str) -> None:
    where = store.join(DATA, temporary)
    if where.exists():
        store.fs.delete_dir(where.path)


def schema_of(data: bytes) -> pa.Schema:
    return pa.ipc.read_schema(pa.py_buffer(data))


def table_path(store: Location, partition: str, table: str) -> str:
    return folder(store, partition).join(f"{table}.parquet").path


def state_bytes(store: Location, partition: str) -> bytes | None:
    where = folder(store, partition).join(STATE)
    return where.read_bytes() if where.exists() else None
