"""Where a store or a log lives: a local path or a URI (``s3://``, ``gs://``, ``hdfs://``,
``file://``), as a pyarrow filesystem and a path on it.

pyarrow's filesystems are used where pyarrow knows the scheme (they pickle, so worker
processes and Spark executors get them as they are); any other scheme goes through fsspec
when it is installed. Options a URI carries in its query (``?endpoint_override=...``) are
pyarrow's own, e.g. for an S3-compatible endpoint."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

import pyarrow.fs as pafs

from ..errors import NotALog


@dataclass(frozen=True)
class Location:
    """A path on a filesystem; ``text`` is what the user wrote, for messages."""

    fs: pafs.FileSystem
    path: str
    text: str

    @property
    def local(self) -> bool:
        return isinstance(self.fs, pafs.LocalFileSystem)

    def join(self, *parts: str) -> Location:
        return Location(self.fs, posixpath.join(self.path, *parts), self.text)

    def info(self) -> pafs.FileInfo:
        return self.fs.get_file_info(self.path)

    def exists(self) -> bool:
        return self.info().type != pafs.FileType.NotFound

    def read_bytes(self) -> bytes:
        with self.fs.open_input_stream(self.path) as stream:
            return stream.read()

    def write_bytes(self, data: bytes) -> None:
        """Write ``data`` whole: to a temporary name, then moved over the target (atomic
        on local disks and HDFS; object stores have no rename, their put is atomic)."""
        if not self.local:
            with self.fs.open_output_stream(self.path) as stream:
                stream.write(data)
            return
        temporary = f"{self.path}.tmp-{os.getpid()}"
        with self.fs.open_output_stream(temporary) as stream:
            stream.write(data)
        self.fs.move(temporary, self.path)

    def key(self, path: str) -> str:
        """A stable name for ``path`` on this filesystem: a local absolute path, else a URI."""
        if self.local:
            return path
        return f"{self.fs.type_name}://{path}"


def is_uri(text: str) -> bool:
    return "://" in text and not Path(text).exists()


def locate(text: str | os.PathLike) -> Location:
    """The location ``text`` names: a local path (made absolute) or a URI."""
    text = str(text)
    if not is_uri(text):
        return Location(pafs.LocalFileSystem(), str(Path(text).resolve()), text)
    try:
        fs, path = pafs.FileSystem.from_uri(text)
    except (ValueError, OSError) as err:  # pyarrow.ArrowInvalid is a ValueError
        fs, path = _fsspec(text, err)
    return Location(fs, path.rstrip("/"), text)


def _fsspec(text: str, why: Exception) -> tuple[pafs.FileSystem, str]:
    """A scheme pyarrow does not know, through fsspec (if installed)."""
    try:
        import fsspec
    except ImportError:
        raise NotALog(f"{text}: cannot open ({why}); install fsspec for other schemes") from None
    try:
        fs, path = fsspec.core.url_to_fs(text)
    except (ValueError, ImportError, OSError) as err:
        raise NotALog(f"{text}: cannot open ({err})") from None
    return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path
