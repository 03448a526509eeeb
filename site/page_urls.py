"""The server-rendered pages (DESIGN.md section 6).

Pages are cached whole, keyed on their URL and on the settings that shape what they
show (rating constants, tiers), with the ratings generation as the cache version: a
page is rendered again only after ratings (or the statistics derived from them)
changed, a deploy changed those settings, or the timeout passed. Redirects (a player
to their best character) are cached as such; errors never are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.urls import path

from matches import views as match_views
from matches.generation import current_generation
from players import views as player_views

PAGE_CACHE_SECONDS = 3600
# Settings whose values appear on pages (the about page's numbers, tiers, windows).
RENDERED_SETTINGS = (
    "RATING_INITIAL",
    "RATING_INITIAL_DEVIATION",
    "RATING_MINIMUM_DEVIATION",
    "RATING_MAXIMUM_DEVIATION",
    "RATING_DECAY_CONSTANT",
    "RATING_DECAY_PERIOD_SECONDS",
    "RATING_LOW_DEVIATION",
    "RATING_COUNTING_MARGIN",
    "RATING_COUNTING_RMS_DEVIATION",
    "RATING_UPDATE_DAMPING",
    "RATING_TIERS",
    "FAIR_OPPONENT_DAYS",
)


def _page_key(view: Callable, request: HttpRequest) -> str:
    rendered = repr([getattr(settings, name) for name in RENDERED_SETTINGS])
    digest = hashlib.sha256(f"{request.get_full_path()}|{rendered}".encode()).hexdigest()
    return f"page:{view.__module__}.{view.__name__}:{digest}"


View = Callable[..., HttpResponse]


def cached_by_generation(view: View) -> View:
    """Serve a successful GET of `view` (or its redirect) from the cache while the
    generation holds."""

    @wraps(view)
    def cached_view(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        key, version = _page_key(view, request), current_generation()
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
    path("calculator", cached_by_generation(match_views.calculator), name="calculator"),
    path("stats", cached_by_generation(match_views.stats), name="stats"),
    path("lab", cached_by_generation(match_views.lab), name="lab"),
    path("about", cached_by_generation(match_views.about), name="about"),
]
