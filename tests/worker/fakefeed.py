"""A replay feed on 127.0.0.1 that misbehaves on request, for the `http` source's fault tests."""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

FAULTS = ("500", "404", "hang", "close", "invalid_json", "truncated", "not_a_page")


class FakeFeed:
    """Serves ``replays`` in pages (cursor = index); ``fail(after, fault, times)`` makes the
    next ``times`` requests for that page answer with ``fault`` instead."""

    def __init__(self, replays: list) -> None:
        self.replays = replays
        self.requests: list[str] = []  # the `after` of every request, in order
        self._faults: dict[str, list[str]] = defaultdict(list)
        self._released = threading.Event()  # ends hanging requests at shutdown
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/feed"

    def fail(self, after: str, fault: str, times: int = 1) -> None:
        assert fault in FAULTS, fault
        self._faults[after] += [fault] * times

    def close(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()

    def page(self, after: str, limit: int) -> dict:
        start = int(after or 0)
        replays = self.replays[start : start + limit]
        return {"replays": replays, "next": str(start + len(replays)) if replays else None}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        feed = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                query = parse_qs(urlsplit(self.path).query, keep_blank_values=True)
                after, limit = query["after"][0], int(query["limit"][0])
                feed.requests.append(after)
                faults = feed._faults[after]
                fault = faults.pop(0) if faults else None
                body = json.dumps(feed.page(after, limit)).encode()
                if fault == "close":
                    return  # no answer at all: the connection just closes
                if fault == "hang":
                    feed._released.wait(timeout=30)
                    return
                if fault in ("500", "404"):
                    self._answer(int(fault), b'{"error": "as asked"}')
                elif fault == "invalid_json":
                    self._answer(200, body[: len(body) // 2])
                elif fault == "not_a_page":
                    self._answer(200, b'["not", "a", "page"]')
                elif fault == "truncated":  # promises more than it sends, then closes
                    self._answer(200, body[: len(body) // 2], length=len(body))
                else:
                    self._answer(200, body)

            def _answer(self, status: int, body: bytes, length: int | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body) if length is None else length))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
