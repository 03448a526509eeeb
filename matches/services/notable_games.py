"""Notable games (`/recent`, docs/pages-and-api.md#pages): the day's biggest upsets between
settled ratings, its highest-rated sets and the newest ranked players, computed with the
site statistics by the periodic refresh (matches.services.statistics) and stored as one
SiteStatistic row, so that the page and its API read one small row whatever the size of
the history. The refresh reads one day of games (found through played_at's BRIN index),
never the whole table."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Avg, Case, Count, F, FloatField, Max, Q, QuerySet, Value, When

from matches.models import Match
from players import rules
from players.formatting import shown_name, utc_iso
from players.models import Character, Player, Rating

NOTABLE_WINDOW = timedelta(days=1)
# How many of each list the page shows.
NOTABLE_LIMIT = 10
# A set is every game between the same two ratings in the window; a single game is none.
SET_MINIMUM_GAMES = 2


def _settled_games(since: datetime, now: datetime) -> QuerySet[Match]:
    """The window's rated games between two settled ratings (before the game) of players
    who are not flagged (a few ids: a small hashed set, not two joins)."""
    low = rules.low_deviation()
    flagged = Player.objects.filter(rules.flagged()).values("id")
    return (
        Match.objects.filter(played_at__gte=since, played_at__lte=now)
        .filter(rating__deviation_a__lt=low, rating__deviation_b__lt=low)
        .exclude(player_a__in=flagged)
        .exclude(player_b__in=flagged)
    )


def _names(player_ids: set[str]) -> dict[str, tuple[str, str]]:
    """{player id: (name as shown, platform)}, in one query."""
    rows = Player.objects.filter(id__in=player_ids).values_list("id", "name", "platform")
    return {player: (shown_name(name), platform) for player, name, platform in rows}


def _side(player: str, character: int, value: float, names: dict, codes: dict) -> dict[str, Any]:
    name, platform = names[player]
    code, character_name = codes[character]
    return {
        "player_id": player,
        "name": name,
        "platform": platform,
        "character": code,
        "character_name": character_name,
        "value": value,
    }


def _upsets(games: QuerySet[Match]) -> list[dict[str, Any]]:
    """The games whose winner had the lowest chance shown (MatchRating.chance_a, from the
    winner's side), lowest first."""
    winner_chance = Case(
        When(winner=Match.Winner.A, then=F("rating__chance_a")),
        default=Value(1.0) - F("rating__chance_a"),
        output_field=FloatField(),
    )
    return list(
        games.annotate(chance=winner_chance)
        .order_by("chance", "-played_at", "-id")
        .values(
            "id",
            "played_at",
            "winner",
            "chance",
            "player_a_id",
            "character_a_id",
            "player_b_id",
            "character_b_id",
            "rating__value_a",
            "rating__value_b",
        )[:NOTABLE_LIMIT]
    )


def _sets(games: QuerySet[Match]) -> list[dict[str, Any]]:
    """The pairs of ratings that met most highly rated: the mean of both sides' mean
    pre-game values over their games in the window, highest first."""
    return list(
        games.values("player_a_id", "character_a_id", "player_b_id", "character_b_id")
        .annotate(
            games=Count("id"),
            wins_a=Count("id", filter=Q(winner=Match.Winner.A)),
            value_a=Avg("rating__value_a"),
            value_b=Avg("rating__value_b"),
            last_played_at=Max("played_at"),
        )
        .filter(games__gte=SET_MINIMUM_GAMES)
        .annotate(mean_value=(F("value_a") + F("value_b")) / 2)
        .order_by("-mean_value", "-last_played_at")[:NOTABLE_LIMIT]
    )


def _newcomers() -> list[dict[str, Any]]:
    """The players first seen most recently among those with a ranked rating, each once
    with their best ranked rating, newest first."""
    rows = (
        Rating.objects.filter(rules.ranked())
        .order_by("-player__first_seen", "player_id", "-value", "character_id")
        .distinct("player__first_seen", "player_id")
        .values(
            "player_id",
            "player__name",
            "player__platform",
            "player__first_seen",
            "character_id",
            "value",
            "deviation",
            "wins",
            "losses",
        )[:NOTABLE_LIMIT]
    )
    return list(rows)


def notable_games(now: datetime) -> dict[str, Any]:
    """The notable games of the NOTABLE_WINDOW up to `now`, as /recent and its API show them."""
    since = now - NOTABLE_WINDOW
    games = _settled_games(since, now)
    upsets, sets, newcomers = _upsets(games), _sets(games), _newcomers()
    codes = {
        character.id: (character.code, character.name) for character in Character.objects.all()
    }
    names = _names({row[key] for row in [*upsets, *sets] for key in ("player_a_id", "player_b_id")})

    def sides(row: dict[str, Any], a: str = "rating__value_a", b: str = "rating__value_b"):
        return (
            _side(row["player_a_id"], row["character_a_id"], row[a], names, codes),
            _side(row["player_b_id"], row["character_b_id"], row[b], names, codes),
        )

    upset_rows = []
    for row in upsets:
        side_a, side_b = sides(row)
        winner, loser = (side_a, side_b) if row["winner"] == Match.Winner.A else (side_b, side_a)
        upset_rows.append(
            {
                "match_id": row["id"],
                "played_at": utc_iso(row["played_at"]),
                "chance": row["chance"],
                "winner": winner,
                "loser": loser,
            }
        )
    set_rows = []
    for row in sets:
        side_a, side_b = sides(row, "value_a", "value_b")
        set_rows.append(
            {
                "last_played_at": utc_iso(row["last_played_at"]),
                "games": row["games"],
                "mean_value": row["mean_value"],
                "a": {**side_a, "wins": row["wins_a"]},
                "b": {**side_b, "wins": row["games"] - row["wins_a"]},
            }
        )
    return {
        "since": utc_iso(since),
        "until": utc_iso(now),
        "upsets": upset_rows,
        "sets": set_rows,
        "newcomers": [
            {
                "player_id": row["player_id"],
                "name": shown_name(row["player__name"]),
                "platform": row["player__platform"],
                "first_seen": utc_iso(row["player__first_seen"]),
                "character": codes[row["character_id"]][0],
                "character_name": codes[row["character_id"]][1],
                "value": row["value"],
                "deviation": row["deviation"],
                "games": row["wins"] + row["losses"],
            }
            for row in newcomers
        ],
    }
