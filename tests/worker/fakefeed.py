"""A replay feed on 127.0.0.1 that misbehaves on request, for the `http` source's fault tests."""

from __future__ import annotations

import json
from collections import defaultdict
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from bench.loopback import LoopbackFeedServer

FAULTS = ("500", "404", "hang", "close", "invalid_json", "truncated", "not_a_page", "drip")


class FakeFeed(LoopbackFeedServer):
    """Serves ``replays`` in pages (cursor = index; a None in ``replays`` is a gap, a replay
    the feed no longer serves, so a page can be empty and still name a next cursor);
    ``fail(after, fault, times)`` makes the next ``times`` requests for that page answer
    with ``fault`` instead, ``answer(after, body, times)`` with ``body`` as it is."""

    def __init__(self, replays: list, drip_seconds: float = 0.05) -> None:
        self.replays = replays
        self.drip_seconds = drip_seconds  # between two bytes of a "drip" answer
        self.requests: list[str] = []  # the `after` of every request, in order
        self._faults: dict[str, list[str | bytes]] = defaultdict(list)
        self._start()

    def fail(self, after: str, fault: str, times: int = 1) -> None:
        assert fault in FAULTS, fault
        self._faults[after] += [fault] * times

    def answer(self, after: str, body: bytes, times: int = 1) -> None:
        self._faults[after] += [body] * times

    def page(self, after: str, limit: int) -> dict:
        start = int(after or 0)
        window = self.replays[start : start + limit]
        replays = [replay for replay in window if replay is not None]
        return {"replays": replays, "next": str(start + len(window)) if window else None}

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
                if isinstance(fault, bytes):
                    self._answer(200, fault)
                elif fault == "drip":
                    self._drip(body)
                elif fault == "close":
                    return  # no answer at all: the connection just closes
                elif fault == "hang":
                    feed._released.wait(timeout=30)
                elif fault in ("500", "404"):
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

            def _drip(self, body: bytes) -> None:
                """The whole answer, status line and headers included, a byte at a time."""
                head = (
                    f"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n"
                ).encode()
                try:
                    for byte in head + body:
                        if feed._released.wait(timeout=feed.drip_seconds):
                            return
                        self.wfile.write(bytes([byte]))
                except OSError:  # the client gave up
                    return

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
