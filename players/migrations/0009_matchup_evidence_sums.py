"""Player matchups become running sums (docs/rating-model.md#matchups) instead of Glicko ratings.

A Glicko matchup rating cannot be turned into sums over games, so the rows are emptied
both ways; matches 0004 fills the sums from the stored match ratings (going back, they
stay empty until a recompute with the old code)."""

from django.db import migrations, models


def empty_player_matchups(apps, schema_editor):
    apps.get_model("players", "PlayerMatchup").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0008_derived_keys_kept_by_rating_service"),
    ]

    operations = [
        migrations.RunPython(empty_player_matchups, migrations.RunPython.noop),
        migrations.RemoveField(model_name="playermatchup", name="deviation"),
        migrations.RemoveField(model_name="playermatchup", name="last_decay_at"),
        migrations.RemoveField(model_name="playermatchup", name="value"),
        migrations.AddField(
            model_name="playermatchup",
            name="expected_wins",
            field=models.FloatField(
                default=0.0, help_text="Wins expected from the pre-game ratings alone"
            ),
        ),
        migrations.AddField(
            model_name="playermatchup",
            name="information",
            field=models.FloatField(
                default=0.0, help_text="Sum of p(1 - p) of those pre-game win probabilities"
            ),
        ),
        # Going back, the old columns return (NOT NULL, no default) to an emptied table.
        migrations.RunPython(migrations.RunPython.noop, empty_player_matchups),
    ]
