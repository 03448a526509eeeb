"""The server-rendered pages (docs/pages-and-api.md#pages), each cached whole (web.caching).

A page's cache key holds the settings whose values appear on pages (the about page's
numbers, tiers, windows), so a deploy that changes them shows at once.
"""

from __future__ import annotations

from functools import partial

from django.urls import path

from matches.views import about, calculator, lab, matchups, profile, rivals, seasons, statistics
from matches.views.calculator import ContenderForm
from players.views import rankings, search, supporters
from web.caching import cached_page

# Settings whose values appear on pages.
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
    "RATING_ONE_CHANCE",
    "RATING_TIERS",
    "FAIR_OPPONENT_DAYS",
    "SEASON_MIN_GAMES",
    "SEASON_ARCHIVE_PLACES",
    "CELERY_BEAT_SCHEDULE",
)

page = partial(cached_page, rendered_settings=RENDERED_SETTINGS)

# The query parameters each page reads (anything else is dropped before the view runs).
CALCULATOR_INPUTS = [
    f"{side}-{field}" for side in ("a", "b") for field in ContenderForm.base_fields
]
HISTORY_PAGE = ("range", "before", "after")
RIVALS_PAGE = ("character", "before", "after")
RANKING_PAGE = ("per", "active", "page", "find")

urlpatterns = [
    path("", page(rankings.top, reads=RANKING_PAGE), name="top"),
    path("top/<character:code>", page(rankings.top, reads=RANKING_PAGE), name="top-character"),
    path("search", page(search.search, reads=["name"]), name="search"),
    path("player/<player_id:player_id>", page(profile.player), name="player"),
    path(
        "player/<player_id:player_id>/<character:code>",
        page(profile.profile, reads=HISTORY_PAGE),
        name="profile",
    ),
    path(
        "player/<player_id:player_id>/<character:code>/vs/<player_id:opponent_id>",
        page(rivals.rivals, reads=RIVALS_PAGE),
        name="rivals",
    ),
    path("matchups", page(matchups.matchups, reads=["bracket", "character"]), name="matchups"),
    path("calculator", page(calculator.calculator, reads=CALCULATOR_INPUTS), name="calculator"),
    path("stats", page(statistics.stats), name="stats"),
    path("seasons/", page(seasons.seasons), name="seasons"),
    path(
        "seasons/<slug:name>",
        page(seasons.season, reads=["character", "page"]),
        name="season",
    ),
    path("lab", page(lab.lab), name="lab"),
    path("about", page(about.about), name="about"),
    path("supporters", page(supporters.supporters), name="supporters"),
]
