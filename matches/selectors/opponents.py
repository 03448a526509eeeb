"""Fair opponents (docs/rating-model.md#fair-opponents): who a (player, character) would have
an even game with.

Candidates are ratings played in the last settings.FAIR_OPPONENT_DAYS days whose
players are neither hidden nor cheaters.  A game is fairest when P(win), using both
deviations, is nearest 0.5; ties go to the better-known (lower-deviation) rating
(matches.ratings.matchmaking.fairest_opponents).

The query stays bounded on millions of ratings: it reads only the CANDIDATES_PER_SIDE
ratings nearest in value above and below the target (two ordered, limited index walks,
read in one query).
P(win) depends on the value gap far more than on the deviations, so the fairest
opponents are among them; a distant rating with a huge deviation can be missed,
which is no loss for a suggestion.

The API shows them as read (`fair_opponents`); the profile as `FairOpponent` rows
(`profile_fair_opponents`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection
from django.utils import timezone

from matches.ratings.matchmaking import fairest_opponents, match_quality_glicko
from matches.selectors.chances import chance_model
from players import rules
from players.models import Rating
from players.selectors.roster import current_roster
from players.tiers import settled_tier

CANDIDATES_PER_SIDE = 100


class _Rated(NamedTuple):
    """A rating as matchmaking sees it (the HasGlicko protocol) plus what a page shows."""

    rating: float
    deviation: float
    player_id: str = ""
    name: str = ""
    character: str = ""
    character_id: int | None = None


# The CANDIDATES_PER_SIDE active ratings nearest in value above and below a value (two
# ordered, limited walks of the value index, {side}), each read with its player's name as
# it is walked (joined there already, to leave out flagged players: reading them again by
# id cost as much as the walks), ordered by value (ties go the same way every time).
# Written out, as the ORM built this query for longer than PostgreSQL ran it.
_NEAREST_SQL = """
SELECT n.value, n.deviation, n.player_id, n.name, c.code, c.id
FROM ({above} UNION ALL {below}) n
JOIN players_character c ON c.id = n.character_id
ORDER BY n.value, n.id
"""
_SIDE_SQL = """SELECT * FROM (
    SELECT r.value, r.deviation, r.player_id, p.name, r.character_id, r.id
    FROM players_rating r JOIN players_player p ON p.id = r.player_id
    WHERE r.last_played_at >= %(since)s AND NOT {flagged}
        AND r.player_id <> %(player)s AND r.value {compare} %(value)s
    ORDER BY r.value {order}, r.id {order} LIMIT %(size)s
) {name}"""


def _nearest_sql() -> str:
    side = partial(_SIDE_SQL.format, flagged=rules.flagged_sql("p"))
    return _NEAREST_SQL.format(
        above=side(compare=">=", order="ASC", name="above"),
        below=side(compare="<", order="DESC", name="below"),
    )


def fair_opponents(
    player_id: str,
    character_id: int,
    limit: int = 10,
    *,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """The `limit` fairest opponents for a rating, fairest first; [] for an unknown or
    hidden rating.  Two queries whatever the size of the table, and the chance model
    (cached, else one query)."""
    row = (
        Rating.objects.filter(
            ~rules.hidden("player__"), player_id=player_id, character_id=character_id
        )
        .values_list("value", "deviation")
        .first()
    )
    if row is None:
        return []
    return fair_opponents_at(player_id, character_id, *row, limit, now=now)


def fair_opponents_at(
    player_id: str,
    character_id: int,
    value: float,
    deviation: float,
    limit: int = 10,
    *,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """`fair_opponents` for a rating already read (its player visible): one query, and the
    chance model (cached, else one query)."""
    if limit <= 0:
        return []
    target = _Rated(value, deviation, player_id, character_id=character_id)
    since = (now or timezone.now()) - timedelta(days=settings.FAIR_OPPONENT_DAYS)
    with connection.cursor() as cursor:
        cursor.execute(
            _nearest_sql(),
            {
                "since": connection.ops.adapt_datetimefield_value(since),
                "player": player_id,
                "value": target.rating,
                "size": max(CANDIDATES_PER_SIDE, limit),
            },
        )
        candidates = [_Rated(*values) for values in cursor.fetchall()]
    chances = chance_model()
    suggestions = []
    for opponent in fairest_opponents(target, candidates, limit):
        chance = chances.game(
            target.rating,
            target.deviation,
            opponent.rating,
            opponent.deviation,
            character_id,
            opponent.character_id,
        )
        suggestions.append(
            {
                "player_id": opponent.player_id,
                "name": opponent.name,
                "character": opponent.character,
                "value": opponent.rating,
                "deviation": opponent.deviation,
                "tier": settled_tier(opponent.rating, opponent.deviation),
                "model_win_probability": chance.ratings,
                "win_probability": chance.chance,
                "quality": match_quality_glicko(target, opponent),
            }
        )
    return suggestions


class FairOpponent(NamedTuple):
    """A fair opponent for a rating, as the profile's "good matches" block shows it."""

    player_id: str
    name: str
    character_code: str
    character_name: str
    value: float
    deviation: float
    win_probability: float  # the profile owner's chance to beat them


PROFILE_FAIR_OPPONENTS = 10


def profile_fair_opponents(
    rating: Rating, limit: int = PROFILE_FAIR_OPPONENTS
) -> list[FairOpponent]:
    """The fairest recently active opponents for `rating`, fairest first
    (`fair_opponents_at`: one query, never hidden players or cheaters).
    A player flagged for cheating gets none, without a query: their games move nobody."""
    if rules.is_flagged(rating.player):
        return []
    names = {code: character.name for code, character in current_roster().by_code.items()}
    return [
        FairOpponent(
            row["player_id"],
            row["name"],
            row["character"],
            names.get(row["character"], row["character"]),
            row["value"],
            row["deviation"],
            row["win_probability"],
        )
        for row in fair_opponents_at(
            rating.player_id,
            rating.character_id,
            rating.value,
            rating.deviation,
            limit,
        )
    ]
