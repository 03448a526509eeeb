"""Player ids compared byte by byte on PostgreSQL (players.fields.IdentifierField), and
with them every column that refers to a player: Django alters the referring columns of
the models in this migration's state, so it comes after the matches migration that
last shaped Match's sides."""

from django.db import migrations

import players.fields


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0013_derived_rows_keyed_by_rating"),
        ("matches", "0006_match_sides_ordered_by_id"),
    ]

    operations = [
        migrations.AlterField(
            model_name="player",
            name="id",
            field=players.fields.IdentifierField(max_length=32, primary_key=True, serialize=False),
        ),
    ]
