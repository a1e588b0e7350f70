"""A real Spark History Server, started from the pyspark installation on a folder of event
logs: the oracle of the REST source (its answers are Spark's own replay of those logs)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

STARTUP_SECONDS = 180
"""How long a loaded two-core machine may take to start the JVM and replay the logs."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _applications(url: str) -> list[dict]:
    try:
        with urllib.request.urlopen(f"{url}/api/v1/applications", timeout=5) as answer:
            return json.load(answer)
    except (OSError, ValueError):  # not up yet, or another server's page on that port
        return []


@contextmanager
def history_server(
    logs: Sequence[Path], folder: Path, expected: int, heap: str = "768m"
) -> Iterator[str]:
    """The URL of a History Server replaying copies of ``logs`` (in ``folder``), once it
    lists ``expected`` applications; stopped on exit. ``heap``: its JVM's -Xmx (a log of
    10^5 tasks needs gigabytes)."""
    import pyspark

    spark_home = Path(pyspark.__file__).parent
    events = folder / "events"
    events.mkdir()
    for log in logs:
        copy = shutil.copytree if log.is_dir() else shutil.copy
        copy(log, events / log.name)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with open(folder / "history-server.log", "wb") as output:
        server = subprocess.Popen(
            [
                "java",
                f"-Xmx{heap}",
                "-cp",
                f"{spark_home / 'jars'}/*",
                f"-Dspark.history.fs.logDirectory={events.as_uri()}",
                f"-Dspark.history.ui.port={port}",
                # on the port it was given or not at all: Spark moves a taken port to the
                # next one, where the tests' own Spark UI may be answering instead
                "-Dspark.port.maxRetries=0",
                "-Dspark.ui.bindAddress=127.0.0.1",
                "-Dspark.history.fs.update.interval=1s",
                "org.apache.spark.deploy.history.HistoryServer",
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while len(_applications(url)) < expected:
            if server.poll() is not None or time.monotonic() > deadline:
                tail = (folder / "history-server.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"the History Server did not list {expected} apps:\n{tail}")
            time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
