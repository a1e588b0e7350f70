"""A real Apache Ignite server node for the Ignite lineage store's tests and benchmark.

The node is ``ignite-core`` (the version tests/ignite/pom.xml names, fetched by Maven into
``~/.m2``) run by a small launcher class (``TestNode.java``, compiled by Maven into
``tests/ignite/target``) that configures it in code: the thin-client connector, discovery and
communication on free loopback ports, discovery finding no other node (nodes of tests run side
by side never join each other), no peer class loading, a small data region. The JVM gets the
options Ignite documents for Java 17. ``./dev setup`` builds it ahead; ``start`` builds it when
the build is missing or older than its sources.

``start`` returns once a thin client can connect; ``IgniteNode.stop`` closes the launcher's
standard input, on which it stops the node, and ``kill`` ends it at once (a node that dies)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
POM = HERE / "pom.xml"
SOURCE = HERE / "src" / "main" / "java" / "perfx" / "ignite" / "TestNode.java"
TARGET = HERE / "target"
CLASSES = TARGET / "classes"
CLASSPATH = TARGET / "classpath.txt"
MAIN = "perfx.ignite.TestNode"
READY = "perfx-ignite-ready"
START_TIMEOUT_S = 90

JAVA_17_OPTIONS = [
    # https://ignite.apache.org/docs/latest/quick-start/java, "Running Ignite with Java 11 or
    # later", the Java 17 list.
    "--add-opens=java.base/jdk.internal.access=ALL-UNNAMED",
    "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
    "--add-opens=java.management/com.sun.jmx.mbeanserver=ALL-UNNAMED",
    "--add-opens=jdk.internal.jvmstat/sun.jvmstat.monitor=ALL-UNNAMED",
    "--add-opens=java.base/sun.reflect.generics.reflectiveObjects=ALL-UNNAMED",
    "--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.net=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
    "--add-opens=java.base/java.math=ALL-UNNAMED",
    "--add-opens=java.sql/java.sql=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.time=ALL-UNNAMED",
    "--add-opens=java.base/java.text=ALL-UNNAMED",
    "--add-opens=java.management/sun.management=ALL-UNNAMED",
    "--add-opens=java.desktop/java.awt.font=ALL-UNNAMED",
]
QUIET = [
    "-DIGNITE_QUIET=true",
    "-DIGNITE_UPDATE_NOTIFIER=false",
    "-DIGNITE_PERFORMANCE_SUGGESTIONS_DISABLED=true",
    "-Djava.net.preferIPv4Stack=true",
]


class NodeUnavailable(Exception):
    """Why no node could be started here (no Java or Maven, a failed build or start)."""


def build() -> str:
    """The launcher's class path, building it with Maven if it is missing or stale."""
    built = CLASSPATH.is_file() and (CLASSES / "perfx" / "ignite" / "TestNode.class").is_file()
    newest = max(POM.stat().st_mtime, SOURCE.stat().st_mtime)
    if not built or CLASSPATH.stat().st_mtime < newest:
        if shutil.which("mvn") is None:
            raise NodeUnavailable(
                "Maven (mvn) is not installed: the Ignite tests build their node with it "
                "(apt-get install maven, or set PERFX_IGNITE_HOST to an Ignite node)"
            )
        done = subprocess.run(
            [
                "mvn",
                "-B",
                "-q",
                "-f",
                str(POM),
                "compile",
                "dependency:build-classpath",
                f"-Dmdep.outputFile={CLASSPATH}",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
            raise NodeUnavailable(f"mvn could not build the Ignite node: {' | '.join(tail)}")
        CLASSPATH.touch()  # mvn leaves an unchanged class path file as it was
    return f"{CLASSES}{os.pathsep}{CLASSPATH.read_text().strip()}"


def free_ports(count: int) -> list[int]:
    """``count`` loopback ports nothing listens on now."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


@dataclass
class IgniteNode:
    """A started node: its process, its ports (client, discovery, communication), its work
    folder and the file its output goes to."""

    process: subprocess.Popen
    ports: tuple[int, int, int]
    work: Path
    log: Path

    @property
    def port(self) -> int:
        return self.ports[0]

    @property
    def url(self) -> str:
        return f"ignite://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stops the node as its launcher does on end of input (killed if it hangs)."""
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def kill(self) -> None:
        """Ends the node at once, as a crash would (its sockets close when it exits)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


def start(
    work: Path,
    *,
    persistent: bool = False,
    ports: tuple[int, int, int] | None = None,
    max_mb: int = 1024,
) -> IgniteNode:
    """Starts one node with its work files (and, ``persistent``, its caches) in ``work``; on
    ``ports`` (a stopped node's, to restart it) or on free ones. Raises NodeUnavailable."""
    if shutil.which("java") is None:
        raise NodeUnavailable("Java is not installed: the Ignite node is a JVM")
    classpath = build()
    work.mkdir(parents=True, exist_ok=True)
    client, discovery, communication = ports or tuple(free_ports(3))
    log = work / "node.log"
    before = log.stat().st_size if log.exists() else 0  # a restarted node's log goes on
    command = [
        "java",
        *JAVA_17_OPTIONS,
        *QUIET,
        "-Xms256m",
        "-Xmx512m",
        "-cp",
        classpath,
        MAIN,
        str(client),
        str(discovery),
        str(communication),
        str(work),
        str(max_mb),
        *(["persistent"] if persistent else []),
    ]
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, cwd=work
        )
    node = IgniteNode(process, (client, discovery, communication), work, log)
    deadline = time.monotonic() + START_TIMEOUT_S
    while READY not in _read(log, before):
        if process.poll() is not None or time.monotonic() > deadline:
            node.kill()
            tail = _read(log, before).strip().splitlines()[-5:]
            raise NodeUnavailable(f"the Ignite node did not start: {' | '.join(tail)}")
        time.sleep(0.2)
    return node


def _read(log: Path, offset: int) -> str:
    with log.open("rb") as handle:
        handle.seek(offset)
        return handle.read().decode(errors="replace")


if __name__ == "__main__":  # ./dev setup: build the node ahead, or say why it cannot be
    import sys

    try:
        build()
    except NodeUnavailable as err:
        print(f"the Ignite tests cannot start their node: {err}", file=sys.stderr)
