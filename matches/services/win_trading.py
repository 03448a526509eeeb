"""Find win-trading rings among the counted games and flag them for review
(docs/integrity.md#win-trading-rings); run by the periodic refresh.

One aggregation over the window's counted games (read as the range of ids that
played_at's BRIN index finds, so that its cost is the window's, not the table's) gives
the pairs that met at least the test's minimum number of times with one-sided results,
with both accounts' activity;
the pairs that also met far more often than their activity predicts (a handful) have
their games read, and the ring test (matches.ratings.win_trading) judges each.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from matches.ratings.integrity import Suspicion
from matches.ratings.win_trading import (
    PairGame,
    PairRecord,
    RingTest,
    is_candidate,
    pair_side,
    ring_suspicions,
)
from matches.services.integrity import record_suspicions

# The window's matches as a range of ids (count, first, last), read through played_at's
# BRIN index (matches 0005): with only min and max asked, the planner walks the primary
# key from one end until a game falls in the window, through every older game.
_WINDOW_IDS_SQL = """
SELECT count(*), min(id), max(id) FROM matches_match
WHERE played_at >= %(since)s AND played_at < %(until)s
"""

# Per pair of accounts (side A has the smaller id) with enough one-sided games, both
# accounts' counted games in the window and the window's count, in one pass over the
# window's games: they are grouped by pair, and the activity and the count summed from
# those groups. The id range bounds both tables' reads by the window: the ratings have
# no played_at, and without it the join read every rating ever stored.
_PAIRS_SQL = """
WITH all_pairs AS (
    SELECT m.player_a_id AS a, m.player_b_id AS b, count(*) AS games,
           count(*) FILTER (WHERE m.winner = 'A') AS a_wins,
           count(*) FILTER (WHERE m.winner = 'B') AS b_wins
    FROM matches_match m JOIN matches_matchrating r ON r.match_id = m.id
    WHERE r.counted AND m.played_at >= %(since)s AND m.played_at < %(until)s
      AND m.id BETWEEN %(first_id)s AND %(last_id)s
      AND r.match_id BETWEEN %(first_id)s AND %(last_id)s
    GROUP BY m.player_a_id, m.player_b_id
),
activity AS (
    SELECT player, sum(games)::bigint AS games FROM (
        SELECT a AS player, games FROM all_pairs
        UNION ALL
        SELECT b, games FROM all_pairs
    ) sides GROUP BY player
)
SELECT pairs.a, pairs.b, pairs.games, pairs.a_wins, activity_a.games, activity_b.games,
       (SELECT sum(games) FROM all_pairs)::bigint
FROM all_pairs pairs
JOIN activity activity_a ON activity_a.player = pairs.a
JOIN activity activity_b ON activity_b.player = pairs.b
WHERE pairs.games >= %(min_games)s
  AND greatest(pairs.a_wins, pairs.b_wins) >= %(min_share)s * pairs.games
"""

# The candidate pairs' counted games in the window, in the order played.
_PAIR_GAMES_SQL = """
SELECT m.player_a_id, m.player_b_id, m.id, extract(epoch FROM m.played_at)::float8,
       m.winner = 'A', r.chance_a, r.change_a, r.change_b
FROM matches_match m JOIN matches_matchrating r ON r.match_id = m.id
WHERE r.counted AND m.played_at >= %(since)s AND m.played_at < %(until)s
  AND (m.player_a_id, m.player_b_id) IN (SELECT * FROM unnest(%(a)s::text[], %(b)s::text[]))
ORDER BY m.played_at, m.id
"""


def ring_test() -> RingTest:
    """The ring test under the current settings."""
    return RingTest(
        min_games=settings.INTEGRITY_RING_MIN_GAMES,
        min_share=settings.INTEGRITY_RING_MIN_SHARE,
        frequency=settings.INTEGRITY_RING_FREQUENCY,
        probability=settings.INTEGRITY_RING_PROBABILITY,
        lift_half_life_days=settings.INTEGRITY_RING_LIFT_HALF_LIFE_DAYS,
        settled_deviation=settings.RATING_LOW_DEVIATION,
    )


def pair_records(since: datetime, until: datetime, test: RingTest) -> list[PairRecord]:
    """The pairs with at least the test's games and share of one side's wins between
    `since` and `until`."""
    window = {"since": since, "until": until}
    with connection.cursor() as cursor:
        cursor.execute(_WINDOW_IDS_SQL, window)
        games, first_id, last_id = cursor.fetchone()
        if not games:
            return []
        cursor.execute(
            _PAIRS_SQL,
            {
                **window,
                "first_id": first_id,
                "last_id": last_id,
                "min_games": test.min_games,
                "min_share": test.min_share,
            },
        )
        return [PairRecord(*row) for row in cursor.fetchall()]


def pair_games(
    records: list[PairRecord], since: datetime, until: datetime
) -> dict[tuple[str, str], list[PairGame]]:
    """The counted games of each pair between `since` and `until`, by (a, b)."""
    found: dict[tuple[str, str], list[PairGame]] = defaultdict(list)
    if not records:
        return found
    with connection.cursor() as cursor:
        cursor.execute(
            _PAIR_GAMES_SQL,
            {
                "since": since,
                "until": until,
                "a": [record.a for record in records],
                "b": [record.b for record in records],
            },
        )
        for a, b, *game in cursor.fetchall():
            found[a, b].append(PairGame(*game))
    return found


def find_rings(
    now: datetime | None = None, *, days: float | None = None, test: RingTest | None = None
) -> list[Suspicion]:
    """The ring test over the counted games of the `days` (by default
    INTEGRITY_RING_WINDOW_DAYS) before `now`: one suspicion per beneficiary."""
    until = now or timezone.now()
    since = until - timedelta(days=days or settings.INTEGRITY_RING_WINDOW_DAYS)
    test = test or ring_test()
    candidates = [r for r in pair_records(since, until, test) if is_candidate(r, test)]
    games = pair_games(candidates, since, until)
    sides = [
        side
        for record in candidates
        if (side := pair_side(record, games[record.a, record.b], test)) is not None
    ]
    return ring_suspicions(sides, test)


def flag_rings(now: datetime | None = None) -> int:
    """Flag the rings found for review (record_suspicions); returns how many flags opened."""
    return record_suspicions(find_rings(now), now)
