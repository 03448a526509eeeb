"""Keep the trigram indexes' pending lists short.

A GIN index takes new entries into an unsorted pending list, merged into the index by
(auto)vacuum or once the list outgrows `gin_pending_list_limit` (4 MB by default).
Every search reads the whole pending list: after a bulk import that was some 230 pages
per name index, most of a search's time on a million games. A 256 kB list (32 pages)
keeps inserts batched and searches quick between vacuums.
"""

from django.db import migrations

INDEXES = ("player_name_trgm", "playername_name_trgm")


def set_limit(apps, schema_editor):
    for index in INDEXES:
        schema_editor.execute(f"ALTER INDEX {index} SET (gin_pending_list_limit = 256)")


def reset_limit(apps, schema_editor):
    for index in INDEXES:
        schema_editor.execute(f"ALTER INDEX {index} RESET (gin_pending_list_limit)")


class Migration(migrations.Migration):
    dependencies = [("players", "0006_past_name_exact_search")]
    operations = [migrations.RunPython(set_limit, reset_limit)]
