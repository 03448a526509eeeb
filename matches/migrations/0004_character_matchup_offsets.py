"""Character matchups become fitted offsets (DESIGN.md section 4.5) instead of Glicko
ratings. The rows are derived and rebuilt whole by the next statistics refresh
(matches.services.character_matchups), so they are emptied both ways."""

from django.db import migrations, models


def empty_character_matchups(apps, schema_editor):
    apps.get_model("matches", "CharacterMatchup").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0003_reported_time_replaces_time_corrected"),
    ]

    operations = [
        migrations.RunPython(empty_character_matchups, migrations.RunPython.noop),
        migrations.RemoveField(model_name="charactermatchup", name="deviation"),
        migrations.RemoveField(model_name="charactermatchup", name="value"),
        migrations.AddField(
            model_name="charactermatchup",
            name="expected_wins",
            field=models.FloatField(
                default=0.0, help_text="Wins expected from the players' pre-game ratings alone"
            ),
        ),
        migrations.AddField(
            model_name="charactermatchup",
            name="offset",
            field=models.FloatField(default=0.0, help_text="Rating points X is worth against Y"),
        ),
        migrations.AddField(
            model_name="charactermatchup",
            name="standard_error",
            field=models.FloatField(default=0.0),
        ),
        # Going back, the old columns return (NOT NULL, no default) to an emptied table.
        migrations.RunPython(migrations.RunPython.noop, empty_character_matchups),
    ]
