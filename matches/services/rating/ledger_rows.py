"""The table rows a MatchupLedger's state becomes: player matchup sums and daily
snapshots.

Written by incremental rating (rating.storage); the recompute writes the same columns
from its arrays (rating.recompute_storage).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime

from matches.ratings.ledger import MatchupLedger, RatingKey

PLAYER_MATCHUP_COLUMNS = (
    "rating_id",
    "opponent_character_id",
    "wins",
    "losses",
    "expected_wins",
    "information",
)
SNAPSHOT_COLUMNS = ("rating_id", "day", "value", "deviation")

_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def moment(epoch: float | None) -> datetime | None:
    """Epoch seconds as an aware datetime, as the ledgers' times are stored."""
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC)


def player_matchup_rows(
    ledger: MatchupLedger, rating_ids: Mapping[RatingKey, int]
) -> Iterator[tuple]:
    """Rows of PLAYER_MATCHUP_COLUMNS for the player matchups changed since the last write."""
    matchups = ledger.player_matchups
    for key in ledger.touched_player_matchups:
        rating_key, opponent = key
        m = matchups[key]
        yield (rating_ids[rating_key], opponent, m.wins, m.losses, m.expected_wins, m.information)


def snapshot_rows(
    snapshots: Mapping[tuple[RatingKey, int], tuple[float, float]],
    rating_ids: Mapping[RatingKey, int],
) -> Iterator[tuple]:
    """Rows of SNAPSHOT_COLUMNS for snapshots taken from a ledger."""
    days: dict[int, date] = {}  # a few hundred distinct days among a million snapshots
    for (rating_key, day), (value, deviation) in snapshots.items():
        day_date = days.get(day)
        if day_date is None:
            day_date = days[day] = date.fromordinal(_EPOCH_ORDINAL + day)
        yield (rating_ids[rating_key], day_date, value, deviation)
