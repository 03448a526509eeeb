"""Rating rows as the ledger's states (matches/ratings/ledger.py): the one adapter between
the Rating table and `RatingState`, read by the write path (matches/services/rating) and
by the calculator's forecast alike, so a forecast runs the very rules a game's rating does."""

from __future__ import annotations

from datetime import datetime

from matches.ratings.ledger import RATING_FIELDS, RatingState
from players.models import Rating

# Rating's columns for RATING_FIELDS, in that order (the two foreign keys by their ids).
RATING_STATE_COLUMNS = tuple(
    f"{name}_id" if name in ("best_win_opponent", "best_win_character") else name
    for name in RATING_FIELDS
)
RATING_TIME_COLUMNS = frozenset({"last_played_at", "last_decay_at", "peak_at", "best_win_at"})


def _epoch(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def rating_state(rating_id: int, values: tuple) -> RatingState:
    """A state from a row of RATING_STATE_COLUMNS."""
    fields = dict(zip(RATING_FIELDS, values, strict=True))
    for name in RATING_TIME_COLUMNS:
        fields[name] = _epoch(fields[name])
    fields["confirming_players"] = tuple(fields["confirming_players"].split())
    value, deviation = fields.pop("value"), fields.pop("deviation")
    return RatingState(value, deviation, rating_id=rating_id, **fields)


def state_of(rating: Rating) -> RatingState:
    """The state of a Rating read whole."""
    return rating_state(rating.id, tuple(getattr(rating, name) for name in RATING_STATE_COLUMNS))
