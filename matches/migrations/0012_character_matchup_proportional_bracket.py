"""The proportional matchup bracket (docs/rating-model.md#matchups): its key is longer
than a bracket's column took. Going back deletes its rows first (the next refresh or
recompute of the older code never writes them)."""

from django.db import migrations, models


def drop_proportional_rows(apps, schema_editor) -> None:
    apps.get_model("matches", "CharacterMatchup").objects.filter(bracket="proportional").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0011_patches"),
    ]

    operations = [
        migrations.AlterField(
            model_name="charactermatchup",
            name="bracket",
            field=models.CharField(
                choices=[
                    ("all", "All"),
                    ("top1000", "Top 1000"),
                    ("top100", "Top 100"),
                    ("proportional", "Proportional"),
                ],
                max_length=16,
            ),
        ),
        # Backwards, this runs first: the column shrinks back once no row holds the key.
        migrations.RunPython(migrations.RunPython.noop, drop_proportional_rows),
    ]
