"""A rating over time (docs/pages-and-api.md#pages: the profile's chart, and its API's
`history/`): a point after each of its latest games, or one at the end of each day
played (daily snapshots). Each function does a fixed number of queries whatever the size
of the data, on indexed columns only."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.db import connection

from matches.models import Match
from matches.params import glicko_params
from matches.ratings.glicko import update
from matches.selectors.match_history import from_utc_wall_time, utc_wall_time
from players import rules
from players.models import Rating, RatingSnapshot

# Per-game history points for the short ranges (API); beyond this it gives the latest.
HISTORY_GAME_POINTS = 1000
# The profile chart's per-game points: its latest games in the range, the days before them
# one point a day, so that the whole range is drawn within the chart's 300 points
# (matches.charts.MAX_CHART_POINTS) and a busy rating's chart reads about a hundred games
# a side (250 cost the page's largest query at ten million games).
CHART_GAME_POINTS = 120
HISTORY_RANGES: dict[str, timedelta | None] = {
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
    "all": None,  # daily snapshots
}
DEFAULT_HISTORY_RANGE = "30d"


@dataclass(frozen=True)
class HistoryPoint:
    at: datetime
    value: float
    deviation: float


# A rating's latest games since a moment, each side along its own (player, character,
# played_at, id) index and stopping after `limit`, the latest `limit` of both sides kept
# from the index alone before any row is read (no game is on both sides:
# match_not_against_self), then a few numbers of them as plain rows. Raw: the ORM cannot
# filter on a limited UNION of the sides, and filtering the games whole reads all of a
# busy rating's month.
_LATEST_GAMES_SQL = """
SELECT {played_at}, m.winner, r.counted,
    m.player_a_id = %(player)s AND m.character_a_id = %(character)s,
    m.player_a_id IN ({withdrawn_ids}),
    m.player_b_id IN ({withdrawn_ids}),
    r.value_a, r.deviation_a, r.change_a, r.value_b, r.deviation_b, r.change_b
FROM matches_match m LEFT OUTER JOIN matches_matchrating r ON r.match_id = m.id
WHERE m.id IN (SELECT id FROM (
    {side_a} UNION ALL {side_b} ORDER BY played_at DESC, id DESC LIMIT %(limit)s
) latest)
ORDER BY m.played_at DESC, m.id DESC
"""
_LATEST_SIDE_SQL = """SELECT id, played_at FROM (
        SELECT id, played_at FROM matches_match
        WHERE player_{side}_id = %(player)s AND character_{side}_id = %(character)s
            AND played_at >= %(since)s
        ORDER BY played_at DESC, id DESC LIMIT %(limit)s
    ) side_{side}"""
_LATEST_GAMES = _LATEST_GAMES_SQL.format(
    side_a=_LATEST_SIDE_SQL.format(side="a"),
    side_b=_LATEST_SIDE_SQL.format(side="b"),
    played_at="{played_at}",
    withdrawn_ids="{withdrawn_ids}",
)


def _points_after_games(
    rating: Rating, since: datetime, limit: int
) -> tuple[list[HistoryPoint], bool]:
    """The rating before the first of its last `limit` games since `since`, then after
    each of them (oldest first), leaving out games not yet rated and those against
    withdrawn players (hidden by an operator; a private one's games are drawn); and
    whether those are all its games since then. One query (`_LATEST_GAMES_SQL`).

    Each side picks its latest games' ids from its index alone; filtering on the result
    or the opponent there instead would let the planner, expecting a rating to have a
    handful of games, read and sort all of a busy rating's month (thousands of games)
    to keep the last few hundred. Hidden players are few: hashed, not joined.
    """
    params = glicko_params()
    with connection.cursor() as cursor:
        # One more than `limit` tells whether older games are left out.
        cursor.execute(
            _LATEST_GAMES.format(
                played_at=utc_wall_time("m.played_at"), withdrawn_ids=rules.withdrawn_ids_sql()
            ),
            {
                "player": rating.player_id,
                "character": rating.character_id,
                "since": connection.ops.adapt_datetimefield_value(since),
                "limit": limit + 1,
            },
        )
        rows = cursor.fetchall()
    complete = len(rows) <= limit
    points: list[HistoryPoint] = []
    for row in reversed(rows[:limit]):  # the latest `limit`, oldest first
        at, winner, counted, on_a, hidden_a, hidden_b, *results = row
        # Pending games (no result yet) and hidden opponents' are counted but not drawn.
        if counted is None or (hidden_b if on_a else hidden_a):
            continue
        at = from_utc_wall_time(at)
        mine, theirs = (results[:3], results[3:]) if on_a else (results[3:], results[:3])
        value, deviation, change = mine
        if not points:
            points.append(HistoryPoint(at, value, deviation))
        after = deviation
        if counted:
            won = winner == (Match.Winner.A if on_a else Match.Winner.B)
            after = update(value, deviation, *theirs[:2], 1.0 if won else 0.0, params)[1]
        points.append(HistoryPoint(at, value + change, after))
    return points, complete


def _daily_points(
    rating: Rating, *, since: date | None = None, before: date | None = None
) -> list[HistoryPoint]:
    """A point at the end of each day (UTC) the rating has a snapshot of, from `since` on
    and before `before`, oldest first. One query."""
    snapshots = RatingSnapshot.objects.filter(rating_id=rating.id)
    if since is not None:
        snapshots = snapshots.filter(day__gte=since)
    if before is not None:
        snapshots = snapshots.filter(day__lt=before)
    return [
        HistoryPoint(datetime.combine(day, time(23, 59), UTC), value, deviation)
        for day, value, deviation in snapshots.order_by("day").values_list(
            "day", "value", "deviation"
        )
    ]


def rating_history(
    rating: Rating, history_range: str = DEFAULT_HISTORY_RANGE, *, until: datetime | None = None
) -> list[HistoryPoint]:
    """Points of a rating over a range ending `until`, by default at its last game (the
    API's "days of play"), oldest first.

    Short ranges have a point per game (the rating after it, from the match rows), for
    at most its last HISTORY_GAME_POINTS games; 'all' has one per day played (daily
    snapshots). One query.
    """
    span = HISTORY_RANGES[history_range]
    if span is None:
        return _daily_points(rating)
    if rating.last_played_at is None:
        return []
    since = (until or rating.last_played_at) - span
    return _points_after_games(rating, since, HISTORY_GAME_POINTS)[0]


def chart_history(
    rating: Rating, history_range: str = DEFAULT_HISTORY_RANGE, *, until: datetime
) -> tuple[list[HistoryPoint], int]:
    """The profile chart's points over a range ending `until`, oldest first, and how many
    of the first ones are one a day: like `rating_history`, but a short range keeps a
    point per game for its last CHART_GAME_POINTS games only and covers the days before
    them with a point per day, so that the line spans the whole range however busy the
    rating. Up to two queries.
    """
    span = HISTORY_RANGES[history_range]
    if span is None or rating.last_played_at is None:
        points = rating_history(rating, history_range, until=until)
        return points, len(points) if span is None else 0
    since = until - span
    points, complete = _points_after_games(rating, since, CHART_GAME_POINTS)
    if complete:
        return points, 0
    # The days wholly before the first game kept: its own day's comes after it.
    before = points[0].at.astimezone(UTC).date() if points else None
    days = _daily_points(rating, since=since.astimezone(UTC).date(), before=before)
    return days + points, len(days)
