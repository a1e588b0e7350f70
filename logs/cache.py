"""The table cache: the ``Log`` read from a set of event logs, kept as Arrow IPC files so that
the next command on the same, unchanged logs reads its tables back instead of decoding the logs.

An entry is a folder ``$PERFX_HOME/cache/<key>`` (``~/.perfx/cache``) holding one Arrow IPC
file (LZ4-compressed record batches) per non-empty table (pandas' own metadata kept: dtypes,
index) and ``log.json`` (the feature
registry, the skipped lines, the sources). Its key hashes every part of every log (resolved
path, size, modification time in ns) and the reader's *schema version*: a digest of the
source of the ``logs`` package, so a reader that changes what it builds never meets tables
an older one wrote. A log that changes or grows gets another key and is read again, and its
new entry replaces the old one (``replaces``).

An entry also keeps what is computed from its tables and costs more than reading it back (the
straggler analysis: ``keep_beside``), each in a sub-folder named by a digest of the code that
computed it; a Log read through the cache carries its entry's key (``Log.cache_key``).

Writes are safe under concurrency: an entry is written under a temporary name and renamed
into place whole; a racing writer's rename fails and its copy is dropped, and what a writer
killed mid-write leaves is removed by a later write (``remove_abandoned``). A cache that
cannot be written (read-only home, full disk) is no error: the log was read anyway.
Where the process can fork (logs.background), a log's entry is written by a forked child
while the command goes on with the tables it read (the write takes about as long as
analysing them); the process waits for it before it reads that entry, before it writes
another, and before it exits (``finish_writing``). What is to be kept beside an entry still
being written is written once the entry is in place, then: the command answers meanwhile.
Off with ``--no-cache``, ``perfx.open(..., cache=False)`` or ``PERFX_CACHE=0``.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import astuple, replace
from functools import cache
from pathlib import Path

import orjson
import pandas as pd
import pyarrow as pa

from .background import Background
from .model import CutOff, Log, SkippedLine
from .registry import ENTITIES
from .registry_json import registry_bytes, registry_of

META = "log.json"
FORMAT = 2
"""The layout of an entry (files, ``log.json``'s fields): part of the key. 2: the tables as
Arrow IPC files, where 1 kept them as Parquet: a command on a cached 150,000-task log read
them back in 0.08 s less of its 0.79 s (issue 26's bench, best of 3), for five times the
bytes (10 MB for its task table, against 2 MB); Parquet's decoding of its pages costs what
mapping an IPC file and decompressing its LZ4 buffers does not."""
OFF_VALUES = ("0", "off", "false", "no")


def perfx_home() -> Path:
    """Where perfx keeps what it stores on this machine: ``$PERFX_HOME``, else ``~/.perfx``."""
    return Path(os.environ.get("PERFX_HOME") or Path.home() / ".perfx")


def cache_dir() -> Path:
    return perfx_home() / "cache"


def enabled(cache: bool | None) -> bool:
    """Is the cache used: ``cache`` when given, else unless ``PERFX_CACHE`` turns it off."""
    if cache is not None:
        return cache
    return os.environ.get("PERFX_CACHE", "").strip().lower() not in OFF_VALUES


@cache
def schema_version() -> str:
    """A digest of the ``logs`` package's source: what the tables are made by."""
    return source_digest(Path(__file__).parent, str(FORMAT).encode())


def source_digest(root: Path, salt: bytes = b"") -> str:
    """A digest of the Python source under ``root`` (each file's path and bytes), after
    ``salt``: it names what that code computed and kept (the tables, an analysis beside them),
    so that other code never reads it back."""
    digest = hashlib.sha256(salt)
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def key_of(parts: list[Path]) -> str:
    """The entry of these files as they are now under this reader: path, size, modification
    time, and the inode and its change time, which a file written over or moved into place
    changes even where its size and modification time are set back (``touch -r``: the
    entry of the log it replaced was read back, a probe of the CLI)."""
    stamps = []
    for part in parts:
        stat = part.stat()
        stamps.append(
            [str(part.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns]
        )
    return hashlib.sha256(orjson.dumps([schema_version(), stamps])).hexdigest()[:32]


TABLES = (*ENTITIES, "executor")
"""The tables an entry keeps: the entities' and the executors'."""


def _table_file(entity: str) -> str:
    return f"{entity}.arrow"  # Arrow's IPC file format (Feather v2)


@contextmanager
def _system_allocator() -> Iterator[None]:
    """Arrow's buffers taken from the C library's allocator while in the block: Arrow's
    default allocator keeps what it freed for reuse, so a table read then turned into pandas,
    or turned into Arrow then written, would hold the process at its size again for the rest
    of the command."""
    default = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(default)


def _import_writer() -> None:
    """Import what writing a table imports (Arrow's IPC writer, pyarrow's pandas conversion,
    which starts a thread pool): a process imports them only once it reads or writes an
    entry, not to read a log (their libraries are 6-9 MB of its memory), and an import
    that would run while the interpreter exits fails ("can't register atexit after
    shutdown")."""
    import pyarrow.ipc
    import pyarrow.pandas_compat  # noqa: F401


def _read_table(path: Path) -> pd.DataFrame:
    """One kept table as pandas, its file mapped rather than read."""
    import pyarrow.ipc

    with _system_allocator(), pa.memory_map(str(path)) as source:
        return pyarrow.ipc.open_file(source).read_all().to_pandas()


ROWS_AT_ONCE = 1 << 15
"""Rows of a table turned into Arrow and written at a time: the whole task table of a large
log at once would be a second copy of it (~180 MB for 150,000 tasks) at the command's peak."""


def _write_table(frame: pd.DataFrame, path: Path) -> None:
    """``frame`` as one Arrow IPC file (pandas' metadata kept: dtypes, index), a record batch
    of ``ROWS_AT_ONCE`` rows at a time. The schema is the whole frame's, so that each part's
    types and the index the file describes are the same as in one piece."""
    import pyarrow.ipc

    schema = _schema(frame)
    options = pyarrow.ipc.IpcWriteOptions(compression="lz4")
    with _system_allocator(), pyarrow.ipc.new_file(str(path), schema, options=options) as writer:
        for start in range(0, len(frame), ROWS_AT_ONCE):
            part = frame.iloc[start : start + ROWS_AT_ONCE]
            writer.write_table(pa.Table.from_pandas(part, schema=schema, nthreads=1))
        if not len(frame):
            writer.write_table(schema.empty_table())


SAMPLED_ROWS = 1024
"""Rows from which ``_schema`` infers a large frame's Arrow types."""


def _schema(frame: pd.DataFrame) -> pa.Schema:
    """``pa.Schema.from_pandas(frame)``, the same schema, without converting every column to
    Arrow to learn its type: pyarrow infers an object column's type by converting it whole,
    which then each part written converts again (0.09 s of the 0.25 s the entry of 150,000
    tasks took to write, which a first command waited for at its exit). The types are
    inferred from the first ``SAMPLED_ROWS`` rows, where each object column of the rest (and
    an index of objects) holds the same kind of values (pandas' ``infer_dtype``, a pass over
    the objects in C: strings, say, with or without missing values); a range index is
    described with the frame's extent. A frame whose sample does not speak for it (a column
    missing in the sample, values of another kind further on) or of several index levels is
    inferred whole."""
    if len(frame) <= SAMPLED_ROWS or isinstance(frame.index, pd.MultiIndex):
        return pa.Schema.from_pandas(frame)
    sample = frame.iloc[:SAMPLED_ROWS]
    schema = pa.Schema.from_pandas(sample)
    is_object = pd.api.types.is_object_dtype
    objects = [position for position, dtype in enumerate(frame.dtypes) if is_object(dtype)]
    for values in [(frame.iloc[:, p], sample.iloc[:, p]) for p in objects] + (
        [(frame.index, sample.index)] if is_object(frame.index.dtype) else []
    ):
        whole, head = (pd.api.types.infer_dtype(v, skipna=True) for v in values)
        if whole != head:
            return pa.Schema.from_pandas(frame)
    index = frame.index
    if not isinstance(index, pd.RangeIndex):
        return schema
    pandas = json.loads(schema.metadata[b"pandas"])
    (described,) = pandas["index_columns"]
    described.update(start=index.start, stop=index.stop, step=index.step)
    # written as pyarrow writes it (json.dumps), so that the metadata is byte for byte the same
    return schema.with_metadata({**schema.metadata, b"pandas": json.dumps(pandas).encode()})


TEMPORARY = re.compile(r"\.(?P<name>.+)-(?P<pid>[0-9]+)-[0-9a-f]{32}")
"""The name of a file or folder being written (``_temporary``), before its rename into place."""
ABANDONED_SECONDS = 600
"""A temporary of a writer that is gone, untouched for this long, was abandoned."""
FORGOTTEN_SECONDS = 86_400
"""A temporary untouched for this long was abandoned, whatever process has its writer's pid
now (the machine restarted, the pid was reused)."""


def _temporary(path: Path) -> Path:
    """Where ``path`` is written before it is renamed into place: beside it, named by the
    writing process (``remove_abandoned``) and a random part (racing writers)."""
    return path.with_name(f".{path.name}-{os.getpid()}-{uuid.uuid4().hex}")


def remove_abandoned(folder: Path) -> None:
    """Remove the temporaries in ``folder`` that writers killed mid-write left behind
    (SIGKILL, out of memory, a power cut): their process is gone and they were untouched for
    ``ABANDONED_SECONDS``, or untouched for ``FORGOTTEN_SECONDS``. Each write does this in
    the folder it writes to, so that a killed writer costs the disk nothing for long. A
    writer of another machine or container sharing the home may look gone: the wait spares
    its write, which takes seconds."""
    try:
        found = [(child, TEMPORARY.fullmatch(child.name)) for child in folder.iterdir()]
    except OSError:
        return
    now = time.time()
    for child, name in found:
        if name is None:
            continue
        try:
            untouched = now - child.lstat().st_mtime
        except OSError:
            continue
        if untouched < ABANDONED_SECONDS or (
            untouched < FORGOTTEN_SECONDS and _running(int(name["pid"]))
        ):
            continue
        if child.is_dir():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (one of another user's included)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # none, or no such pid at all
        return False
    except OSError:  # another user's
        return True
    return True


def _read_frames(folder: Path) -> tuple[dict[str, pd.DataFrame], dict]:
    """The frames and the metadata ``_write_frames`` kept in ``folder``; raises OSError,
    ValueError, KeyError or ArrowException for anything missing or damaged."""
    meta = orjson.loads((folder / META).read_bytes())
    return {name: _read_table(folder / _table_file(name)) for name in meta["tables"]}, meta


def _write_frames(
    folder: Path, frames: dict[str, pd.DataFrame], meta: dict, files: Mapping[str, bytes] = {}
) -> None:
    """Keep ``frames`` (those with columns), ``meta`` and ``files`` (name -> bytes) in
    ``folder``, written beside it and renamed into place whole; nothing is kept where the
    folder exists already (another process kept it first) or cannot be written (full disk,
    read-only home): no error."""
    temporary = _temporary(folder)
    remove_abandoned(folder.parent)
    try:
        temporary.mkdir(parents=True)
        for name, data in files.items():
            (temporary / name).write_bytes(data)
        written = []
        for name, frame in frames.items():
            if len(frame.columns):
                _write_table(frame, temporary / _table_file(name))
                written.append(name)
        (temporary / META).write_bytes(orjson.dumps({**meta, "tables": written}))
        os.rename(temporary, folder)
    except (OSError, pa.ArrowException):
        pass
    finally:
        if temporary.exists():
            shutil.rmtree(temporary, ignore_errors=True)


def read_entry(folder: Path) -> Log | None:
    """The Log kept in ``folder``, or None when there is none (or it cannot be read)."""
    try:
        frames, meta = _read_frames(folder)
        tables = {entity: frames.get(entity, pd.DataFrame()) for entity in TABLES}
        return Log(
            tasks=tables["task"],
            stages=tables["stage"],
            jobs=tables["job"],
            apps=tables["app"],
            executors=tables["executor"],
            registry=registry_of(orjson.dumps(meta["registry"])),
            skipped=[SkippedLine(p, n, r) for p, n, r in meta["skipped"]],
            sources=list(meta["sources"]),
            cut_off=[CutOff(*c) for c in meta["cut_off"]],
            cache_key=folder.name,
        )
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException):
        return None


def write_entry(folder: Path, log: Log, files: Mapping[str, bytes] = {}) -> None:
    """Keep ``log`` (and ``files``: name -> bytes, read back by ``kept_file``) in
    ``folder``, written beside it and renamed into place whole."""
    frames = {
        entity: log.executors if entity == "executor" else log.table(entity) for entity in TABLES
    }
    meta = {
        "registry": orjson.loads(registry_bytes(log.registry)),
        "skipped": [[s.path, s.line, s.reason] for s in log.skipped],
        "sources": log.sources,
        "cut_off": [list(astuple(c)) for c in log.cut_off],
    }
    _write_frames(folder, frames, meta, files)


def read_beside(log: Log, name: str) -> tuple[dict[str, pd.DataFrame], dict] | None:
    """The frames and metadata ``keep_beside`` kept as ``name`` in ``log``'s entry, or None:
    none kept, the log has no entry, or what was kept cannot be read (then it is removed, to
    be kept again)."""
    if log.cache_key is None or log.cache_key in _writing:  # an entry being written has none
        return None
    folder = cache_dir() / log.cache_key / name
    try:
        return _read_frames(folder)
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException):
        if folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
        return None


def keep_beside(log: Log, name: str, frames: dict[str, pd.DataFrame], meta: dict) -> None:
    """Keep what was computed from ``log``'s tables (``frames``, ``meta``: JSON values) in its
    entry as ``name``, read back by ``read_beside`` while the log's files are unchanged.
    ``name`` must say what computed them (the code's digest, for one): a new entry is made for
    a new log, never for new code. Nothing is kept for a log without an entry."""
    if log.cache_key is None:
        return
    if log.cache_key in _writing:  # kept once the entry is in place (``finish_writing``)
        _kept_after_writing.append((os.getpid(), log.cache_key, name, frames, meta))
        _import_writer()  # now: finish_writing may run at exit, when nothing can be imported
        return
    finish_writing()
    _keep_beside(log.cache_key, name, frames, meta)


def _keep_beside(key: str, name: str, frames: dict[str, pd.DataFrame], meta: dict) -> None:
    entry = cache_dir() / key
    if entry.is_dir():
        _write_frames(entry / name, frames, meta)


def cached_read(
    parts: list[Path],
    read: Callable[[], Log],
    resume: Callable[[bytes | None], tuple[Log, bytes]] | None = None,
    resume_file: str = "",
) -> Log:
    """The Log of the files ``parts`` from the cache, else ``read()``'s, then kept.

    With ``resume``, the files are read by ``resume(previous)`` instead: ``previous`` is the
    file ``resume_file`` of the entry last kept for the same files (``kept_file``: an earlier
    state of them), None where there is none, and the bytes it returns beside the Log are
    kept as ``resume_file`` in the new entry (a reader's state, to read on from: an
    in-progress log, logs.eventlog.growing)."""
    try:
        folder = cache_dir() / key_of(parts)
    except OSError:
        return read()
    finish_writing()
    if folder.is_dir():
        if (found := read_entry(folder)) is not None:
            return found
        shutil.rmtree(folder, ignore_errors=True)  # damaged: kept again below
    files: dict[str, bytes] = {}
    if resume is None:
        log = read()
    else:
        log, files[resume_file] = resume(kept_file(parts, resume_file))
    log = replace(log, cache_key=folder.name)
    _write_while_answering(folder, log, parts, files)
    return log


_writing: dict[str, Background[None]] = {}
"""The entry a forked child is writing (``_write_while_answering``), by key: one at a time."""
_kept_after_writing: list[tuple[int, str, str, dict[str, pd.DataFrame], dict]] = []
"""What ``keep_beside`` was given for an entry still being written: (the process, key, name,
frames, meta), kept by ``finish_writing`` once the entry is in place, by that process (a
child forked since leaves it to its parent)."""


def _write_while_answering(
    folder: Path, log: Log, parts: list[Path], files: Mapping[str, bytes]
) -> None:
    """``write_entry`` in a forked child where the process can fork, else here. The child
    has the tables in its memory from the fork (nothing is copied to it) and writes them
    while this process answers from them: on a 150,000-task log, 0.3 s of a first
    command's 2.4 s overlapped with its analysis. Waited for at exit: a command ends with its
    entry whole, and multiprocessing would otherwise kill the (daemon) child first."""
    job = Background.start(_keep, folder, log, parts, files)
    if not job.forked:
        job.outcome()
        return
    _writing[folder.name] = job
    # registered (once) after the fork: the last registered runs first, before the exit
    # handler multiprocessing registered when it forked, which kills daemon children
    atexit.unregister(finish_writing)
    atexit.register(finish_writing)


def _keep(folder: Path, log: Log, parts: list[Path], files: Mapping[str, bytes]) -> None:
    """``write_entry``, then the entry kept for ``parts`` is this one (``replaces``)."""
    write_entry(folder, log, files)
    replaces(parts, folder.name)


LATEST = ".latest"
"""The cache's folder of markers: one file per set of log files (by their paths), naming the
entry last kept for them."""
KEY = re.compile(r"[0-9a-f]{32}")


def _marker(parts: list[Path]) -> Path:
    """The file naming the entry last kept for the files ``parts`` (by their paths)."""
    paths = orjson.dumps([str(part.resolve()) for part in parts])
    return cache_dir() / LATEST / hashlib.sha256(paths).hexdigest()[:32]


def kept_file(parts: list[Path], name: str) -> bytes | None:
    """The file ``name`` of the entry last kept for the files ``parts`` (whatever their size
    and time then), or None: no entry, no such file in it, or it cannot be read."""
    try:
        key = _marker(parts).read_text().strip()
        return (cache_dir() / key / name).read_bytes() if KEY.fullmatch(key) else None
    except OSError:
        return None


def replaces(parts: list[Path], key: str) -> None:
    """Make the entry ``key``, once in place, the one kept for the files ``parts`` (by their
    paths, whatever their size and time), and remove the one it replaces: the entry of an
    earlier state of the files (a log that grew, an in-progress log read again) or of an
    earlier perfx. Without this, every change of a log would leave an entry behind."""
    if not (cache_dir() / key).is_dir():
        return  # not kept (a failed or lost write): the older entry stays
    try:
        marker = _marker(parts)
        older = marker.read_text().strip() if marker.is_file() else ""
        marker.parent.mkdir(exist_ok=True)
        temporary = _temporary(marker)
        remove_abandoned(marker.parent)
        temporary.write_text(key)
        os.replace(temporary, marker)
    except OSError:
        return
    if older != key and KEY.fullmatch(older):
        shutil.rmtree(cache_dir() / older, ignore_errors=True)


def finish_writing() -> None:
    """Wait for the entry this process is writing, if any, to be in place, or dropped: a
    child that could not write it (killed: Ctrl-C) leaves the log to be read again. Then
    keep what was to be kept beside it (nothing where it was dropped)."""
    while _writing:
        _writing.pop(next(iter(_writing))).outcome()
    while _kept_after_writing:
        process, key, name, frames, meta = _kept_after_writing.pop(0)
        if process == os.getpid():
            _keep_beside(key, name, frames, meta)
