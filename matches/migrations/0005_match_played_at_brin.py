"""A BRIN index on the match table's played_at.

The refresh counts the games of the last day, week and fortnight (totals, activity,
character popularity): without an index on played_at each of those reads the whole
table. Games arrive in time order, so a block-range index (a few pages for millions of
games, next to nothing to maintain on insert) narrows them to the recent blocks.
"""

from django.db import migrations

INDEX = "match_played_brin"


def create_index(apps, schema_editor):
    schema_editor.execute(f"CREATE INDEX {INDEX} ON matches_match USING brin (played_at)")


def drop_index(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("matches", "0004_character_matchup_offsets")]
    operations = [migrations.RunPython(create_index, drop_index)]
