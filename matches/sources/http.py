"""The `http` source: the JSON feed of DESIGN.md section 5, read page by page.

``GET {url}?after={cursor}&limit={n}`` answers ``{"replays": [...], "next": cursor-or-null}``.
Each request has a connect and a read timeout; connection errors, timeouts, 5xx/408/429
answers, truncated bodies and pages that are not a feed page are retried with
exponential backoff and jitter. Pages are followed until the feed is drained or the
per-run cap is reached. A page that still fails after the last attempt ends the run
with the error; the cursor stays at the last stored page, so the next run reads the
failed page again and nothing is skipped.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from http.client import HTTPConnection, HTTPException, HTTPResponse, HTTPSConnection
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from matches.models import IngestRun, ReplaySource
from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import IngestResult
from matches.sources.base import store_page

USER_AGENT = "ratingsite-replay-puller/1"
MAX_CURSOR_LENGTH = ReplaySource._meta.get_field("cursor").max_length
_READ_BYTES = 256 * 1024


@dataclass(frozen=True)
class HttpSettings:
    url: str
    page_size: int = 1000
    max_replays: int = 50_000  # per run: a run ends after the page that reaches it
    connect_timeout: float = 5.0
    read_timeout: float = 30.0  # seconds without a byte from the feed
    attempts: int = 4  # per page, the first one included
    backoff: float = 1.0  # seconds before the second attempt; doubles up to max_backoff
    max_backoff: float = 30.0
    max_page_bytes: int = 64 * 1024 * 1024

    def validate(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"url must be an http:// or https:// address, not {self.url!r}")
        positive = ("page_size", "max_replays", "connect_timeout", "read_timeout", "attempts")
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive")
        if self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("backoff and max_backoff must not be negative")


class FeedError(Exception):
    """A page could not be read; ``retryable`` when another attempt may succeed."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


@dataclass(frozen=True)
class FeedPage:
    replays: list
    next: str | None


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


def _get(settings: HttpSettings, url: str) -> bytes:
    parts = urlsplit(url)
    connection_class = HTTPSConnection if parts.scheme == "https" else HTTPConnection
    connection = connection_class(parts.hostname, parts.port, timeout=settings.connect_timeout)
    try:
        connection.connect()
        connection.sock.settimeout(settings.read_timeout)
        target = urlunsplit(("", "", parts.path or "/", parts.query, ""))
        connection.request(
            "GET", target, headers={"Accept": "application/json", "User-Agent": USER_AGENT}
        )
        response = connection.getresponse()
        body = _read_body(response, settings.max_page_bytes)
    finally:
        connection.close()
    if response.status != 200:
        retryable = response.status >= 500 or response.status in (408, 429)
        raise FeedError(f"HTTP {response.status} {response.reason}", retryable=retryable)
    return body


def _parse(body: bytes) -> FeedPage:
    try:
        document = json.loads(body)
    except ValueError as error:  # UnicodeDecodeError included
        raise FeedError(f"invalid JSON: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get("replays"), list):
        raise FeedError('not a feed page: expected {"replays": [...], "next": ...}')
    next_cursor = document.get("next")
    if next_cursor is not None:
        if isinstance(next_cursor, bool) or not isinstance(next_cursor, str | int):
            raise FeedError(f"invalid next cursor {next_cursor!r}")
        next_cursor = str(next_cursor)
        if len(next_cursor) > MAX_CURSOR_LENGTH:
            raise FeedError(f"next cursor longer than {MAX_CURSOR_LENGTH} characters")
    return FeedPage(document["replays"], next_cursor)


def fetch_page(settings: HttpSettings, after: str) -> FeedPage:
    """One page after ``after``, retried with backoff; raises FeedError once it gives up."""
    url = page_url(settings.url, after, settings.page_size)
    for attempt in range(settings.attempts):
        try:
            return _parse(_get(settings, url))
        except FeedError as error:
            if not error.retryable:
                raise
            failure = error
        except (OSError, HTTPException) as error:  # timeouts, refused, reset, closed early
            failure = FeedError(f"{type(error).__name__}: {error}")
        if attempt + 1 < settings.attempts:
            time.sleep(backoff_delay(settings, attempt))
    raise FeedError(f"{failure} (gave up after {settings.attempts} attempts)")


def pull(source: ReplaySource, settings: HttpSettings, run: IngestRun, result: IngestResult) -> str:
    while result.read < settings.max_replays:
        after = source.cursor
        try:
            page = fetch_page(settings, after)
        except FeedError as error:
            return f"page after {after!r}: {error}"
        if not page.replays:
            return ""
        result.add(
            store_page(
                source=source,
                run=run,
                replays=iter_replay_payloads(page.replays),
                after=after,
                next_cursor=page.next,
            )
        )
        if page.next is None or page.next == after:
            return ""
    return ""
