"""The search page: players by current or past name; a query that is exactly one
player's current name goes straight to that player."""

from __future__ import annotations

from typing import NamedTuple

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.timezone import get_current_timezone, localtime

from players.formatting import count_text, rating_text, shown_name, utc_iso, utc_text
from players.models import Player
from players.selectors.search import find_players
from players.views.rankings import player_url_maker, profile_url_maker
from web.partials import render_partial


class CharacterChip(NamedTuple):
    """A link to one of a found player's ratings, in their result."""

    url: str
    character: str
    code: str
    record: str
    rating: str


class SearchResult(NamedTuple):
    """A found player, as `players/search_results.html` places them: texts and flags."""

    url: str
    name: str
    main: str  # the most played character and its rating
    supporter: bool
    platform: str
    cheater: bool
    past_name: str  # the past name that matched, or ""
    games: str
    iso: str
    utc: str
    day: str
    ratings: list[CharacterChip]


def search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("name", "")
    found = find_players(query, last_played=False)
    exact = [hit for hit in found.hits if hit.exact_current_name]
    if len(exact) == 1:
        return redirect("player", exact[0].player_id)
    url, rating_url = player_url_maker(), profile_url_maker()
    # The time zone looked up once, not for each hit.
    platforms, zone = dict(Player.Platform.choices), get_current_timezone()
    # The result's texts made here, so that the partial only places them.
    hits = [
        SearchResult(
            url=url(hit.player_id),
            name=shown_name(hit.name),
            main=f"{main.character.name} {rating_text(main.value, main.deviation)}" if main else "",
            supporter=hit.supporter,
            platform=platforms.get(hit.platform, hit.platform),
            cheater=hit.cheater,
            past_name=shown_name(hit.matched_name) if hit.matched_past_name else "",
            games=count_text(games, "game"),
            iso=utc_iso(hit.last_seen),
            utc=utc_text(hit.last_seen),
            day=f"{seen:%Y-%m-%d}",
            ratings=[
                CharacterChip(
                    url=rating_url(hit.player_id, r.character.code),
                    character=r.character.name,
                    code=r.character.code,
                    record=f"{r.wins}\u2013{r.losses}",
                    rating=rating_text(r.value, r.deviation),
                )
                for r in hit.ratings
            ],
        )
        for hit in found.hits
        for seen, games, main in ((localtime(hit.last_seen, zone), hit.games, hit.main),)
    ]
    context = {
        "query": query,
        "hits": found.hits,
        "results": render_partial("players/search_results.html", {"hits": hits}),
        "more_match": found.more_match,
        "like_only": found.like_only,
    }
    return render(request, "players/search.html", context)
