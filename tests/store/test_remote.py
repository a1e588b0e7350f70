"""Ingestion from an S3 bucket: a local S3-compatible endpoint (moto's server, bound to
127.0.0.1) holding real event logs; unchanged logs are not read again, a grown one is."""

from __future__ import annotations

import pytest

from perfx.logs.loader import load_log
from perfx.logs.store.ingest import ingest
from tests.data_files import fixture_log
from tests.store.helpers import assert_same_log

pytestmark = pytest.mark.slow  # an S3 server in a subprocess

LOGS = ("app-20161115172038-0000", "local-1426533911241", "application_1555004656427_0144")


@pytest.fixture()
def bucket(monkeypatch):
    """An S3 endpoint with the bucket ``history`` holding LOGS under ``spark-events/``; yields
    (pyarrow filesystem, URI of the folder)."""
    server_module = pytest.importorskip("moto.server")
    import pyarrow.fs as pafs

    for name, value in (
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ):
        monkeypatch.setenv(name, value)
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        options = (
            f"endpoint_override=http://{host}:{port}&region=us-east-1&allow_bucket_creation=true"
        )
        fs, _ = pafs.FileSystem.from_uri(f"s3://history?{options}")
        fs.create_dir("history")
        for name in LOGS:
            with fs.open_output_stream(f"history/spark-events/{name}") as out:
                out.write((fixture_log("spark-events") / name).read_bytes())
        with fs.open_output_stream("history/spark-events/README.txt") as out:
            out.write(b"not a log\n")
        yield fs, f"s3://history/spark-events?{options}"
    finally:
        server.stop()


def test_ingest_from_s3_reads_new_and_appended_logs_only(bucket, tmp_path):
    fs, uri = bucket
    store = tmp_path / "store"
    first = ingest([uri], store, workers=2)
    assert (first.read, first.failed, len(first.not_logs)) == (len(LOGS), [], 1)
    assert_same_log(
        load_log([fixture_log("spark-events") / n for n in sorted(LOGS)]), load_log([store])
    )

    again = ingest([uri], store, workers=2)
    assert (again.read, again.unchanged) == (0, len(LOGS) + 1)

    # a log still being written: first its opening half, then all of it (S3 objects are
    # rewritten whole when a writer appends)
    grown = fixture_log("spark-events/app-20161115172038-0000")
    lines = grown.read_bytes().splitlines(keepends=True)
    with fs.open_output_stream(f"history/spark-events/{grown.name}") as out:
        out.write(b"".join(lines[: len(lines) // 2]))
    assert ingest([uri], store, workers=2).read == 1
    half = load_log([store]).tasks
    with fs.open_output_stream(f"history/spark-events/{grown.name}") as out:
        out.write(grown.read_bytes())
    third = ingest([uri], store, workers=2)
    assert (third.read, third.unchanged) == (1, len(LOGS))
    assert len(half) < len(load_log([store]).tasks)
    assert_same_log(
        load_log([fixture_log("spark-events") / n for n in sorted(LOGS)]), load_log([store])
    )


def test_a_store_on_s3_answers_through_log(bucket):
    """``--log`` takes a store's URI as it takes a local store: ingest into the bucket, then
    ask perfx stragglers of it; the answer is the one of the logs themselves."""
    import json

    from click.testing import CliRunner

    from perfx.cli import cli

    _, uri = bucket
    path, options = uri.split("?", 1)
    store = f"{path.rsplit('/', 1)[0]}/store?{options}"
    assert ingest([uri], store, workers=1).read == len(LOGS)
    runner = CliRunner()
    from_store = runner.invoke(cli, ["stragglers", "--log", store, "--format", "json"])
    assert from_store.exit_code == 0, from_store.output
    logs = [arg for n in sorted(LOGS) for arg in ("--log", str(fixture_log("spark-events") / n))]
    from_logs = runner.invoke(cli, ["stragglers", *logs, "--format", "json"])
    assert json.loads(from_store.output)["stragglers"] == json.loads(from_logs.output)["stragglers"]
    assert json.loads(from_store.output)["by_cause"] == json.loads(from_logs.output)["by_cause"]
