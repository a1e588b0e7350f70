"""HTTP GETs of JSON from Spark's monitoring REST API: retries, timeouts, extra headers, and
one readable line for every way the server can fail.

The standard library's urllib is enough here (plain GETs of JSON, no sessions, no streaming):
no HTTP dependency is added for it.
"""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import LogError

RETRIED_STATUS = frozenset({429, 502, 503, 504})
"""Answers that say "try again": a busy server or a proxy in front of one still starting."""


class RestError(LogError):
    """The REST API could not be read: unreachable, refused, unauthorised, or not Spark's."""


def is_rest_url(source: object) -> bool:
    """Whether ``source`` names a Spark REST endpoint (``http://`` or ``https://``)."""
    return isinstance(source, str) and source.lower().startswith(("http://", "https://"))


@dataclass(frozen=True)
class RestAccess:
    """How to reach the server: extra headers (a token for the proxy in front of a History
    Server), the seconds to wait for each answer, and how often to retry one that failed for
    a reason that may pass (a timeout, a reset connection, 429/502/503/504)."""

    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 30.0
    retries: int = 3
    backoff: float = 0.5
    """Seconds before the first retry; doubled before each next one."""


def parse_header(text: str) -> tuple[str, str]:
    """``"Name: value"`` -> (name, value); a ValueError naming the text otherwise."""
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise ValueError(f"header {text!r} is not NAME: VALUE")
    return name.strip(), value.strip()


def _urlopen(request: Any, timeout: float) -> Any:
    """urllib's ``urlopen``, imported on first use: its HTTP and TLS stack (``ssl``,
    ``http.client``) costs a command that reads no REST API 6 ms and 3 MB."""
    from urllib.request import urlopen

    return urlopen(request, timeout=timeout)


class RestClient:
    """GETs of ``/api/v1/...`` below ``base`` (``http://host:18080``, with or without a path
    prefix of a proxy), decoded from JSON."""

    def __init__(self, base: str, access: RestAccess | None = None):
        self.base = base.rstrip("/")
        self.access = access or RestAccess()

    def url(self, path: str, params: Mapping[str, object] | None = None) -> str:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        return f"{self.base}/api/v1/{path.lstrip('/')}{query}"

    def get(self, path: str, params: Mapping[str, object] | None = None) -> Any:
        """The JSON at ``path``; RestError (one line, naming the address) when it cannot be had."""
        import socket  # with urllib's errors, on first use, as ``_urlopen``: 10 ms
        import urllib.error
        from urllib.request import Request

        url = self.url(path, params)
        request = Request(url, headers={"Accept": "application/json", **self.access.headers})
        delay = self.access.backoff
        for attempt in range(self.access.retries + 1):
            last = attempt == self.access.retries
            try:
                with _urlopen(request, timeout=self.access.timeout) as response:
                    body = response.read()
                break
            except urllib.error.HTTPError as err:
                if err.code in RETRIED_STATUS and not last:
                    time.sleep(delay)
                    delay *= 2
                    continue
                raise RestError(_http_error(url, err.code, err.reason)) from None
            except (urllib.error.URLError, OSError) as err:
                reason = err.reason if isinstance(err, urllib.error.URLError) else err
                if isinstance(reason, ConnectionRefusedError):
                    raise RestError(
                        f"{self.base}: connection refused (is the server running?)"
                    ) from None
                if isinstance(reason, socket.gaierror):
                    raise RestError(f"{self.base}: unknown host") from None
                if last:
                    why = "timed out" if isinstance(reason, TimeoutError) else str(reason)
                    tries = self.access.retries + 1
                    raise RestError(f"{url}: {why} ({tries} tries)") from None
                time.sleep(delay)
                delay *= 2
        try:
            return json.loads(body)
        except ValueError:
            raise RestError(f"{url}: the answer is not JSON (not Spark's REST API?)") from None


def _http_error(url: str, code: int, reason: object) -> str:
    """One line for an HTTP error status, with a hint where the user can do something."""
    hint = {
        401: " (the server wants credentials: --header 'Authorization: ...')",
        403: " (the server refused these credentials: check --header)",
        404: " (no such application, or not Spark's REST API)",
    }.get(code, "")
    return f"{url}: HTTP {code} {reason}{hint}"
