"""The periodic refresh (DESIGN.md section 4.6, step 3): decay, ranks and site statistics.

Pages read what this writes (rank columns on ratings, SiteStatistic rows) and never
aggregate millions of rows per request.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Case, CharField, Count, F, IntegerField, Q, Sum, Value, When
from django.db.models.functions import Floor, TruncDate
from django.utils import timezone

from matches.models import Match
from matches.services.character_matchups import rebuild_character_matchups
from matches.services.ranks import refresh_ranks
from matches.services.rating.decay import decay_all_ratings
from matches.services.site_statistic import store_statistic
from players.models import Character, Player, Rating
from web.generation import bump_generation

RATING_BIN_WIDTH = 50
GAMES_PER_DAY_WINDOW = timedelta(days=90)
# Rating brackets for character popularity: (key, label, lowest value or None).
POPULARITY_BRACKETS: tuple[tuple[str, str, float | None, float | None], ...] = (
    ("below1400", "Below 1400", None, 1400.0),
    ("1400", "1400-1600", 1400.0, 1600.0),
    ("1600", "1600-1800", 1600.0, 1800.0),
    ("1800", "1800+", 1800.0, None),
)


def _totals(now: datetime) -> dict[str, int]:
    matches = Match.objects.visible()
    return {
        "games": matches.count(),
        "players": Player.objects.visible().count(),
        "ratings": Rating.objects.filter(player__hidden=False).count(),
        "ranked": Rating.objects.filter(global_rank__isnull=False).count(),
        "games_24h": matches.filter(played_at__gte=now - timedelta(hours=24)).count(),
    }


def _games_per_day(now: datetime) -> list[dict[str, Any]]:
    rows = (
        Match.objects.visible()
        .filter(played_at__gte=now - GAMES_PER_DAY_WINDOW)
        .annotate(day=TruncDate("played_at"))
        .values("day")
        .annotate(games=Count("id"))
        .order_by("day")
    )
    return [{"day": row["day"].isoformat(), "games": row["games"]} for row in rows]


def _rating_distribution() -> dict[str, Any]:
    rows = (
        Rating.objects.filter(global_rank__isnull=False)
        .annotate(bin=Floor(F("value") / RATING_BIN_WIDTH))
        .values("bin")
        .annotate(count=Count("id"))
        .order_by("bin")
    )
    return {
        "bin_width": RATING_BIN_WIDTH,
        "bins": [
            {
                "from": float(row["bin"] * RATING_BIN_WIDTH),
                "to": float((row["bin"] + 1) * RATING_BIN_WIDTH),
                "count": row["count"],
            }
            for row in rows
        ],
    }


def _floor_distribution() -> list[dict[str, int]]:
    rows = (
        Player.objects.visible()
        .filter(floor__isnull=False)
        .values("floor")
        .annotate(players=Count("id"))
        .order_by("floor")
    )
    return [{"floor": row["floor"], "players": row["players"]} for row in rows]


def _popularity() -> dict[str, Any]:
    """Each character's share of the games played by ratings in each value bracket."""
    bracket = Case(
        *[
            When(
                Q(value__gte=low)
                if high is None
                else Q(value__lt=high)
                if low is None
                else Q(value__gte=low, value__lt=high),
                then=Value(key),
            )
            for key, _, low, high in POPULARITY_BRACKETS
        ],
        output_field=CharField(),
    )
    rows = (
        Rating.objects.filter(player__hidden=False)
        .annotate(bracket=bracket)
        .values("character_id", "bracket")
        .annotate(games=Sum(F("wins") + F("losses"), output_field=IntegerField()))
    )
    games: dict[tuple[int, str], int] = {}
    for row in rows:
        for key in ("all", row["bracket"]):
            games[(row["character_id"], key)] = games.get((row["character_id"], key), 0) + (
                row["games"] or 0
            )
    keys = ["all", *(key for key, *_ in POPULARITY_BRACKETS)]
    totals = {key: sum(n for (_, k), n in games.items() if k == key) for key in keys}
    return {
        "brackets": [{"key": "all", "label": "All"}]
        + [{"key": key, "label": label} for key, label, *_ in POPULARITY_BRACKETS],
        "rows": [
            {
                "character": character.code,
                "name": character.name,
                "shares": {
                    key: (games.get((character.id, key), 0) / totals[key] if totals[key] else 0.0)
                    for key in keys
                },
            }
            for character in Character.objects.all()
        ],
    }


def refresh_statistics(now: datetime | None = None) -> None:
    """The hourly refresh: decay idle ratings, re-rank, rebuild the character matchups,
    recompute every site statistic."""
    now = now or timezone.now()
    decay_all_ratings(now)
    refresh_ranks()
    rebuild_character_matchups()
    with transaction.atomic():
        store_statistic("totals", _totals(now))
        store_statistic("games_per_day", _games_per_day(now))
        store_statistic("rating_distribution", _rating_distribution())
        store_statistic("floor_distribution", _floor_distribution())
        store_statistic("popularity", _popularity())
    bump_generation()
