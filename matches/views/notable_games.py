"""The notable games page (`/recent`): the day's biggest upsets, highest-rated sets and
newest ranked players, as of the latest refresh."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from matches.selectors.notable_games import notable_games
from matches.views.statistics import every


def recent(request: HttpRequest) -> HttpResponse:
    refresh_seconds = settings.CELERY_BEAT_SCHEDULE["refresh_statistics"]["schedule"]
    return render(
        request,
        "matches/notable_games.html",
        {"notable": notable_games(), "refreshed": every(refresh_seconds)},
    )
