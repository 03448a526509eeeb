"""Trigram indexes for partial, case-insensitive name search.

They serve `name__icontains` (UPPER(name) LIKE ...) and similarity ordering.
"""

from django.db import migrations

INDEXES = [
    ("player_name_trgm", "players_player"),
    ("playername_name_trgm", "players_playername"),
]


def create(apps, schema_editor):
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for index, table in INDEXES:
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {index} ON {table} USING gin (UPPER(name) gin_trgm_ops)"
        )


def drop(apps, schema_editor):
    for index, _ in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {index}")


class Migration(migrations.Migration):
    dependencies = [("players", "0002_roster")]
    operations = [migrations.RunPython(create, drop)]
