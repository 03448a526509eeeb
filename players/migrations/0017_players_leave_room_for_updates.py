"""Room on each page of the player and name tables for their rows' next versions.

Every import and pull upserts each player it sees, and their name, to move `last_seen`.
Under PostgreSQL's default fill of 100%, the new version of a row lands on another page,
and every index of the table takes a new entry: seven on players, five on names, two of
them trigram GIN indexes. With room left on the page, an update that keeps the indexed
columns (the name, almost always) is a heap-only tuple: no index is touched. A fill of
70% leaves room for about 18 new versions in a page of 42 rows, enough for an import of
200,000 games, which touches 31% of a million players in one transaction (measured at
ten million games: the two upserts of those 307,000 players took 9 s at 100%, 1.6 s for
the players at 70%). Applies to pages written from now on; `VACUUM FULL` (or
pg_repack) rewrites a table that is already full.
"""

from django.db import migrations

TABLES = ("players_player", "players_playername")
FILL_PERCENT = 70


def set_fill(fill: int | None):
    def run(apps, schema_editor):
        for table in TABLES:
            if fill is None:
                schema_editor.execute(f"ALTER TABLE {table} RESET (fillfactor)")
            else:
                schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {fill})")

    return run


class Migration(migrations.Migration):
    dependencies = [("players", "0016_ranked_index_holds_the_player")]
    operations = [migrations.RunPython(set_fill(FILL_PERCENT), set_fill(None))]
