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
from typing import TYPE_CHECKING

from ..errors import NotALog

if TYPE_CHECKING:
    import pyarrow.fs as pafs


@dataclass(frozen=True)
class Location:
    """A path on a filesystem; ``text`` is what the user wrote, for messages."""

    fs: pafs.FileSystem
    path: str
    text: str

    @property
    def local(self) -> bool:
        import pyarrow.fs as pafs

        return isinstance(self.fs, pafs.LocalFileSystem)

    def join(self, *parts: str) -> Location:
        return Location(self.fs, posixpath.join(self.path, *parts), self.text)

    def info(self) -> pafs.FileInfo:
        return self.fs.get_file_info(self.path)

    def exists(self) -> bool:
        import pyarrow.fs as pafs

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


PYARROW_SCHEMES = frozenset({"file", "local", "s3", "gs", "gcs", "hdfs", "viewfs", "abfs", "abfss"})
"""URI schemes pyarrow opens itself (``FileSystem.from_uri``)."""

REST_SCHEMES = frozenset({"http", "https"})
"""URI schemes of Spark's monitoring REST API (``logs/rest``)."""


def unknown_scheme(text: str) -> str | None:
    """Why ``text`` names nothing perfx can open, found from its scheme alone (no network),
    or None: a typo such as ``s4://`` fails when the command line is read, before any work."""
    scheme = text.split("://", 1)[0].lower()
    if scheme in PYARROW_SCHEMES or scheme in REST_SCHEMES:
        return None
    try:
        import fsspec
    except ImportError:
        known: set[str] = set()
    else:
        known = set(fsspec.available_protocols())
        if scheme in known:
            return None
    schemes = ", ".join(f"{name}://" for name in sorted(PYARROW_SCHEMES | REST_SCHEMES))
    extra = "" if known else "; other schemes need fsspec"
    return f"{text}: unknown scheme '{scheme}://' (known: {schemes}{extra})"


def what_failed(text: str, err: Exception) -> str:
    """A network or storage error said as what failed (the host's name did not resolve, the
    credentials were refused, the bucket or file is missing, the connection failed), with
    the library's own words after it for the details."""
    detail = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    lowered = str(err).lower()
    for needles, what in FAILURES:
        if any(needle in lowered for needle in needles):
            return f"{text}: {what} ({detail})"
    return f"{text}: cannot open ({detail})"


FAILURES: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        (
            "resolve host",
            "resolve_host",
            "name or service not known",
            "nodename nor servname",
            "temporary failure in name resolution",
            "getaddrinfo",
        ),
        "the host name does not resolve (DNS)",
    ),
    (
        (
            "access denied",
            "accessdenied",
            "forbidden",
            "invalidaccesskeyid",
            "signaturedoesnotmatch",
            "credentials",
            "unauthorized",
            "permission denied",
            "http 403",
            "http 401",
        ),
        "the credentials were refused or are missing",
    ),
    (
        ("nosuchbucket", "nosuchkey", "not found", "no such file", "does not exist", "http 404"),
        "no such bucket or file",
    ),
    (
        (
            "connection refused",
            "couldn't connect",
            "could not connect",
            "timed out",
            "timeout",
            "network_connection",
            "connection reset",
        ),
        "the connection failed",
    ),
)
"""Words of pyarrow's, fsspec's and the AWS/GCS SDKs' errors -> what failed, first match wins."""


def locate(text: str | os.PathLike) -> Location:
    """The location ``text`` names: a local path (made absolute) or a URI. pyarrow's
    filesystems are imported here, not with the module: the command line asks ``is_uri`` and
    ``unknown_scheme`` of every path it is given, and a local event log needs none of them
    (their S3, GCS and HDFS libraries are 5-9 MB of a command's memory)."""
    import pyarrow.fs as pafs

    text = str(text)
    if not is_uri(text):
        return Location(pafs.LocalFileSystem(), str(Path(text).resolve()), text)
    problem = unknown_scheme(text)
    if problem:
        raise NotALog(problem)
    if text.split("://", 1)[0].lower() not in PYARROW_SCHEMES:
        return _fsspec(text)
    try:
        fs, path = pafs.FileSystem.from_uri(text)
    except (ValueError, OSError) as err:  # pyarrow.ArrowInvalid is a ValueError
        raise NotALog(what_failed(text, err)) from None
    return Location(fs, path.rstrip("/"), text)


def _fsspec(text: str) -> Location:
    """A scheme pyarrow does not know, through fsspec (``unknown_scheme`` checked that it
    knows it)."""
    import fsspec
    import pyarrow.fs as pafs

    try:
        fs, path = fsspec.core.url_to_fs(text)
    except ImportError as err:  # the scheme's own package (s3fs, adlfs...) is missing
        raise NotALog(f"{text}: cannot open ({err})") from None
    except (ValueError, OSError) as err:
        raise NotALog(what_failed(text, err)) from None
    return Location(pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path.rstrip("/"), text)
