"""A deleted patch's games keep its id until the re-placement its deletion queues moves
them (no null written through every game in the admin's request), and a partial index on
the reported version finds the games a change to a patch's versions can move. Built
concurrently: ingestion goes on while it is built on millions of games."""

import django.db.models.deletion
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("matches", "0019_game_counts"),
        ("players", "0024_name_key_stored"),
    ]

    operations = [
        migrations.AlterField(
            model_name="match",
            name="patch",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="matches.patch",
            ),
        ),
        AddIndexConcurrently(
            model_name="match",
            index=models.Index(
                condition=models.Q(("version", ""), _negated=True),
                fields=["version"],
                name="match_version_idx",
            ),
        ),
    ]
