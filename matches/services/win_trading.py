"""Find win-trading rings among the counted games and flag them for review
(docs/integrity.md#win-trading-rings); run by the periodic refresh.

A full check: one aggregation over the window's counted games (read as the range of ids
that played_at's BRIN index finds, so that its cost is the window's, not the table's)
gives the pairs that met at least the test's minimum number of times with one-sided
results, with both accounts' activity; the pairs that also met far more often than their
activity predicts (a handful) have their games read, and the ring test
(matches.ratings.win_trading) judges each.

The refresh checks only what changed (`flag_rings`): the pairs with counted games rated
since its last check (a rated-time mark, read under the rating writer's lock), each read
through the side indexes, so that a refresh costs its new games, not the window. Each
such pair's record is the full check's (the window's games, both accounts' activity in
it); a beneficiary found brings all of its pairs in the window back in, so that its
suspicion lists every partner, as the full check's does. A pair with no game since is
not judged again: it was judged at its last game (after a recompute every game is new).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from functools import cached_property

from django.conf import settings
from django.db import connection
from django.utils import timezone

from matches.models import SiteStatistic
from matches.ratings.integrity import Suspicion
from matches.ratings.win_trading import (
    PairGame,
    PairRecord,
    PairSide,
    RingTest,
    is_candidate,
    pair_side,
    ring_suspicions,
)
from matches.services.integrity import record_suspicions
from matches.services.locks import rated_through
from matches.services.site_statistic import store_statistic

# Internal (a SiteStatistic row, not shown): up to which rating time, and under which test
# and window, the last check judged the pairs.
CHECKED_THROUGH = "win_trading_checked_through"

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

# The pairs (side A has the smaller id) of the counted games rated in a span of rating
# time (rated_at's BRIN index) and played in the window.
_TOUCHED_PAIRS_SQL = """
SELECT DISTINCT m.player_a_id, m.player_b_id
FROM matches_matchrating r JOIN matches_match m ON m.id = r.match_id
WHERE r.counted AND r.rated_at > %(rated_since)s AND r.rated_at <= %(rated_through)s
  AND m.played_at >= %(since)s AND m.played_at < %(until)s
"""

# Every pair in the window with one of the players on either side, through the side
# indexes.
_PLAYERS_PAIRS_SQL = """
SELECT m.player_a_id, m.player_b_id
FROM matches_match m JOIN matches_matchrating r ON r.match_id = m.id
WHERE r.counted AND m.played_at >= %(since)s AND m.played_at < %(until)s
  AND m.player_a_id = ANY(%(players)s::text[])
UNION
SELECT m.player_a_id, m.player_b_id
FROM matches_match m JOIN matches_matchrating r ON r.match_id = m.id
WHERE r.counted AND m.played_at >= %(since)s AND m.played_at < %(until)s
  AND m.player_b_id = ANY(%(players)s::text[])
"""

# _PAIRS_SQL's rows for the named pairs only (without the window's count), each pair's
# games and each account's activity read through the side indexes.
_NAMED_PAIRS_SQL = """
WITH named AS (
    SELECT DISTINCT * FROM unnest(%(a)s::text[], %(b)s::text[]) AS n(a, b)
), pairs AS (
    SELECT n.a, n.b, count(*) AS games,
           count(*) FILTER (WHERE m.winner = 'A') AS a_wins,
           count(*) FILTER (WHERE m.winner = 'B') AS b_wins
    FROM named n
    JOIN matches_match m ON m.player_a_id = n.a AND m.player_b_id = n.b
    JOIN matches_matchrating r ON r.match_id = m.id
    WHERE r.counted AND m.played_at >= %(since)s AND m.played_at < %(until)s
    GROUP BY n.a, n.b
    HAVING count(*) >= %(min_games)s
       AND greatest(count(*) FILTER (WHERE m.winner = 'A'),
                    count(*) FILTER (WHERE m.winner = 'B')) >= %(min_share)s * count(*)
), players AS (
    SELECT a AS player FROM pairs UNION SELECT b FROM pairs
), activity AS (
    SELECT p.player, (
        SELECT count(*) FROM matches_match m JOIN matches_matchrating r ON r.match_id = m.id
        WHERE m.player_a_id = p.player AND r.counted
          AND m.played_at >= %(since)s AND m.played_at < %(until)s
    ) + (
        SELECT count(*) FROM matches_match m JOIN matches_matchrating r ON r.match_id = m.id
        WHERE m.player_b_id = p.player AND r.counted
          AND m.played_at >= %(since)s AND m.played_at < %(until)s
    ) AS games
    FROM players p
)
SELECT pairs.a, pairs.b, pairs.games, pairs.a_wins, activity_a.games, activity_b.games
FROM pairs
JOIN activity activity_a ON activity_a.player = pairs.a
JOIN activity activity_b ON activity_b.player = pairs.b
"""

# The window's counted games (the sum of every pair's games), over its range of ids.
_WINDOW_GAMES_SQL = """
SELECT count(*)
FROM matches_match m JOIN matches_matchrating r ON r.match_id = m.id
WHERE r.counted AND m.played_at >= %(since)s AND m.played_at < %(until)s
  AND m.id BETWEEN %(first_id)s AND %(last_id)s
  AND r.match_id BETWEEN %(first_id)s AND %(last_id)s
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


