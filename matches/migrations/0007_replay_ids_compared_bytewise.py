"""A source's replay ids compared byte by byte on PostgreSQL (players.fields.IdentifierField):
the unique replay key is built and checked on every game imported."""

from django.db import migrations

import players.fields


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0006_match_sides_ordered_by_id"),
    ]

    operations = [
        migrations.AlterField(
            model_name="match",
            name="source_replay_id",
            field=players.fields.IdentifierField(max_length=128),
        ),
    ]
