"""Data dumps: the public ratings dump, one row per visible rating, streamed in a stable
order; an owner's rating history; and the CSV writing both share."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from typing import IO, Any

from players import rules
from players.models import Rating, RatingSnapshot

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
RATING_HISTORY_FIELDS = ("player_id", "character", "day", "value", "deviation")
# What a spreadsheet reads as a formula at the start of a cell (OWASP's CSV injection): a
# player's name is anything they typed in the game.
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


def rating_history(player_ids: list[str]) -> Iterator[dict[str, Any]]:
    """Every day-end value of these players' ratings (an owner's own data: private or not)."""
    rows = (
        RatingSnapshot.objects.filter(rating__player_id__in=player_ids)
        .order_by("rating__player_id", "rating__character_id", "day")
        .values_list("rating__player_id", "rating__character__code", "day", "value", "deviation")
    )
    for row in rows.iterator(chunk_size=5000):
        yield dict(zip(RATING_HISTORY_FIELDS, row, strict=True))


def write_csv(stream: IO[str], fields: Iterable[str], rows: Iterable[dict[str, Any]]) -> int:
    """Write `rows` as CSV with a header, formula-like texts neutralised; returns the count."""
    writer = csv.DictWriter(stream, fieldnames=list(fields), lineterminator="\n")
    writer.writeheader()
    count = 0
    for row in rows:
        writer.writerow({key: spreadsheet_safe(value) for key, value in row.items()})
        count += 1
    return count
