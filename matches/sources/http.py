"""The `http` source: the JSON feed of docs/replay-format.md#the-http-feed, read page by page.

``GET {url}?after={cursor}&limit={n}`` answers ``{"replays": [...], "next": cursor-or-null}``.
Each request has a connect timeout, a read timeout per socket read and a wall-clock
deadline for the whole page (connect, headers and body), so a feed that drips its
answer a byte at a time fails like one that hangs; a run has a deadline too, so one
slow source cannot starve the sources pulled after it. Connection errors, timeouts,
5xx/408/429 answers, truncated bodies and pages that are not a feed page are retried
with exponential backoff and jitter. Pages are followed until the feed is drained or
the run's cap (replays or seconds) is reached; an empty page that names a next cursor
moves the cursor and is followed too. A page that still fails after the last attempt
ends the run with the error; the cursor stays at the last stored page, so the next
run reads the failed page again and nothing is skipped.
"""

from __future__ import annotations

import io
import random
import socket
import time
from dataclasses import dataclass
from http.client import HTTPConnection, HTTPException, HTTPResponse, HTTPSConnection
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from matches.models import IngestRun, ReplaySource
from matches.services.ingest import IngestResult
from matches.sources.base import store_page
from matches.sources.feed_pages import FeedError, FeedPage, parse_page

USER_AGENT = "ratingsite-replay-puller/1"
_READ_BYTES = 256 * 1024
# Empty pages in a row that a run follows before it stops: a feed that only ever moves
# its cursor must not keep a run busy (the next run goes on from where this one stopped).
MAX_EMPTY_PAGES = 100


@dataclass(frozen=True)
class HttpSettings:
    url: str
    page_size: int = 1000
    max_replays: int = 50_000  # per run: a run ends after the page that reaches it
    max_seconds: float = 300.0  # per run: no page is started, nor retried, past it
    connect_timeout: float = 5.0
    read_timeout: float = 30.0  # seconds without a byte from the feed
    page_timeout: float = 60.0  # seconds for one request: connect, headers and body
    attempts: int = 4  # per page, the first one included
    backoff: float = 1.0  # seconds before the second attempt; doubles up to max_backoff
    max_backoff: float = 30.0
    max_page_bytes: int = 64 * 1024 * 1024

    def validate(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"url must be an http:// or https:// address, not {self.url!r}")
        positive = (
            "page_size",
            "max_replays",
            "max_seconds",
            "connect_timeout",
            "read_timeout",
            "page_timeout",
            "attempts",
        )
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive")
        if self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("backoff and max_backoff must not be negative")


@dataclass(frozen=True)
class Deadline:
    """A point in time (``time.monotonic()``) and the error that passing it raises."""

    at: float
    message: str
    retryable: bool

    @classmethod
    def after(cls, seconds: float, message: str, *, retryable: bool = True) -> Deadline:
        return cls(time.monotonic() + seconds, message, retryable)

    def remaining(self) -> float:
        return max(self.at - time.monotonic(), 0.0)

    def left(self) -> float:
        """Seconds left; raises the deadline's FeedError when none are."""
        if not (left := self.remaining()):
            raise self.expired()
        return left

    def expired(self) -> FeedError:
        return FeedError(self.message, retryable=self.retryable)


def page_url(base: str, after: str, limit: int) -> str:
    parts = urlsplit(base)
    query = [
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if key not in ("after", "limit")
    ]
    query += [("after", after), ("limit", str(limit))]
    return urlunsplit(parts._replace(query=urlencode(query)))


def backoff_delay(settings: HttpSettings, attempt: int) -> float:
    """Seconds to wait after failed attempt ``attempt`` (from 0): half fixed, half jitter."""
    ceiling = min(settings.max_backoff, settings.backoff * 2**attempt)
    return ceiling / 2 + random.uniform(0, ceiling / 2)


