"""A webhook receiver on loopback that takes every connection and never answers, until
told to: the worst receiver a sender meets (a hung application server behind an open
port), and the one the ``push`` benchmark points an endpoint at.

It reads what the sender writes, so a request sits on no socket buffer, and counts the
connections it holds, so a run can show the sender was stuck on it while it measured.
Once :meth:`HangingReceiver.answer` is called it answers every request 200, held ones
first, so the outbox drains before its endpoint is removed.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from types import TracebackType

_OK = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class HangingReceiver:
    """Accepts connections on 127.0.0.1 and holds them open without a byte of answer."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=128)
        self._listener.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._buffers: dict[socket.socket, bytes] = {}
        self._lock = threading.Lock()
        self._answering = False
        self._closed = threading.Event()
        self.accepted = 0
        self.answered = 0
        self._thread = threading.Thread(target=self._run, name="hanging-receiver", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/hook"

    def held(self) -> int:
        """Connections open now that got no answer."""
        with self._lock:
            return len(self._buffers)

    def answer(self, answering: bool = True) -> None:
        """From now on answer each complete request 200 (held ones at the next turn)."""
        with self._lock:
            self._answering = answering

    def _run(self) -> None:
        while not self._closed.is_set():
            for key, _ in self._selector.select(timeout=0.05):
                if key.fileobj is self._listener:
                    self._accept()
                else:
                    self._read(key.fileobj)  # type: ignore[arg-type]
            self._answer_complete()

    def _accept(self) -> None:
        try:
            connection, _ = self._listener.accept()
        except BlockingIOError:
            return
        connection.setblocking(False)
        self._selector.register(connection, selectors.EVENT_READ)
        with self._lock:
            self._buffers[connection] = b""
            self.accepted += 1

    def _read(self, connection: socket.socket) -> None:
        try:
            data = connection.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the sender gave up (its timeout) or closed
            self._drop(connection)
            return
        with self._lock:
            self._buffers[connection] += data

    def _answer_complete(self) -> None:
        with self._lock:
            if not self._answering:
                return
            ready = [c for c, data in self._buffers.items() if _complete(data)]
        for connection in ready:
            with contextlib.suppress(OSError):  # the sender may have given up already
                connection.sendall(_OK)
            self._drop(connection)
            with self._lock:
                self.answered += 1

    def _drop(self, connection: socket.socket) -> None:
        self._selector.unregister(connection)
        connection.close()
        with self._lock:
            self._buffers.pop(connection, None)

    def close(self) -> None:
        self._closed.set()
        self._thread.join()
        for connection in list(self._buffers):
            self._drop(connection)
        self._selector.close()
        self._listener.close()

    def __enter__(self) -> HangingReceiver:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def _complete(data: bytes) -> bool:
    """Whether ``data`` holds a whole request: its headers and ``Content-Length`` bytes."""
    head, found, body = data.partition(b"\r\n\r\n")
    if not found:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value.strip() or 0)
    return True
