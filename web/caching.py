"""Whole responses cached while the ratings generation holds (web.generation).

One mechanism serves pages and the API: a response is stored under a key of its
request with the generation as the cache version, so it is rendered again only after
ratings (or what is derived from them) changed, or the timeout passed. Successful
answers and redirects are cached; errors never are (a raising view stores nothing).
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from web.cache_keys import Canonical, keep_only_parameters
from web.generation import current_generation
from web.limits import client_address
from web.metrics import note_cache_lookup

PAGE_CACHE_SECONDS = 3600
RESPONSE_CACHE_SECONDS = 600

View = Callable[..., HttpResponse]


def cached_by_generation(
    request: HttpRequest,
    key: str,
    produce: Callable[[], HttpResponse],
    *,
    seconds: int,
    refuse: Callable[[], HttpResponse | None] = lambda: None,
) -> HttpResponse:
    """The response stored under `key` at the current generation, else `produce()`'s,
    stored when it is a 200 (its content and type) or a redirect (its location). Before
    producing, `refuse()` may answer instead (a throttle), and that answer is not stored.
    The lookup's result is noted on `request` for the request metrics (web.metrics)."""
    version = current_generation()
    stored = cache.get(key, version=version)
    note_cache_lookup(request, stored is not None)
    if stored is not None:
        status, content_type, body = stored
        if status == 200:
            return HttpResponse(body, content_type=content_type)
        return HttpResponse(status=status, headers={"Location": body})
    refusal = refuse()
    if refusal is not None:
        return refusal
    response = produce()
    if response.status_code == 200 and not response.streaming:
        stored = (200, response["Content-Type"], response.content)
    elif response.status_code in (301, 302):
        stored = (response.status_code, None, response["Location"])
    if stored is not None:
        cache.set(key, stored, seconds, version=version)
    return response


class PageRenderThrottle(SimpleRateThrottle):
    """Page renders (cache misses) per client, PAGE_RENDER_RATE: the client's address as
    the API's throttle takes it (NUM_PROXIES)."""

    scope = "page"

    def get_rate(self) -> str:
        return settings.PAGE_RENDER_RATE

    def get_cache_key(self, request: HttpRequest, view: object) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


TOO_MANY = (
    "Too many requests: this address asked for more new pages at once or in a short time "
    "than the site renders for one visitor. Pages someone has already seen come back at once."
)
# A client's second uncached render while its first runs waits up to this long for it
# (a browser's second tab is then served), polling the slot; then a 429: ask in a second.
BUSY_RETRY_SECONDS = 1
SLOT_POLL_SECONDS = 0.05
# Threads of a worker that may wait at once (for a slot, or before refusing a client
# over its rate): a client on many connections holds no more, the other threads serve
# everyone else, and a waiting thread costs no CPU where an answer would.
WAITING_THREADS = 2
# How long a render holds its client's slot at most, should its worker die mid-render.
RENDER_SLOT_SECONDS = 30

logger = logging.getLogger(__name__)
# Clients this worker refused, with the (monotonic) end of their throttle window: until
# then they are refused again without asking the cache. A worker process's own memory.
_refused_until: dict[str, float] = {}
_waiting = threading.BoundedSemaphore(WAITING_THREADS)


