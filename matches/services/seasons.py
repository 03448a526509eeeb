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
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction

from matches.models import Season, SeasonGames, SeasonStanding
from matches.selectors.seasons import OVERALL
from matches.services.locks import rated_through
from players import rules

# Adds the counted games rated after `since` up to `through` to the kept counts of each
# season of `seasons` they were played in, both sides of a game at once: a UNION grouped
# as one, and an upsert, which the ORM cannot say. The seasons' days are UTC days; only
# the games within their span are joined (counted afresh: the live season's, not all).
_COUNT_SQL = """
WITH bounds AS (
    SELECT id, start::timestamp AT TIME ZONE 'UTC' AS first,
        ("end" + 1)::timestamp AT TIME ZONE 'UTC' AS after
    FROM matches_season WHERE id = ANY(%(seasons)s)
), rated AS (
    SELECT m.played_at, m.player_a_id, m.character_a_id, m.player_b_id, m.character_b_id
    FROM matches_matchrating mr JOIN matches_match m ON m.id = mr.match_id
    WHERE mr.counted AND mr.rated_at > %(since)s AND mr.rated_at <= %(through)s
        AND m.played_at >= (SELECT min(first) FROM bounds)
        AND m.played_at < (SELECT max(after) FROM bounds)
), sides AS (
    SELECT played_at, player_a_id AS player_id, character_a_id AS character_id FROM rated
    UNION ALL
    SELECT played_at, player_b_id, character_b_id FROM rated
)
INSERT INTO matches_seasongames (season_id, player_id, character_id, games)
SELECT b.id, sides.player_id, sides.character_id, count(*)
FROM sides JOIN bounds b ON sides.played_at >= b.first AND sides.played_at < b.after
GROUP BY 1, 2, 3
ON CONFLICT (season_id, player_id, character_id)
DO UPDATE SET games = matches_seasongames.games + EXCLUDED.games
"""
# A ladder: the kept counts of the season (SeasonGames) with the ratings they count.
_LADDER_SQL = """
SELECT g.player_id, p.name, g.character_id, v.value, v.deviation, g.games, r.id
FROM matches_seasongames g
JOIN players_player p ON p.id = g.player_id
JOIN players_rating r ON r.player_id = g.player_id AND r.character_id = g.character_id
{value}
WHERE g.season_id = %(season)s AND g.games >= %(min_games)s
    AND NOT ({flagged}) AND {settled} AND {confirmed}
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


def season_ladders(season: Season, *, final: bool) -> list[SeasonStanding]:
    """The season's standings (unsaved) from its kept counts (count_season_games): at its
    end when `final`, else with the ratings as they are now. Live, no game is counted
    before it is played: a game's time is never later than when it was stored."""
    sql = _LADDER_SQL.format(
        value=_AT_END if final else _NOW,
        flagged=rules.flagged_sql("p"),
        settled=rules.settled_sql("v.deviation"),
        # Confirmations only grow: those of now (the archive's, read at the season's end).
        confirmed=rules.confirmed_sql("r.confirmations"),
    )
    params = {
        **rules.sql_params(),
        "season": season.id,
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


def count_season_games() -> None:
    """Bring the kept counts of every season not archived up to the games rated so far:
    those rated since its `counted_through`, or all of them for a season counted afresh
    (new, its days changed, or after a recompute rewrote the ratings). Under the rating
    writer's lock, so that no batch commits while the high-water mark is read: every later
    batch is stamped after it (one clock: the rating writers' and this process's)."""
    with transaction.atomic():
        through = rated_through()  # its lock is held until this transaction ends
        seasons = Season.objects.select_for_update().filter(archived_at=None)
        marks: dict[datetime | None, list[int]] = defaultdict(list)
        for season_id, mark in seasons.values_list("id", "counted_through"):
            marks[mark].append(season_id)
        SeasonGames.objects.filter(season__in=marks.get(None, [])).delete()
        with connection.cursor() as cursor:
            for mark, ids in marks.items():
                since = datetime.min.replace(tzinfo=UTC) if mark is None else mark
                cursor.execute(_COUNT_SQL, {"since": since, "through": through, "seasons": ids})
        seasons.update(counted_through=through)


def forget_season_games() -> None:
    """Count every season afresh at the next refresh: the rated games were rewritten."""
    SeasonGames.objects.all().delete()
    Season.objects.update(counted_through=None)


def refresh_seasons(now: datetime) -> None:
    """Bring the kept counts up to date, archive every season that has ended and is not
    archived yet (its counts are then let go), and rewrite the live ladder of every season
    under way. Safe side by side: each season is locked while written, and an archived one
    is skipped."""
    count_season_games()
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
            SeasonStanding.objects.bulk_create(season_ladders(season, final=final))
            if final:
                season.archived_at = now
                season.save(update_fields=["archived_at"])
                SeasonGames.objects.filter(season=season).delete()
