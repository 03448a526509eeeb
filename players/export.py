"""The public ratings dump: one row per visible rating, streamed in a stable order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from players import rules
from players.models import Rating

EXPORT_FIELDS = (
    "player_id",
    "name",
    "character",
    "value",
    "deviation",
    "wins",
    "losses",
)


def exported_ratings() -> Iterator[dict[str, Any]]:
    rows = (
        Rating.objects.filter(~rules.hidden("player__"))
        .order_by("player_id", "character_id")
        .values_list(
            "player_id",
            "player__name",
            "character__code",
            "value",
            "deviation",
            "wins",
            "losses",
        )
    )
    for row in rows.iterator(chunk_size=5000):
        yield dict(zip(EXPORT_FIELDS, row, strict=True))