def too_many_requests(retry_after: int) -> HttpResponse:
    """The refusal: plain text, no template and no query, so that refusing costs next to
    nothing however many refusals a client asks for."""
    response = HttpResponse(TOO_MANY, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(retry_after)
    # Not one django.request warning per refusal: RenderAdmission logs one per window.
    response._has_been_logged = True
    return response


class RenderAdmission:
    """Whether a client may have a page rendered now: at most one uncached render of its
    in flight across all workers (a slot in the shared cache, RENDER_SLOT_SECONDS at most;
    a second waits for it a moment) and PAGE_RENDER_RATE renders (PageRenderThrottle).
    `release()` frees the slot."""

    def __init__(self, request: HttpRequest) -> None:
        self.request = request
        self.ident = ""  # read on a miss only: a cached page needs no client
        self.holds_slot = False

    @property
    def slot_key(self) -> str:
        return f"page-render:{self.ident}"

    def refuse(self) -> HttpResponse | None:
        """None while this client may have a page rendered (it then holds the slot until
        `release()`), else the 429."""
        self.ident = client_address(self.request)
        remembered = _refused_until.get(self.ident)
        now = time.monotonic()
        if remembered is not None and remembered > now:
            # Slowed as well as refused: a client that does not wait costs sleep, not CPU.
            if _waiting.acquire(blocking=False):
                try:
                    time.sleep(min(remembered - now, BUSY_RETRY_SECONDS))
                finally:
                    _waiting.release()
            return too_many_requests(max(math.ceil(remembered - time.monotonic()), 1))
        if not self._take_slot():
            return too_many_requests(BUSY_RETRY_SECONDS)
        throttle = PageRenderThrottle()
        if throttle.allow_request(self.request, None):
            return None
        self.release()
        wait = max(throttle.wait() or 1, 1)
        self._remember(now, wait)
        return too_many_requests(math.ceil(wait))

    def _take_slot(self) -> bool:
        """The client's slot, waited for up to BUSY_RETRY_SECONDS while another of its
        renders holds it (if a waiting thread is free in this worker)."""
        if cache.add(self.slot_key, 1, RENDER_SLOT_SECONDS):
            self.holds_slot = True
        elif _waiting.acquire(blocking=False):
            try:
                deadline = time.monotonic() + BUSY_RETRY_SECONDS
                while not self.holds_slot and time.monotonic() < deadline:
                    time.sleep(SLOT_POLL_SECONDS)
                    self.holds_slot = cache.add(self.slot_key, 1, RENDER_SLOT_SECONDS)
            finally:
                _waiting.release()
        return self.holds_slot

    def _remember(self, now: float, wait: float) -> None:
        """One log line per client and window in each worker."""
        # A copy in one step: other threads of the worker may add to the dict meanwhile.
        for ident, until in list(_refused_until.items()):
            if until <= now:
                _refused_until.pop(ident, None)
        _refused_until[self.ident] = now + wait
        logger.warning("page renders refused to %s for %.0f s", self.ident, wait)

    def release(self) -> None:
        if self.holds_slot:
            self.holds_slot = False
            cache.delete(self.slot_key)


PAGE_METHODS = ("GET", "HEAD", "OPTIONS")


def cached_page(
    view: View,
    *,
    reads: Mapping[str, Canonical] | Iterable[str] = (),
    rendered_settings: Sequence[str] = (),
) -> View:
    """A page view whose GET/HEAD answers are cached, keyed on the view, the path, the
    query parameters it `reads` in their canonical forms (nothing else reaches the view:
    web.cache_keys) and the values of the settings that appear on pages (a deploy that
    changes them shows). The key holds the scheme and host too: link previews carry
    absolute URLs. A render (a miss) is admitted per client (RenderAdmission: one at a
    time, PageRenderThrottle's rate); OPTIONS is answered without one."""

    @wraps(view)
    def cached_view(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if request.method == "OPTIONS":
            return HttpResponse(headers={"Allow": ", ".join(PAGE_METHODS)})
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        keep_only_parameters(request, reads)
        rendered = repr([getattr(settings, name) for name in rendered_settings])
        digest = hashlib.sha256(f"{request.build_absolute_uri()}|{rendered}".encode()).hexdigest()
        key = f"page:{view.__module__}.{view.__name__}:{digest}"
        admission = RenderAdmission(request)
        try:
            return cached_by_generation(
                request,
                key,
                lambda: view(request, *args, **kwargs),
                seconds=PAGE_CACHE_SECONDS,
                refuse=admission.refuse,
            )
        finally:
            admission.release()

    return cached_view


def api_request_key(request: HttpRequest) -> str:
    """This request's full URL (responses hold absolute links) under this API version, hashed."""
    text = f"{settings.SPECTACULAR_SETTINGS['VERSION']} {request.build_absolute_uri()}"
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def cached_get(get: Callable[..., Response]) -> Callable[..., HttpResponse]:
    """An API view's GET method whose successful answers are cached as rendered JSON.

    It runs inside the view, after DRF's throttles.
    """

    @wraps(get)
    def cached(view: APIView, request: Request, *args: Any, **kwargs: Any) -> HttpResponse:
        def produce() -> HttpResponse:
            content = JSONRenderer().render(get(view, request, *args, **kwargs).data)
            return HttpResponse(content, content_type="application/json")

        # The Django request under DRF's: the one the request metrics' middleware sees.
        return cached_by_generation(
            request._request,
            f"api:{api_request_key(request)}",
            produce,
            seconds=RESPONSE_CACHE_SECONDS,
        )

    return cached
