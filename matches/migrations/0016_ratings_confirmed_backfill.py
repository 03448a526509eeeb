"""Fill Rating.confirmations and confirming_players (players 0022) from the stored
results, as the ledger would have counted them (matches.ratings.ledger.RatingState
.confirm_by): without it every rating would be unranked until the next recompute,
which computes the same numbers. Reversing leaves the columns to players 0022's reversal."""

from django.conf import settings
from django.db import migrations

# Each counted game's two sides whose opponent (another player) was settled before it;
# each rating's first game against each such opponent; counted up to the minimum, and
# the opponents' ids in the order met while below it.
_BACKFILL_SQL = """
WITH sides AS (
    SELECT m.player_a_id AS player_id, m.character_a_id AS character_id,
        m.player_b_id AS opponent, m.played_at, m.id
    FROM matches_match m JOIN matches_matchrating mr ON mr.match_id = m.id
    WHERE mr.counted AND mr.deviation_b < %(low)s AND m.player_b_id <> m.player_a_id
    UNION ALL
    SELECT m.player_b_id, m.character_b_id, m.player_a_id, m.played_at, m.id
    FROM matches_match m JOIN matches_matchrating mr ON mr.match_id = m.id
    WHERE mr.counted AND mr.deviation_a < %(low)s AND m.player_a_id <> m.player_b_id
), firsts AS (
    SELECT DISTINCT ON (player_id, character_id, opponent)
        player_id, character_id, opponent, played_at, id
    FROM sides ORDER BY player_id, character_id, opponent, played_at, id
), counted AS (
    SELECT player_id, character_id, count(*) AS n,
        string_agg(opponent, ' ' ORDER BY played_at, id) AS opponents
    FROM firsts GROUP BY player_id, character_id
)
UPDATE players_rating r
SET confirmations = LEAST(c.n, %(minimum)s),
    confirming_players = CASE WHEN c.n < %(minimum)s THEN c.opponents ELSE '' END
FROM counted c
WHERE r.player_id = c.player_id AND r.character_id = c.character_id
"""


def backfill(apps, schema_editor):
    minimum = settings.RANKED_MIN_OPPONENTS
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(_BACKFILL_SQL, {"low": settings.RATING_LOW_DEVIATION, "minimum": minimum})


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0015_integrity_flags"),
        ("players", "0023_ratings_confirmed_by_settled_opponents"),
    ]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True)]
