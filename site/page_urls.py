"""The server-rendered pages (DESIGN.md section 6).

Pages that show ratings are cached whole, keyed on their URL, with the ratings
generation as the cache version: a page is rendered again only after ratings (or the
statistics derived from them) changed, or after the timeout. Redirects (a player to
their best character) are cached as such; errors never are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import wraps

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.urls import path

from matches import views as match_views
from matches.generation import current_generation
from players import views as player_views

PAGE_CACHE_SECONDS = 3600

View = Callable[..., HttpResponse]


def cached_by_generation(view: View) -> View:
    """Serve a successful GET of `view` (or its redirect) from the cache while the
    generation holds."""

    @wraps(view)
    def cached_view(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        digest = hashlib.sha256(request.get_full_path().encode()).hexdigest()
        key, version = f"page:{view.__module__}.{view.__name__}:{digest}", current_generation()
        cached = cache.get(key, version=version)
        if isinstance(cached, bytes):
            return HttpResponse(cached)
        if isinstance(cached, tuple):  # (status, location) of a redirect
            return HttpResponse(status=cached[0], headers={"Location": cached[1]})
        response = view(request, *args, **kwargs)
        if response.status_code == 200 and not response.streaming:
            cache.set(key, response.content, PAGE_CACHE_SECONDS, version=version)
        elif response.status_code in (301, 302):
            cached = (response.status_code, response["Location"])
            cache.set(key, cached, PAGE_CACHE_SECONDS, version=version)
        return response

    return cached_view


urlpatterns = [
    path("", cached_by_generation(match_views.top), name="top"),
    path("top/<str:code>", cached_by_generation(match_views.top), name="top-character"),
    path("search", cached_by_generation(player_views.search), name="search"),
    path("player/<str:player_id>", cached_by_generation(player_views.player), name="player"),
    path(
        "player/<str:player_id>/<str:code>",
        cached_by_generation(match_views.profile),
        name="profile",
    ),
    path("matchups", cached_by_generation(match_views.matchups), name="matchups"),
    path("calculator", match_views.calculator, name="calculator"),
    path("stats", cached_by_generation(match_views.stats), name="stats"),
    path("lab", cached_by_generation(match_views.lab), name="lab"),
    path("about", match_views.about, name="about"),
]
