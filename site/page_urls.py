"""The server-rendered pages (docs/pages-and-api.md#pages), each cached whole (web.caching).

A page's cache key holds the settings whose values appear on pages (the about page's
numbers, tiers, windows), so a deploy that changes them shows at once.
"""

from __future__ import annotations

from functools import partial

from django.urls import path

from matches.views import (
    about,
    calculator,
    lab,
    matchups,
    notable_games,
    owner_data,
    profile,
    rivals,
    statistics,
)
from matches.views.calculator import ContenderForm
from players.views import ownership, rankings, search, supporters
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
    # A player's own profile: per browser, never cached.
    path("player/<player_id:player_id>/claim", ownership.claim, name="claim"),
    path("player/<player_id:player_id>/claim/status", ownership.claim_status, name="claim-status"),
    path("player/<player_id:player_id>/owner", ownership.owner, name="owner"),
    path(
        "player/<player_id:player_id>/owner/<slug:table>.<slug:extension>",
        owner_data.download,
        name="owner-download",
    ),
    path(
        "player/<player_id:player_id>/<character:code>",
        page(profile.profile, reads=(*HISTORY_PAGE, "patch")),
        name="profile",
    ),
    path(
        "player/<player_id:player_id>/<character:code>/vs/<player_id:opponent_id>",
        page(rivals.rivals, reads=RIVALS_PAGE),
        name="rivals",
    ),
    path(
        "matchups",
        page(matchups.matchups, reads=["bracket", "character", "patch"]),
        name="matchups",
    ),
    path("calculator", page(calculator.calculator, reads=CALCULATOR_INPUTS), name="calculator"),
    path("recent", page(notable_games.recent), name="recent"),
    path("stats", page(statistics.stats, reads=["patch"]), name="stats"),
    path("lab", page(lab.lab), name="lab"),
    path("about", page(about.about), name="about"),
    path("supporters", page(supporters.supporters), name="supporters"),
]
