"""A bug answers problem+json 500 and leaves the connection open, served by uvicorn.

Starlette's own last-resort handler answers the 500 and then raises the bug on to the
server, which closes the connection, so a client's next request on it was reset. The
app's own last resort answers inside the app instead: the next request on the same
connection is answered as usual.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from shiftsched.service.http.api import create_app
from shiftsched.service.settings import Settings
from tests.service.processes import free_port


async def _a_bug(request: Request) -> Response:
    raise RuntimeError("a bug")


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    home: Path = tmp_path_factory.mktemp("last-resort")
    settings = Settings(
        database_url=f"sqlite:///{home / 'store.db'}",
        jobs_db_path=str(home / "jobs.db"),
        solve_processes=1,
    )
    app = create_app(settings)
    app.router.routes.insert(0, Route("/a-bug", _a_bug, methods=["GET"]))
    chosen = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=chosen, log_level="critical")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the app did not start")
        time.sleep(0.05)
    yield chosen
    server.should_exit = True
    thread.join(timeout=30)


def _exchange(sock: socket.socket, path: str) -> bytes:
    """Send one keep-alive GET and read its whole answer (headers and body)."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65536)
        if not chunk:
            return received
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def test_a_bug_is_a_500_and_the_connection_serves_the_next_request(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        first = _exchange(sock, "/a-bug")
        assert first.startswith(b"HTTP/1.1 500")
        assert b"application/problem+json" in first
        assert b"internal-error" in first
        assert b"connection: close" not in first.lower()
        second = _exchange(sock, "/openapi.json")
        assert second.startswith(b"HTTP/1.1 200"), second[:200]
