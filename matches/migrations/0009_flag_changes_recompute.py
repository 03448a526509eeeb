"""A flag change's recompute state replaces its matchups-pending mark: a queued rebuild
becomes a queued recompute, and the hidden and cheater changes already rebuilt count as
done."""

from django.db import migrations, models

RATING_FLAGS = ("hidden", "cheater")


def forwards(apps, schema_editor):
    changes = apps.get_model("matches", "PlayerFlagChange").objects
    changes.filter(matchups_pending=True).update(recompute="queued")
    changes.filter(matchups_pending=False, flag__in=RATING_FLAGS).update(recompute="done")


def backwards(apps, schema_editor):
    changes = apps.get_model("matches", "PlayerFlagChange").objects
    changes.filter(recompute__in=("queued", "started")).update(matchups_pending=True)


class Migration(migrations.Migration):
    dependencies = [("matches", "0008_player_flag_changes")]

    operations = [
        migrations.AddField(
            model_name="playerflagchange",
            name="recompute",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "not needed"),
                    ("queued", "Queued"),
                    ("started", "Started"),
                    ("done", "Done"),
                ],
                default="",
                max_length=8,
            ),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(model_name="playerflagchange", name="matchups_pending"),
    ]