def touched_pairs(
    since: datetime, until: datetime, rated_since: datetime, rated_through: datetime
) -> list[tuple[str, str]]:
    """The pairs with counted games played between `since` and `until` and rated after
    `rated_since`, up to `rated_through`."""
    with connection.cursor() as cursor:
        cursor.execute(
            _TOUCHED_PAIRS_SQL,
            {
                "since": since,
                "until": until,
                "rated_since": rated_since,
                "rated_through": rated_through,
            },
        )
        return cursor.fetchall()


def pairs_of_players(players: set[str], since: datetime, until: datetime) -> list[tuple[str, str]]:
    """Every pair with counted games between `since` and `until` that one of `players` is in."""
    with connection.cursor() as cursor:
        cursor.execute(
            _PLAYERS_PAIRS_SQL, {"since": since, "until": until, "players": sorted(players)}
        )
        return cursor.fetchall()


@dataclass
class WindowCount:
    """The counted games of the window from `since` to `until`, a pass over all its games:
    read when first needed, then kept, so that a check reads it at most once however many
    times it names candidates."""

    since: datetime
    until: datetime

    @cached_property
    def games(self) -> int:
        window = {"since": self.since, "until": self.until}
        with connection.cursor() as cursor:
            cursor.execute(_WINDOW_IDS_SQL, window)
            _, first_id, last_id = cursor.fetchone()
            cursor.execute(_WINDOW_GAMES_SQL, {**window, "first_id": first_id, "last_id": last_id})
            return cursor.fetchone()[0]


def named_candidates(
    pairs: list[tuple[str, str]], window: WindowCount, test: RingTest
) -> list[PairRecord]:
    """The candidates (is_candidate) among `pairs`, with the records pair_records gives
    them. The window's count is read only when a pair passes with the highest match id in
    its place: no more games than that can be in the window, and a larger count only
    makes a pair likelier to pass."""
    if not pairs:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            _NAMED_PAIRS_SQL,
            {
                "since": window.since,
                "until": window.until,
                "a": [a for a, _ in pairs],
                "b": [b for _, b in pairs],
                "min_games": test.min_games,
                "min_share": test.min_share,
            },
        )
        rows = cursor.fetchall()
        if not rows:
            return []
        cursor.execute("SELECT coalesce(max(id), 0) FROM matches_match")
        most = cursor.fetchone()[0]
    if not any(is_candidate(PairRecord(*row, most), test) for row in rows):
        return []
    return [r for row in rows if is_candidate(r := PairRecord(*row, window.games), test)]


def _sides(
    candidates: list[PairRecord], since: datetime, until: datetime, test: RingTest
) -> list[PairSide]:
    games = pair_games(candidates, since, until)
    return [
        side
        for record in candidates
        if (side := pair_side(record, games[record.a, record.b], test)) is not None
    ]


def find_rings(
    now: datetime | None = None,
    *,
    days: float | None = None,
    test: RingTest | None = None,
    rated_since: datetime | None = None,
    rated_through: datetime | None = None,
) -> list[Suspicion]:
    """The ring test over the counted games of the `days` (by default
    INTEGRITY_RING_WINDOW_DAYS) before `now`: one suspicion per beneficiary. With
    `rated_since`, only the beneficiaries of a candidate pair that has games rated after
    it (up to `rated_through`, by default now), each judged on all of its pairs."""
    until = now or timezone.now()
    since = until - timedelta(days=days or settings.INTEGRITY_RING_WINDOW_DAYS)
    test = test or ring_test()
    if rated_since is None:
        candidates = [r for r in pair_records(since, until, test) if is_candidate(r, test)]
        return ring_suspicions(_sides(candidates, since, until, test), test)
    touched = touched_pairs(since, until, rated_since, rated_through or timezone.now())
    window = WindowCount(since, until)
    sides = _sides(named_candidates(touched, window, test), since, until, test)
    beneficiaries = {side.beneficiary for side in sides}
    if not beneficiaries:
        return []
    # A beneficiary's pairs without new games belong to its ring too; the sides of other
    # beneficiaries found among them are left out (their other pairs unread).
    around = pairs_of_players(beneficiaries, since, until)
    sides = _sides(named_candidates(around, window, test), since, until, test)
    return ring_suspicions((side for side in sides if side.beneficiary in beneficiaries), test)


def flag_rings(now: datetime | None = None) -> int:
    """Flag the rings found for review (record_suspicions) among the pairs with games
    rated since the last check (all of them the first time, or when the test or the
    window changed); returns how many flags opened."""
    test = ring_test()
    basis = {"test": asdict(test), "days": settings.INTEGRITY_RING_WINDOW_DAYS}
    through = rated_through()
    mark = SiteStatistic.objects.filter(key=CHECKED_THROUGH).values_list("data", flat=True)
    last = mark.first()
    rated_since = None
    if last is not None and last["basis"] == basis:
        rated_since = datetime.fromisoformat(last["through"])
    found = find_rings(now, test=test, rated_since=rated_since, rated_through=through)
    opened = record_suspicions(found, now)
    store_statistic(CHECKED_THROUGH, {"basis": basis, "through": through.isoformat()})
    return opened
