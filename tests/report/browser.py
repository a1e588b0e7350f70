"""A page opened in headless Chromium, watched over the DevTools protocol: what it logged as an
error, every request it made, its DOM (through JavaScript) and a screenshot.

The protocol runs over Chromium's ``--remote-debugging-pipe`` (JSON messages ending in NUL on
file descriptors 3 and 4), so no WebSocket client is needed: Debian's ``chromium`` package and
the standard library are enough.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

TIMEOUT = 60.0
"""Seconds to wait for one answer or the page's load event."""


def chromium() -> str | None:
    """The Chromium binary on PATH (Debian's package installs ``chromium``)."""
    return next((p for n in ("chromium", "chromium-browser") if (p := shutil.which(n))), None)


@dataclass
class Page:
    """What a loaded page did: ``errors`` (console errors, uncaught exceptions, log entries of
    level error) and ``requests`` (every URL it asked for, itself included)."""

    url: str
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    _browser: Browser | None = None
    _session: str = ""

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-serialisable)."""
        result = self._browser.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True},
            self._session,
        )
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, width: int = 1100) -> None:
        """A PNG of the whole page, ``width`` CSS pixels wide."""
        height = int(self.evaluate("document.documentElement.scrollHeight"))
        self._browser.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            self._session,
        )
        shot = self._browser.call(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True},
            self._session,
        )
        path.write_bytes(base64.b64decode(shot["data"]))


def _above_nine(fd: int) -> int:
    """``fd`` moved above 9, so that placing the pipes at 3 and 4 overwrites neither."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class Browser:
    """One headless Chromium for the duration of a ``with`` block."""

    def __init__(self, binary: str):
        self._profile = tempfile.TemporaryDirectory(prefix="perfx-chromium-")
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()
        to_child, from_child = _above_nine(to_child), _above_nine(from_child)

        # The shell gives Chromium the pipes as its fds 3 (commands in) and 4 (answers out).
        self._process = subprocess.Popen(
            [
                "bash",
                "-c",
                f'exec "$@" 3<&{to_child} 4>&{from_child} {to_child}<&- {from_child}>&-',
                "bash",
                binary,
                "--headless",
                "--remote-debugging-pipe",
                "--no-sandbox",  # tests run as root in containers, where the sandbox cannot start
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                f"--user-data-dir={self._profile.name}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(to_child, from_child),
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict] = []

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._send("Browser.close", {}, None)
            self._process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            os.close(self._write)
            os.close(self._read)
            self._profile.cleanup()

    def _send(self, method: str, params: dict, session: str | None) -> int:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict, session: str | None = None) -> dict:
        """Send a command and wait for its answer (events meanwhile are kept)."""
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self._receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]
            self._events.append(message)

    def open(self, path: Path) -> Page:
        """Load ``path`` in a new tab and wait for its load event."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.call(f"{domain}.enable", {}, session)
        page = Page(path.resolve().as_uri(), _browser=self, _session=session)
        self._events.clear()
        self.call("Page.navigate", {"url": page.url}, session)
        deadline = time.monotonic() + TIMEOUT
        loaded = False
        while not loaded:
            while self._events:
                loaded |= self._record(page, self._events.pop(0))
            if not loaded:
                self._events.append(self._receive(deadline))
        self.call("Runtime.evaluate", {"expression": "1"}, session)  # flush pending events
        for event in self._events:
            self._record(page, event)
        self._events.clear()
        return page

    def _record(self, page: Page, event: dict) -> bool:
        """Note an event's error or request; True for the page's load event."""
        method, params = event.get("method"), event.get("params", {})
        if event.get("sessionId") != page._session:
            return False
        if method == "Network.requestWillBeSent":
            page.requests.append(params["request"]["url"])
        elif method == "Runtime.exceptionThrown":
            page.errors.append(params["exceptionDetails"].get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            page.errors.append(" ".join(str(a.get("value", "")) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            page.errors.append(params["entry"].get("text", ""))
        return method == "Page.loadEventFired"
