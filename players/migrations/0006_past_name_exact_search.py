"""An index for exact, case-insensitive lookups of past names.

Search reads past names in full only when few current names match; otherwise only an
exact past name can rank above them, and this index finds those without reading every
past name that contains the query (`name__iexact`: UPPER(name) = UPPER(...)).
"""

from django.db import migrations

INDEX = "playername_upper_name_idx"


def create(apps, schema_editor):
    schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {INDEX} ON players_playername (UPPER(name))")


def drop(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("players", "0005_rating_value_index")]
    operations = [migrations.RunPython(create, drop)]
