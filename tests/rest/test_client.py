"""The REST client against a small local HTTP server: retries of answers that may pass,
headers sent on every request, and one readable line for each way a server fails."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from perfx.logs.rest.client import RestAccess, RestClient, RestError, parse_header

FAST = {"backoff": 0.01}


@pytest.fixture
def server():
    """A server answering each GET with the next of ``answers`` (status, body), recording
    the requests' paths and headers."""
    state: dict = {"answers": [], "requests": []}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            state["requests"].append((self.path, dict(self.headers)))
            status, body = state["answers"].pop(0) if state["answers"] else (200, b"[]")
            self.send_response(status)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() waits for the serving loop's next poll: 0.5 s by default, at every test
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield state
    httpd.shutdown()
    httpd.server_close()


def test_a_busy_server_is_asked_again_with_the_headers(server):
    server["answers"] = [(503, b"busy"), (502, b"proxy"), (200, json.dumps([{"id": "a"}]).encode())]
    access = RestAccess(headers={"Authorization": "Bearer t0k"}, **FAST)
    assert RestClient(server["url"], access).get("applications", {"status": "completed"}) == [
        {"id": "a"}
    ]
    assert len(server["requests"]) == 3
    path, headers = server["requests"][-1]
    assert path == "/api/v1/applications?status=completed"
    assert headers["Authorization"] == "Bearer t0k"


def test_retries_end_in_one_line(server):
    server["answers"] = [(503, b"")] * 3
    with pytest.raises(RestError) as caught:
        RestClient(server["url"], RestAccess(retries=2, **FAST)).get("applications")
    assert str(caught.value) == f"{server['url']}/api/v1/applications: HTTP 503 Service Unavailable"
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "status, hint", [(401, "--header 'Authorization"), (403, "check --header"), (404, "no such")]
)
def test_errors_a_user_can_fix_say_how(server, status, hint):
    server["answers"] = [(status, b"")]
    with pytest.raises(RestError, match=hint):
        RestClient(server["url"], RestAccess(**FAST)).get("applications")
    assert len(server["requests"]) == 1  # not retried


def test_an_answer_that_is_not_json_is_named(server):
    server["answers"] = [(200, b"<html>login</html>")]
    with pytest.raises(RestError, match="not JSON"):
        RestClient(server["url"], RestAccess(**FAST)).get("applications")


def test_a_server_that_does_not_answer_times_out():
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts the connection, never answers
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        with pytest.raises(RestError, match=r"timed out \(2 tries\)"):
            RestClient(url, RestAccess(timeout=0.2, retries=1, **FAST)).get("applications")
    finally:
        listener.close()


def test_headers_are_name_colon_value():
    assert parse_header("Authorization: Bearer a:b") == ("Authorization", "Bearer a:b")
    with pytest.raises(ValueError, match="NAME: VALUE"):
        parse_header("no colon")