class _DeadlineStream(io.RawIOBase):
    """The socket of a response, read with the read timeout but never past the deadline:
    http.client reads the status line, headers and body through it, each socket read
    waiting at most the time that is left."""

    def __init__(self, sock: socket.socket, read_timeout: float, deadline: Deadline) -> None:
        self._sock, self._read_timeout, self._deadline = sock, read_timeout, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        timeout = min(self._read_timeout, self._deadline.left())
        self._sock.settimeout(timeout)
        try:
            return self._sock.recv_into(buffer)
        except TimeoutError:
            if timeout < self._read_timeout:  # the deadline's wait ran out, not the read's
                raise self._deadline.expired() from None
            raise

    def makefile(self, mode: str) -> io.BufferedReader:  # HTTPResponse reads from this
        return io.BufferedReader(self)


def _read_body(response: HTTPResponse, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := response.read(_READ_BYTES):
        size += len(chunk)
        if size > limit:
            raise FeedError(f"page larger than {limit} bytes", retryable=False)
        chunks.append(chunk)
    if response.length:  # Content-Length promised more than arrived before the close
        raise FeedError(f"truncated page: {response.length} of {size + response.length} bytes")
    return b"".join(chunks)


def _get(settings: HttpSettings, url: str, deadline: Deadline) -> bytes:
    parts = urlsplit(url)
    connection_class = HTTPSConnection if parts.scheme == "https" else HTTPConnection
    timeout = min(settings.connect_timeout, deadline.left())  # the TLS handshake included
    connection = connection_class(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.connect()
        connection.sock.settimeout(min(settings.read_timeout, deadline.left()))
        target = urlunsplit(("", "", parts.path or "/", parts.query, ""))
        connection.request(
            "GET", target, headers={"Accept": "application/json", "User-Agent": USER_AGENT}
        )
        response = HTTPResponse(
            _DeadlineStream(connection.sock, settings.read_timeout, deadline),  # type: ignore[arg-type]
            method="GET",
        )
        response.begin()
        body = _read_body(response, settings.max_page_bytes)
    finally:
        connection.close()
    if response.status != 200:
        retryable = response.status >= 500 or response.status in (408, 429)
        raise FeedError(f"HTTP {response.status} {response.reason}", retryable=retryable)
    return body


def fetch_page(settings: HttpSettings, after: str, run_deadline: Deadline) -> FeedPage:
    """One page after ``after``, retried with backoff while the run has time; raises
    FeedError once it gives up."""
    url = page_url(settings.url, after, settings.page_size)
    for attempt in range(settings.attempts):
        if settings.page_timeout < run_deadline.left():
            deadline = Deadline.after(
                settings.page_timeout, f"page took longer than {settings.page_timeout:g} s"
            )
        else:
            deadline = run_deadline
        try:
            return parse_page(_get(settings, url, deadline))
        except FeedError as error:
            if not error.retryable:
                raise
            failure = error
        except (OSError, HTTPException) as error:  # timeouts, refused, reset, closed early
            failure = FeedError(f"{type(error).__name__}: {error}")
        if attempt + 1 < settings.attempts:
            time.sleep(min(backoff_delay(settings, attempt), run_deadline.remaining()))
    raise FeedError(f"{failure} (gave up after {settings.attempts} attempts)")


def pull(source: ReplaySource, settings: HttpSettings, run: IngestRun, result: IngestResult) -> str:
    run_deadline = Deadline.after(
        settings.max_seconds,
        f"the run took longer than max_seconds ({settings.max_seconds:g} s)",
        retryable=False,
    )
    empty_pages = 0
    while result.read < settings.max_replays and run_deadline.remaining():
        after = source.cursor
        try:
            page = fetch_page(settings, after, run_deadline)
        except FeedError as error:
            return f"page after {after!r}: {error}"
        moves = page.next is not None and page.next != after  # else the feed is drained
        if page.replays or moves:
            result.add(
                store_page(
                    source=source,
                    run=run,
                    replays=page.replays,
                    after=after,
                    next_cursor=page.next,
                )
            )
        if not moves:
            return ""
        empty_pages = 0 if page.replays else empty_pages + 1
        if empty_pages >= MAX_EMPTY_PAGES:
            return f"stopped after {MAX_EMPTY_PAGES} empty pages in a row, at cursor {page.next!r}"
    return ""
