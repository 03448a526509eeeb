"""The profile pages: `/player/<id>` (the way to a player's best character) and
`/player/<id>/<char>` (a rating with its history, sets, matchups and fair opponents)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from matches import charts
from matches.selectors.matchups import MatchupEstimate
from matches.selectors.profile import (
    HISTORY_RANGES,
    GameCursor,
    GameSet,
    GoodMatch,
    RatedGame,
    rating_profile,
)
from players.formatting import offset_text, percent, rating_text, signed_text
from players.selectors.ratings import best_character_code
from players.tiers import rank_tier
from players.views.rankings import profile_url, ranked_below
from web.partials import render_partial


def player(request: HttpRequest, player_id: str) -> HttpResponse:
    """A player's page is their best character's (highest value - 3 * deviation)."""
    code = best_character_code(player_id)
    if code is None:
        raise Http404("We know no rated player with this id.")
    return redirect("profile", player_id=player_id, code=code)


def profile(request: HttpRequest, player_id: str, code: str) -> HttpResponse:
    history_range = request.GET.get("range", "30d")
    if history_range not in HISTORY_RANGES:
        raise Http404("Unknown history range.")
    try:
        before, after = (
            GameCursor.parse(request.GET[key]) if key in request.GET else None
            for key in ("before", "after")
        )
    except (ValueError, OverflowError, OSError):
        raise Http404("This page of match history does not exist.") from None
    now = timezone.now()
    found = rating_profile(
        player_id, code, history_range=history_range, before=before, after=after, now=now
    )
    if found is None:
        raise Http404("We know no rated games of this player with this character.")
    span = HISTORY_RANGES[history_range]
    chart = charts.rating_chart(
        "rating-history",
        found.history,
        title=f"Rating history ({history_range})",
        start=now - span if span else None,
        end=now,
    )
    return render(
        request,
        "matches/profile.html",
        {
            "profile": found,
            "rating": found.rating,
            "chart": chart,
            "ranges": HISTORY_RANGES,
            "ranked_below": ranked_below(),
            "history_sets": _history_sets(found.matches.sets, ranked_below()),
            "opponent_rows": _opponent_rows(found.opponents),
            "matchup_rows": _matchup_rows(
                (row.opponent_character.name, row.estimate) for row in found.matchups.rows
            ),
            "matchup_overall": _matchup_rows([("Overall", found.matchups.overall)]),
            "tier": rank_tier(found.rating.value),
            "opponent_days": settings.FAIR_OPPONENT_DAYS,
        },
    )


def _change_class(change: float | None) -> str:
    if change is None or change == 0:
        return ""
    return "up" if change > 0 else "down"


def _game_texts(game: RatedGame) -> dict[str, Any]:
    """One game's cells as texts, for the Jinja2 partial (web.partials)."""
    played_at = timezone.localtime(game.played_at)
    return {
        "iso": played_at.isoformat(),
        "time": f"{played_at:%H:%M}",
        "value": rating_text(game.value, game.deviation),
        "uncertain": game.uncertain,
        "opponent_value": rating_text(game.opponent_value, game.opponent_deviation),
        "opponent_uncertain": game.opponent_uncertain,
        "win_probability": percent(game.win_probability, 0),
        "won": game.won,
        "change": None if game.change is None else signed_text(game.change, 1),
        "change_class": _change_class(game.change) if game.counted else "",
        "uncounted_reason": game.uncounted_reason if game.uncounted else "",
    }


def _history_sets(sets: list[GameSet], unsettled_from: float) -> str:
    """The match history's sets (a tbody each), rendered by Jinja2: the profile's
    50 games cost more placed by Django's engine than all of the page's queries."""
    url = profile_url()
    rows = []
    for game_set in sets:
        first = timezone.localtime(game_set.first.played_at)
        rows.append(
            {
                "iso": first.isoformat(),
                "when": f"{first:%b} {first.day}, {first:%H:%M}",
                "url": url(game_set.opponent.id, game_set.opponent_character.code),
                "opponent": game_set.opponent.name,
                "character": game_set.opponent_character.name,
                "code": game_set.opponent_character.code,
                "games": [_game_texts(game) for game in game_set.games_oldest_first],
                "win_probability": percent(game_set.win_probability, 0),
                "record": f"{game_set.wins}\u2013{game_set.losses}",
                "change": None if game_set.change is None else signed_text(game_set.change),
                "change_class": _change_class(game_set.change),
                "uncounted": game_set.uncounted,
            }
        )
    return render_partial(
        "matches/history_sets.html", {"sets": rows, "ranked_below": f"{unsettled_from:.0f}"}
    )


def _matchup_rows(rows: Iterable[tuple[str, MatchupEstimate]]) -> str:
    """Matchup rows (label, estimate) rendered by Jinja2 from texts: as Django includes,
    a rating's 26 opposing characters cost half the page's template time."""
    texts = []
    for label, estimate in rows:
        offset = None if estimate.offset is None else estimate.offset.value
        css = ""
        if offset is not None and not estimate.uncertain:
            css = " up" if offset >= 0.5 else " down" if offset <= -0.5 else ""
        texts.append(
            {
                "label": label,
                "uncertain": estimate.uncertain,
                "games": estimate.games,
                "wins": estimate.wins,
                "record": f"{estimate.wins}\u2013{estimate.losses}",
                "expected_sort": estimate.expected_wins,
                "expected": f"{estimate.expected_wins:.1f}",
                "css": css,
                "offset_sort": "" if offset is None else offset,
                "offset": offset_text(offset, estimate.half_width),
            }
        )
    return render_partial("matches/player_matchup_rows.html", {"rows": texts})


def _opponent_rows(opponents: list[GoodMatch]) -> str:
    """The fair opponents' rows rendered by Jinja2 from texts (one URL reversed for all)."""
    url = profile_url()
    rows = [
        {
            "url": url(o.player_id, o.character_code),
            "name": o.name,
            "character": o.character_name,
            "code": o.character_code,
            "rating": rating_text(o.value, o.deviation),
            "tier": o.tier,
            "win_probability": percent(o.win_probability, 0),
        }
        for o in opponents
    ]
    return render_partial("matches/opponent_rows.html", {"rows": rows})
