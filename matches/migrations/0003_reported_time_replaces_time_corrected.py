"""A corrected game keeps the time its source reported, and is known by it.

`reported_at` replaces the `time_corrected` flag (a corrected game is one with a
reported time), and the one-game-per-moment-and-pair constraint holds on the reported
time when there is one: the same future game ingested twice at two different times
is then stored once, and distinct future games of one pair stay distinct.

Cheap on a large table: a nullable column is added without rewriting the table, and
the data step touches only the rare corrected games. Games corrected before this
migration lost their reported time; their ingestion time stands in for it, which
keeps their constraint key as it was.
"""

from django.db import migrations, models
from django.db.models import F
from django.db.models.functions import Coalesce


def reported_at_from_flag(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    Match.objects.filter(time_corrected=True).update(reported_at=F("played_at"))


def flag_from_reported_at(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    Match.objects.filter(reported_at__isnull=False).update(time_corrected=True)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0002_match_player_keys_kept_by_ingestion"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="reported_at",
            field=models.DateTimeField(
                blank=True,
                help_text="Reported in the future at this time; stored at its ingestion time instead",
                null=True,
            ),
        ),
        migrations.RunPython(reported_at_from_flag, flag_from_reported_at, elidable=True),
        migrations.RemoveField(model_name="match", name="time_corrected"),
        migrations.RemoveConstraint(model_name="match", name="unique_game_moment"),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.UniqueConstraint(
                Coalesce("reported_at", "played_at"),
                F("player_a"),
                F("player_b"),
                name="unique_game_moment",
            ),
        ),
    ]
