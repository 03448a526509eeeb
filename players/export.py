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
    "cheater",  # marked by an operator: the games count for nobody (docs/rating-model.md)
)

# What a spreadsheet reads as a formula at the start of a cell (OWASP's CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """A text that a spreadsheet would run as a formula, with a leading apostrophe that
    makes it plain text (`=cmd|' /C calc'!A0` is written `'=cmd|' /C calc'!A0`)."""
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


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
            "player__cheater",
        )
    )
    for row in rows.iterator(chunk_size=5000):
        yield dict(zip(EXPORT_FIELDS, row, strict=True))
