"""The store's manifest: which source files were read into which application partition, as
of which size and modification time (for a log still being written, how many bytes).

A partition is visible only once the manifest names it: ingestion writes a partition under
a temporary name, moves it in place, and records it here last, so a log that fails or an
interrupted run never leaves half an application to readers. Registries and schemas, the
same for most applications, are kept once each under their hash (``registries/``,
``schemas/``) and named by it from each entry."""

from __future__ import annotations

import hashlib
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import orjson

from ..errors import NotALog
from .fs import Location, is_uri, what_failed

MANIFEST = "manifest.json"
VERSION = 1
DATA = "data"
"""The partitions' folder: ``data/app=<partition>/<table>.parquet``."""
TABLES = ("tasks", "stages", "jobs", "apps")


def is_store(path: str | os.PathLike) -> bool:
    """Is ``path`` a store: a folder holding a store's manifest, or a URI (checked when
    read)? A folder of logs may hold a ``manifest.json`` of its own (the public corpus's list
    of where each log came from), and was refused as a store that could not be read: a
    manifest is a store's when the folder has the store's partitions (``data``; then a
    damaged manifest is said to be one) or the manifest reads as a store's."""
    text = str(path)
    if is_uri(text):
        return True
    folder = Path(text)
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return False
    if (folder / DATA).is_dir():
        return True
    try:
        raw = orjson.loads(manifest.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return False
    return isinstance(raw, dict) and isinstance(raw.get("entries"), list)


@dataclass(kw_only=True)
class SourceRead:
    """What reading one source gave, as both a worker's summary (worker.Result) and the
    manifest's entry record it: ``status`` is ``ok`` or why the source gave no partition,
    then the application read from it (id, name, start), its task count, how many bytes were
    read (an in-progress plain log resumes there), its properties and the first lines skipped
    in it (``[path, line, reason]``)."""

    source: str
    status: str = "ok"
    reason: str = ""
    kind: str = ""
    app_id: str = ""
    attempt_id: str = ""
    app_name: str = ""
    start_time: float | None = None
    tasks: int = 0
    bytes_read: int = 0
    properties: dict[str, str] = field(default_factory=dict)
    skipped: list[list] = field(default_factory=list)
    cut_off: list[list] = field(default_factory=list)
    """Each file of the source that ends before its job or application did, as the fields
    of its ``logs.model.CutOff``; absent from the entries of older stores: none."""

    def read_facts(self) -> dict:
        """This record's fields as keywords, to make the other record of the same read."""
        return {f.name: getattr(self, f.name) for f in fields(SourceRead)}


@dataclass(kw_only=True)
class Entry(SourceRead):
    """One source (an event log, a rolling log's parts, a job history) and what it gave.

    ``parts`` holds ``[path, size, mtime_ns]`` of each file; ``status`` is ``ok`` (read into
    ``partition``), ``not a log`` (recorded so that an unchanged one is not read again) or
    ``duplicate``; ``registry`` and ``schemas`` name the blobs kept under their hash."""

    parts: list[list]
    partition: str = ""
    registry: str = ""
    schemas: dict[str, str] = field(default_factory=dict)

    @property
    def readable(self) -> bool:
        return self.status == "ok"


@dataclass
class Manifest:
    location: Location
    entries: dict[str, Entry] = field(default_factory=dict)

    @classmethod
    def open(cls, store: Location, *, create: bool = False) -> Manifest:
        """The manifest of ``store``; an empty one when ``create`` and there is none."""
        where = store.join(MANIFEST)
        try:
            found = where.exists()  # a remote store's first network call
        except OSError as err:
            raise NotALog(what_failed(store.text, err)) from None
        if not found:
            if create:
                return cls(store)
            raise NotALog(f"{store.text}: not a perfx store (no {MANIFEST})")
        try:
            raw = orjson.loads(where.read_bytes())
            entries = {e["source"]: Entry(**e) for e in raw["entries"]}
        except orjson.JSONDecodeError as err:
            raise NotALog(f"{store.text}: unreadable {MANIFEST} ({err})") from None
        except (KeyError, TypeError):  # JSON, not a store's: no entries, or not of sources
            raise NotALog(
                f"{store.text}: its {MANIFEST} is not a perfx store's (no entries, or entries of "
                "another version)"
            ) from None
        return cls(store, entries)

    def save(self) -> None:
        body = {"version": VERSION, "entries": [asdict(e) for e in self.entries.values()]}
        self.location.join(MANIFEST).write_bytes(orjson.dumps(body))

    def readable(self) -> list[Entry]:
        """The entries read into partitions, in source order (the order a directory load
        concatenates its logs in)."""
        return sorted((e for e in self.entries.values() if e.readable), key=lambda e: e.source)

    def owner(self, partition: str) -> Entry | None:
        return next((e for e in self.entries.values() if e.partition == partition), None)

    def blob(self, folder: str, data: bytes) -> str:
        """Keep ``data`` once under its hash in ``folder``; returns the hash."""
        digest = hashlib.sha256(data).hexdigest()[:32]
        where = self.location.join(folder, digest)
        if not where.exists():
            self.location.fs.create_dir(self.location.join(folder).path, recursive=True)
            where.write_bytes(data)
        return digest

    def read_blob(self, folder: str, digest: str) -> bytes:
        return self.location.join(folder, digest).read_bytes()
