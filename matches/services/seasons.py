"""Season ladders (README.md#seasons), written by the periodic refresh: the live ladder of
each season under way, rewritten at every refresh, and once a season has ended its final
standings, archived once and never written again (not by a recompute, a flag change or a
later refresh: nothing here touches an archived season).

A ladder lists the rankable ratings (settled, and confirmed by enough different settled
opponents) of players not flagged (players.rules) with at least
SEASON_MIN_GAMES counted games in the season, best first (value, then rating id, as the
rankings order them), the first SEASON_ARCHIVE_PLACES overall and per character.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.db import connection, transaction

from matches.models import Season, SeasonStanding
from matches.selectors.seasons import OVERALL
from players import rules

# The counted games of each rating in the season, both sides of a game at once: a UNION
# grouped as one, which the ORM cannot say; read once for every ladder of the season.
_SEASON_GAMES_SQL = """
WITH sides AS (
    SELECT m.player_a_id AS player_id, m.character_a_id AS character_id
    FROM matches_match m JOIN matches_matchrating mr ON mr.match_id = m.id
    WHERE mr.counted AND m.played_at >= %(start)s AND m.played_at < %(end)s
    UNION ALL
    SELECT m.player_b_id, m.character_b_id
    FROM matches_match m JOIN matches_matchrating mr ON mr.match_id = m.id
    WHERE mr.counted AND m.played_at >= %(start)s AND m.played_at < %(end)s
), games AS (
    SELECT player_id, character_id, count(*) AS games FROM sides
    GROUP BY player_id, character_id HAVING count(*) >= %(min_games)s
)
SELECT g.player_id, p.name, g.character_id, v.value, v.deviation, g.games, r.id
FROM games g
JOIN players_player p ON p.id = g.player_id
JOIN players_rating r ON r.player_id = g.player_id AND r.character_id = g.character_id
{value}
WHERE NOT ({flagged}) AND {settled} AND {confirmed}
ORDER BY v.value DESC, r.id
"""
# The live ladder reads the ratings as they are now.
_NOW = "CROSS JOIN LATERAL (SELECT r.value, r.deviation) v"
# The archive reads each rating as the season's last day left it: its last daily snapshot
# (taken after its last counted game of a day) before the day after the season.
_AT_END = """CROSS JOIN LATERAL (
    SELECT s.value, s.deviation FROM players_ratingsnapshot s
    WHERE s.rating_id = r.id AND s.day < %(end_day)s ORDER BY s.day DESC LIMIT 1
) v"""


def season_bounds(season: Season) -> tuple[datetime, datetime]:
    """The season's first moment and the first moment after it (UTC midnights)."""
    return _midnight(season.start), _midnight(season.end + timedelta(days=1))


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(), tzinfo=UTC)


def season_ladders(season: Season, *, final: bool, now: datetime) -> list[SeasonStanding]:
    """The season's standings (unsaved): at its end when `final`, else as they stand `now`."""
    start, end = season_bounds(season)
    sql = _SEASON_GAMES_SQL.format(
        value=_AT_END if final else _NOW,
        flagged=rules.flagged_sql("p"),
        settled=rules.settled_sql("v.deviation"),
        # Confirmations only grow: those of now (the archive's, read at the season's end).
        confirmed=rules.confirmed_sql("r.confirmations"),
    )
    params = {
        **rules.sql_params(),
        "start": start,
        "end": end if final else min(end, now),
        "end_day": season.end + timedelta(days=1),
        "min_games": settings.SEASON_MIN_GAMES,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    places = settings.SEASON_ARCHIVE_PLACES
    counts: dict[int, int] = defaultdict(int)
    standings = []
    for player_id, name, character_id, value, deviation, games, _ in rows:
        for ladder in (OVERALL, character_id):
            if counts[ladder] < places:
                counts[ladder] += 1
                standings.append(
                    SeasonStanding(
                        season=season,
                        ladder=ladder,
                        rank=counts[ladder],
                        player_id=player_id,
                        name=name,
                        character_id=character_id,
                        value=value,
                        deviation=deviation,
                        games=games,
                    )
                )
    return standings


def refresh_seasons(now: datetime) -> None:
    """Archive every season that has ended and is not archived yet, and rewrite the live
    ladder of every season under way. Safe side by side: each season is locked while
    written, and an archived one is skipped."""
    today = now.astimezone(UTC).date()
    for season_id in Season.objects.filter(archived_at=None, start__lte=today).values_list(
        "id", flat=True
    ):
        with transaction.atomic():
            season = (
                Season.objects.select_for_update(skip_locked=True)
                .filter(id=season_id, archived_at=None)
                .first()
            )
            if season is None:
                continue
            final = season.end < today
            SeasonStanding.objects.filter(season=season).delete()
            SeasonStanding.objects.bulk_create(season_ladders(season, final=final, now=now))
            if final:
                season.archived_at = now
                season.save(update_fields=["archived_at"])
