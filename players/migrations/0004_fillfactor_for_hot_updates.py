"""Leave room on each page of the player tables for HOT updates.

Ingestion updates a player's last_seen (and a name's) on nearly every chunk it appears
in. With free space on the page and no indexed column changed, PostgreSQL updates the
row in place (HOT) and skips every index, the trigram GIN indexes included.
"""

from django.db import migrations

TABLES = ("players_player", "players_playername")


def set_fillfactor(apps, schema_editor, value: int = 70):
    for table in TABLES:
        schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {value})")


def reset_fillfactor(apps, schema_editor):
    set_fillfactor(apps, schema_editor, value=100)


class Migration(migrations.Migration):
    dependencies = [("players", "0003_name_search_trigram")]
    operations = [migrations.RunPython(set_fillfactor, reset_fillfactor)]
