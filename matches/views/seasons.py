"""The seasons pages: `/seasons/` (every season) and `/seasons/<name>` (its ladder,
`?character=CODE`, `?page=N`), as the refresh wrote them (matches.services.seasons)."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from matches.selectors.seasons import all_seasons, find_season, season_page, season_state
from players.models import Character
from players.selectors.ratings import characters
from players.views.rankings import MAX_PAGE, settled_plus_minus_limit
from web.errors import InvalidQuery


def seasons(request: HttpRequest) -> HttpResponse:
    today = timezone.now().date()
    return render(
        request,
        "matches/seasons.html",
        {
            "seasons": [(season, season_state(season, today)) for season in all_seasons()],
            "min_games": settings.SEASON_MIN_GAMES,
        },
    )


def _character(request: HttpRequest, roster: list[Character]) -> Character | None:
    code = request.GET.get("character")
    if code is None:
        return None
    found = next((c for c in roster if c.code == code), None)
    if found is None:
        raise InvalidQuery("character", "a character code from /api/v1/characters/")
    return found


def _page_number(request: HttpRequest) -> int:
    raw = request.GET.get("page", "1")
    pages = settings.SEASON_ARCHIVE_PLACES // 100 + 1
    if not raw.isdigit() or not 1 <= int(raw) <= min(pages, MAX_PAGE):
        raise InvalidQuery("page", f"a page number from 1 to {min(pages, MAX_PAGE)}")
    return int(raw)


def season(request: HttpRequest, name: str) -> HttpResponse:
    found = find_season(name)
    if found is None:
        raise Http404("No season of that name.")
    roster = characters()
    page = season_page(found, _character(request, roster), _page_number(request))
    return render(
        request,
        "matches/season.html",
        {
            "page": page,
            "state": season_state(found, timezone.now().date()),
            "characters": roster,
            "min_games": settings.SEASON_MIN_GAMES,
            "places": settings.SEASON_ARCHIVE_PLACES,
            "settled_plus_minus_limit": settled_plus_minus_limit(),
        },
    )
