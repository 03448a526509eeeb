"""The visible games counted by UTC day, patch and pair of characters (GameCount), kept
as the games are placed in their patches (matches.services.patches, which holds the
ingest writer's lock and reads only the games above the highest match id placed so far),
so that the refresh's statistics by day, patch and character cost the new games, not
the history. Counted afresh when every game is placed again, or when the hidden players
are not those the counts left out; when a patch change moves some games, those games
move from their former patch's counts to their new one's (`move_counted_games`).
"""

from __future__ import annotations

from django.db import connection

from matches.models import GameCount, Match, SiteStatistic
from matches.services.site_statistic import ids_digest, store_statistic
from players import rules

# Internal (a SiteStatistic row, not shown): the hidden players the counts leave out.
COUNTED_UNDER = "game_counts_basis"

# Adds the visible games with ids in (after, through] to the counts: an upsert, which the
# ORM cannot say. Hidden players are few: a small hashed set, as Match.objects.visible().
_ADD_SQL = f"""
INSERT INTO {GameCount._meta.db_table} AS c (day, patch, character_a, character_b, games)
SELECT (m.played_at AT TIME ZONE 'UTC')::date, COALESCE(m.patch_id, 0), m.character_a_id,
       m.character_b_id, count(*)
FROM {Match._meta.db_table} m
WHERE m.id > %(after)s AND m.id <= %(through)s
  AND m.player_a_id NOT IN ({{hidden}}) AND m.player_b_id NOT IN ({{hidden}})
GROUP BY 1, 2, 3, 4
ON CONFLICT (day, patch, character_a, character_b) DO UPDATE SET games = c.games + EXCLUDED.games
"""


# Runs `{moved}`, an UPDATE of the games' patch returning (played_at, was, patch_id,
# character_a_id, character_b_id, player_a_id, player_b_id) for each game it moved, and
# takes the visible ones out of their former patch's counts into their new one's, in one
# statement (data-modifying CTEs, which the ORM cannot say); gives how many it moved.
_MOVE_SQL = f"""
WITH moved AS ({{moved}}), visible AS (
    SELECT * FROM moved
    WHERE player_a_id NOT IN ({{hidden}}) AND player_b_id NOT IN ({{hidden}})
), counted AS (
    INSERT INTO {GameCount._meta.db_table} AS c (day, patch, character_a, character_b, games)
    SELECT (played_at AT TIME ZONE 'UTC')::date, patch, character_a_id, character_b_id,
           SUM(games)
    FROM (
        SELECT played_at, COALESCE(was, 0) AS patch, character_a_id, character_b_id,
               -1 AS games
        FROM visible
        UNION ALL
        SELECT played_at, COALESCE(patch_id, 0), character_a_id, character_b_id, 1 FROM visible
    ) AS changes
    GROUP BY 1, 2, 3, 4
    ON CONFLICT (day, patch, character_a, character_b)
    DO UPDATE SET games = c.games + EXCLUDED.games
)
SELECT count(*) FROM moved
"""


def move_counted_games(moved_sql: str, parameters: dict[str, object]) -> int:
    """Run `moved_sql` (see _MOVE_SQL) with `parameters`, moving the games it moves between
    their patches' counts; returns how many it moved. The caller holds the ingest writer's
    lock and has counted (count_games) every game the update can read."""
    hidden = rules.hidden_ids_sql()
    with connection.cursor() as cursor:
        cursor.execute(_MOVE_SQL.format(moved=moved_sql, hidden=hidden), parameters)
        moved = cursor.fetchone()[0]
    # A count from scratch has no empty group.
    GameCount.objects.filter(games=0).delete()
    return moved


def count_games(after: int, through: int, *, afresh: bool) -> None:
    """Count the games with ids above `after` up to `through`, just placed in their
    patches; with `afresh` (every game placed again), or when the hidden players changed,
    every game up to `through` instead. The caller holds the ingest writer's lock, so no
    lower id is still uncommitted."""
    hidden = rules.hidden_ids_sql()
    digest = ids_digest(hidden)
    counted = SiteStatistic.objects.filter(key=COUNTED_UNDER).values_list("data", flat=True)
    if afresh or (counted.first() or {}).get("hidden") != digest:
        GameCount.objects.all().delete()
        store_statistic(COUNTED_UNDER, {"hidden": digest})
        after = 0
    if through > after:
        with connection.cursor() as cursor:
            cursor.execute(_ADD_SQL.format(hidden=hidden), {"after": after, "through": through})
