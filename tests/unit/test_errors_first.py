"""Errors before work (issue 24): an output path, a URI's scheme and the command line are
checked when the command line is read, before any log is loaded, and each error is one line
with a non-zero exit; a storage error says what failed (DNS, credentials, a missing file)."""

from __future__ import annotations

import subprocess
import sys

import pyarrow.fs as pafs
import pytest

from perfx.logs.errors import NotALog
from perfx.logs.store.fs import locate, unknown_scheme, what_failed
from tests.data_files import public_log

LOG = str(public_log("groupon__sparklint/event_log_1"))


def _perfx(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "perfx.cli", *args], capture_output=True, text=True
    )


def _one_line(result: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert result.stdout == ""
    return lines[0]


def test_a_report_into_a_missing_folder_fails_before_the_log_is_read(tmp_path):
    result = _perfx("report", "--log", LOG, "--out", "/nonexistent/x.html")
    assert result.returncode == 2
    line = _one_line(result)
    assert "folder /nonexistent does not exist" in line and "--out" in line
    assert "perfx report --help" in line  # the hint


def test_an_output_that_is_a_folder_is_refused(tmp_path):
    result = _perfx("report", "--log", LOG, "--out", str(tmp_path))
    assert result.returncode == 2
    assert "is a folder" in _one_line(result)


def test_an_output_folder_under_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    result = _perfx("fixtures", "ec2", "--seed", "1", "--out", str(tmp_path / "file" / "out"))
    assert result.returncode == 2
    assert "is not a folder" in _one_line(result)


def test_a_usage_error_is_one_line_with_a_hint():
    result = _perfx("report", "--log", LOG)
    assert result.returncode == 2
    line = _one_line(result)
    assert line.startswith("perfx report: Missing option '--out'")
    assert line.endswith("(see 'perfx report --help')")


def test_an_unknown_scheme_is_refused_on_the_command_line():
    result = _perfx("logs", "s4://bucket/spark-events")
    assert result.returncode == 2
    assert "unknown scheme 's4://'" in _one_line(result)
    assert unknown_scheme("s3://bucket/x") is None and unknown_scheme("http://h:18080") is None
    assert "install" not in (unknown_scheme("s4://b/x") or "").split("(")[0]


@pytest.mark.parametrize(
    "message, said",
    [
        ("curlCode: 6, Couldn't resolve host name", "does not resolve (DNS)"),
        ("AWS Error ACCESS_DENIED during HeadBucket operation: Access Denied", "credentials"),
        ("AWS Error NO_SUCH_BUCKET: The specified bucket does not exist", "no such bucket"),
        ("[Errno 111] Connection refused", "connection failed"),
    ],
)
def test_a_storage_error_says_what_failed(message, said):
    line = what_failed("s3://bucket/logs", OSError(message))
    assert line.startswith("s3://bucket/logs: ") and said in line and message in line
    assert "install" not in line


@pytest.mark.slow
def test_a_host_that_does_not_resolve_says_so_not_which_package_to_install():
    """A real S3 client on a host name that cannot resolve (``.invalid`` never does)."""
    uri = "s3://bucket/logs?endpoint_override=http://perfx-test.invalid:9000&region=us-east-1"
    location = locate(uri)
    with pytest.raises(OSError) as raised:
        location.fs.get_file_info(pafs.FileSelector(location.path, recursive=True))
    assert "DNS" in what_failed(uri, raised.value)
    result = _perfx("logs", uri)
    assert result.returncode != 0
    line = _one_line(result)
    assert "DNS" in line and "fsspec" not in line


def test_a_locate_of_an_unknown_scheme_raises_a_log_error():
    with pytest.raises(NotALog, match="unknown scheme"):
        locate("s4://bucket/x")
