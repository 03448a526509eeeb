"""Prometheus metrics (docs/monitoring.md): the process counters and histograms, and the
/metrics view that exposes them with the gauges read from the database at scrape time.

With PROMETHEUS_MULTIPROC_DIR set (gunicorn's workers, Celery's worker and its children on
one machine), every process writes its samples to files in that folder and /metrics adds
them up (prometheus-client's multiprocess mode); unset, /metrics shows this process's own.
The apps add their scrape-time collectors with `add_scrape_collector` (web imports no app).
"""

from __future__ import annotations

import atexit
import hmac
import ipaddress
import os
import threading
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from web.limits import client_address

# One observation a request, its `_count` the requests answered and its `cache` label the
# whole-response cache lookups: one series to write instead of three (issue 34's cost).
REQUEST_SECONDS = Histogram(
    "ratings_http_request_duration_seconds",
    "Requests answered and their time from reaching Django to the answer, by view (its URL "
    "name), method, status code and whole-response cache lookup (hit, miss; none if none).",
    ["view", "method", "status", "cache"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
TASKS = Counter(
    "ratings_celery_tasks",
    "Celery tasks ended, by task name and outcome (success, failure, retry, revoked).",
    ["task", "outcome"],
)
ADMIN_LOGIN_FAILURES = Counter(
    "ratings_admin_login_failures",
    "Failed admin logins, by whether the client or username is now locked out.",
    ["locked_out"],
)

# Methods a view answers; anything else is one label, so a client cannot add series.
_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "POST"})
_scrape_collectors: list[Collector] = []


def add_scrape_collector(collector: Collector) -> None:
    """Have /metrics also collect `collector` (its values read at scrape time)."""
    if collector not in _scrape_collectors:
        _scrape_collectors.append(collector)


def view_label(request: HttpRequest) -> str:
    """The URL name of the view that answered (or its path for unnamed ones); one label
    for requests no URL matched, so scanners cannot add series."""
    match = request.resolver_match
    if match is None:
        return "unmatched"
    return match.view_name or match.route or "unnamed"


@lru_cache(maxsize=4096)
def _request_series(view: str, method: str, status: int, cache: str) -> Any:
    """The histogram child of one kind of answer, looked up once: `labels()` costs more
    than the observation it leads to (a few views, methods, statuses and lookup results)."""
    return REQUEST_SECONDS.labels(view, method, str(status), cache)


def note_cache_lookup(request: HttpRequest, hit: bool) -> None:
    """Mark `request` with its whole-response cache lookup (web.caching), which
    `record_request` labels its observation with."""
    request.response_cache = "hit" if hit else "miss"


# Observations wait in this process's list and are written in batches: one at a time, the
# histogram's code and its memory-mapped file are cold after each page, and writing them
# cost a cached page about 3% (9-12 µs; bench.web --metrics-only), batched about 1.5%.
# A batch is written at FLUSH_EVERY observations, by a thread of each process at least
# every FLUSH_SECONDS, by /metrics before it answers and when the process exits.
FLUSH_EVERY = 64
FLUSH_SECONDS = 1.0
_pending: list[tuple[Any, float]] = []
_flushing = threading.Lock()
_flusher_running = False


def record_request(request: HttpRequest, status: int, seconds: float) -> None:
    method = request.method if request.method in _METHODS else "other"
    cache = getattr(request, "response_cache", "none")
    _pending.append((_request_series(view_label(request), method, status, cache), seconds))
    if len(_pending) >= FLUSH_EVERY or not _flusher_running:
        flush_request_observations()


def flush_request_observations() -> None:
    """Write the observations waiting in this process (starting its flusher thread if it
    has none). Other threads may append meanwhile: only what was copied is removed."""
    global _flusher_running
    with _flushing:
        if not _flusher_running:
            threading.Thread(target=_flush_regularly, name="metrics-flush", daemon=True).start()
            _flusher_running = True
        batch = _pending[:]
        del _pending[: len(batch)]
    for series, seconds in batch:
        series.observe(seconds)


def _flush_regularly() -> None:
    # An event's timed wait, not time.sleep: it never returns early, and a test that
    # replaces time.sleep (to run a clock of its own) does not reach this thread.
    never = threading.Event()
    while not never.wait(FLUSH_SECONDS):
        flush_request_observations()


def _forked() -> None:
    """A forked child (gunicorn's workers) has no flusher thread, a lock that a parent's
    thread may have held, and the parent's waiting observations, which are the parent's."""
    global _flushing, _flusher_running
    _flushing = threading.Lock()
    _flusher_running = False
    _pending.clear()


os.register_at_fork(after_in_child=_forked)
atexit.register(flush_request_observations)  # a worker restarting writes what waits


def count_requests(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Middleware: every answer observed by view, status and cache lookup, with its time."""

    def middleware(request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = get_response(request)
        record_request(request, response.status_code, time.perf_counter() - started)
        return response

    return middleware


def _allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(item, strict=False) for item in settings.METRICS_ALLOWED_ADDRESSES]


def may_scrape(request: HttpRequest) -> bool:
    """The bearer token when one is set, or a client address in METRICS_ALLOWED_ADDRESSES
    (found as the throttles find it: X-Forwarded-For only behind NUM_PROXIES proxies)."""
    token = settings.METRICS_BEARER_TOKEN
    given = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return True
    try:
        client = ipaddress.ip_address(client_address(request))
    except ValueError:
        return False
    return any(client in network for network in _allowed_networks())


def count_failed_login(sender: Any, locked_out: bool, **kwargs: Any) -> None:
    """Receiver of web.admin_logins.admin_login_failed."""
    ADMIN_LOGIN_FAILURES.labels(locked_out="true" if locked_out else "false").inc()


def empty_multiprocess_folder() -> None:
    """Forget the samples that the processes of an earlier start left in
    PROMETHEUS_MULTIPROC_DIR (before starting the site's processes anew)."""
    if settings.PROMETHEUS_MULTIPROC_DIR:
        for samples in Path(settings.PROMETHEUS_MULTIPROC_DIR).glob("*.db"):
            samples.unlink(missing_ok=True)


def _registry() -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    if settings.PROMETHEUS_MULTIPROC_DIR:
        MultiProcessCollector(registry, path=settings.PROMETHEUS_MULTIPROC_DIR)
    else:
        registry.register(REGISTRY)
    for collector in _scrape_collectors:
        registry.register(collector)
    return registry


@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    """The site's metrics in Prometheus's text format, for allowed scrapers only."""
    if not may_scrape(request):
        return HttpResponse("Forbidden\n", status=403, content_type="text/plain")
    flush_request_observations()
    # The text format every Prometheus 2 reads (Debian's included).
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_PLAIN_0_0_4)
