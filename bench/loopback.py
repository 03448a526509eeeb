"""A feed server on 127.0.0.1 for tests and benchmarks: the one place that starts and stops one."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackFeedServer:
    """Serves the handler of ``_handler()`` on a free port of 127.0.0.1 in a daemon thread.

    ``_released`` is set at ``close()``: handlers that hang or drip on purpose wait on it,
    so a closing test or benchmark never waits for them.
    """

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    def _start(self) -> None:
        self._released = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/feed"

    def close(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()
