"""Each rated game keeps the chance shown before it (docs/rating-model.md#one-chance).

Games rated before this migration get the chance the rating model gave them from the
stored pre-game ratings (glicko.win_probability, the only chance there was: no matchup
offset); `manage.py recompute_ratings` replaces them under the current settings."""

from django.db import migrations, models

from matches.ratings import glicko

BACKFILL = f"""
UPDATE matches_matchrating SET chance_a = 1.0 / (1.0 + EXP(
    -{glicko.Q!r}::float8 * (value_a - value_b)
    / SQRT(1.0 + {glicko.G_FACTOR!r}::float8 * (deviation_a * deviation_a + deviation_b * deviation_b))
))
"""


class Migration(migrations.Migration):
    dependencies = [("matches", "0009_flag_changes_recompute")]

    operations = [
        migrations.AddField(
            model_name="matchrating",
            name="chance_a",
            field=models.FloatField(null=True),
        ),
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="matchrating",
            name="chance_a",
            field=models.FloatField(
                help_text="Side A's chance the site showed before the game (glicko.chance): "
                "under one chance also the expected score both updates used"
            ),
        ),
    ]
