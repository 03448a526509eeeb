"""A simulated league served over HTTP in the feed format of docs/replay-format.md#the-http-feed.

``GET /?after={cursor}&limit={n}`` answers ``{"replays": [...], "next": cursor-or-null}``
with the games played up to now after game ``cursor`` (a game index); ``next`` is
null when no new game has been played yet. It stands in for the game's servers in
development, in the tests of the `http` source and in ``bench.live``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from django.utils import timezone

from matches.simulation.league import LeagueSimulator

MAX_LIMIT = 10_000
DEFAULT_LIMIT = 1000


class LeagueFeed:
    """Pages of a league's games, for any number of concurrent readers."""

    def __init__(
        self, simulator: LeagueSimulator, clock: Callable[[], datetime] = timezone.now
    ) -> None:
        self.simulator = simulator
        self.clock = clock
        self._lock = threading.Lock()

    def page(self, after: int, limit: int) -> dict:
        with self._lock:
            if self.simulator.position != after:
                self.simulator.seek(after)
            games = self.simulator.games_until(self.clock(), min(limit, MAX_LIMIT))
        return {"replays": games, "next": str(after + len(games)) if games else None}


def _handler(feed: LeagueFeed, *, log: bool) -> type[BaseHTTPRequestHandler]:
    class FeedHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path != "/":
                self._send(HTTPStatus.NOT_FOUND, {"error": "the feed is at /"})
                return
            query = parse_qs(url.query)
            try:
                after = int((query.get("after") or ["0"])[0] or 0)
                limit = int((query.get("limit") or [str(DEFAULT_LIMIT)])[0])
                if after < 0 or limit < 1:
                    raise ValueError
            except ValueError:
                self._send(HTTPStatus.BAD_REQUEST, {"error": "after and limit are counts"})
                return
            self._send(HTTPStatus.OK, feed.page(after, limit))

        def _send(self, status: HTTPStatus, document: dict) -> None:
            body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            if log:
                super().log_message(format, *args)

    return FeedHandler


def feed_server(feed: LeagueFeed, port: int, *, log: bool = False) -> ThreadingHTTPServer:
    """A server for ``feed`` on 127.0.0.1 (port 0 picks a free one); call serve_forever()."""
    server = ThreadingHTTPServer(("127.0.0.1", port), _handler(feed, log=log))
    server.daemon_threads = True
    return server
