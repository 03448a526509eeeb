"""Exact names and name prefixes from one index per name table.

Search reads names tier by tier (players.selectors.search): exact, then starting with
the query, then containing it. `UPPER(name) LIKE 'SOL%'` walks a btree only under the
"C" collation or with a pattern operator class, so the UPPER(name) indexes are rebuilt
with `text_pattern_ops`, which serves `=` as well: a prefix that starts thousands of
names reads only the few the page shows.
"""

from django.db import migrations

INDEXES = {
    "player_upper_name_idx": "players_player",
    "playername_upper_name_idx": "players_playername",
}


def rebuild(opclass: str):
    def run(apps, schema_editor):
        for index, table in INDEXES.items():
            schema_editor.execute(f"DROP INDEX IF EXISTS {index}")
            schema_editor.execute(f"CREATE INDEX {index} ON {table} (UPPER(name) {opclass})")

    return run


class Migration(migrations.Migration):
    dependencies = [("players", "0014_player_ids_compared_bytewise")]
    operations = [migrations.RunPython(rebuild("text_pattern_ops"), rebuild(""))]
