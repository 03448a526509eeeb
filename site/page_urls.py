"""The server-rendered pages (docs/pages-and-api.md#pages), each cached whole (web.caching).

A page's cache key holds the settings whose values appear on pages (the about page's
numbers, tiers, windows), so a deploy that changes them shows at once.
"""

from __future__ import annotations

from functools import partial

from django.urls import path

from matches.selectors.match_history import GameCursor
from matches.views import (
    about,
    calculator,
    lab,
    matchups,
    notable_games,
    owner_data,
    profile,
    rivals,
    seasons,
    statistics,
)
from matches.views.calculator import ContenderForm
from players.formatting import search_text
from players.views import ownership, rankings, search, supporters
from web.cache_keys import Canonical, as_given, optional_number, upper_case, whole_number
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


def searched(name: str, value: str) -> str:
    return search_text(value)


def trimmed_name(name: str, value: str) -> str:
    """A current name or a player id, as `?find=` compares it (any case)."""
    return whole_number(name, value.strip().casefold())


def history_cursor(name: str, value: str) -> str:
    """A history page's cursor as its links write it; one that does not parse stays as it
    came, for the view to refuse."""
    try:
        return str(GameCursor.parse(value))
    except (ValueError, OverflowError, OSError):
        return value


# The query parameters each page reads, each with its canonical form (web.cache_keys;
# anything else is dropped before the view runs).
CONTENDER: dict[str, Canonical] = {
    "name": searched,
    "player": whole_number,
    "character": upper_case,
    "rating": optional_number,
    "uncertainty": optional_number,
}
CALCULATOR_INPUTS = {
    f"{side}-{field}": CONTENDER[field]
    for side in ("a", "b")
    for field in ContenderForm.base_fields
}
HISTORY_PAGE = {"range": as_given, "before": history_cursor, "after": history_cursor}
RIVALS_PAGE = {"character": upper_case, "before": history_cursor, "after": history_cursor}
# A patch's name as given: names are the operator's, and an unknown one is a 400.
MATCHUPS_PAGE = {"bracket": as_given, "character": upper_case, "patch": as_given}
RANKING_PAGE = {"per": as_given, "active": whole_number, "page": whole_number, "find": trimmed_name}

urlpatterns = [
    path("", page(rankings.top, reads=RANKING_PAGE), name="top"),
    path("top/<character:code>", page(rankings.top, reads=RANKING_PAGE), name="top-character"),
    path("search", page(search.search, reads={"name": searched}), name="search"),
    path(
        "player/<player_id:player_id>",
        ownership.private_to_its_owner(page(profile.player), profile.player),
        name="player",
    ),
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
        ownership.private_to_its_owner(
            page(profile.profile, reads={**HISTORY_PAGE, "patch": as_given}), profile.profile
        ),
        name="profile",
    ),
    path(
        "player/<player_id:player_id>/<character:code>/vs/<player_id:opponent_id>",
        page(rivals.rivals, reads=RIVALS_PAGE),
        name="rivals",
    ),
    path(
        "matchups",
        page(matchups.matchups, reads=MATCHUPS_PAGE),
        name="matchups",
    ),
    path("calculator", page(calculator.calculator, reads=CALCULATOR_INPUTS), name="calculator"),
    path("recent", page(notable_games.recent), name="recent"),
    path("stats", page(statistics.stats, reads={"patch": as_given}), name="stats"),
    path("seasons/", page(seasons.seasons), name="seasons"),
    path(
        "seasons/<slug:name>",
        page(seasons.season, reads={"character": upper_case, "page": whole_number}),
        name="season",
    ),
    path("lab", page(lab.lab), name="lab"),
    path("about", page(about.about), name="about"),
    path("supporters", page(supporters.supporters), name="supporters"),
]
