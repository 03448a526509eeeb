"""An owner's own data (players.services.ownership): every game of their accounts, read
through the match history, so that private opponents are "a private player" here too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from matches.selectors.match_history import match_sets
from players.models import Rating

GAME_FIELDS = (
    "player_id",
    "character",
    "played_at",
    "result",
    "opponent_id",
    "opponent",
    "opponent_character",
    "rating_before",
    "deviation_before",
    "change",
    "opponent_rating_before",
    "counted",
)
PAGE = 5000


def owner_games(player_ids: list[str]) -> Iterator[dict[str, Any]]:
    """Every game of these players' ratings, rating by rating, newest first."""
    ratings = Rating.objects.filter(player_id__in=player_ids).select_related("character")
    for rating in ratings.order_by("player_id", "character_id"):
        before = None
        while True:
            page = match_sets(rating, before=before, games=PAGE)
            for game_set in page.sets:
                for game in game_set.games:
                    yield {
                        "player_id": rating.player_id,
                        "character": rating.character.code,
                        "played_at": game.played_at.isoformat(),
                        "result": "win" if game.won else "loss",
                        "opponent_id": game.opponent.id,
                        "opponent": game.opponent.name,
                        "opponent_character": game.opponent_character.code,
                        "rating_before": game.value,
                        "deviation_before": game.deviation,
                        "change": game.change,
                        "opponent_rating_before": game.opponent_value,
                        "counted": game.counted,
                    }
            if page.next_cursor is None:
                break
            before = page.next_cursor
