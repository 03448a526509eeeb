"""Whole responses cached while the ratings generation holds (web.generation).

One mechanism serves pages and the API: a response is stored under a key of its
request with the generation as the cache version, so it is rendered again only after
ratings (or what is derived from them) changed, or the timeout passed. Successful
answers and redirects are cached; errors never are (a raising view stores nothing).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from web.cache_keys import Canonical, keep_only_parameters
from web.generation import current_generation
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


def throttled_render(request: HttpRequest) -> HttpResponse | None:
    """None while this client may have a page rendered, else the 429 page."""
    throttle = PageRenderThrottle()
    if throttle.allow_request(request, None):
        return None
    retry_after = math.ceil(throttle.wait() or 1)
    response = render(request, "429.html", {"retry_after": retry_after}, status=429)
    response["Retry-After"] = str(retry_after)
    return response


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
    absolute URLs. A render (a miss) is throttled per client (PageRenderThrottle); OPTIONS
    is answered without one."""

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
        return cached_by_generation(
            request,
            key,
            lambda: view(request, *args, **kwargs),
            seconds=PAGE_CACHE_SECONDS,
            refuse=lambda: throttled_render(request),
        )

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
