from django.db import migrations

from players.seed_roster import SEED_ROSTER as ROSTER


def add_roster(apps, schema_editor):
    Character = apps.get_model("players", "Character")
    Character.objects.bulk_create(
        [Character(id=cid, code=code, name=name) for cid, code, name in ROSTER],
        ignore_conflicts=True,
    )


def remove_roster(apps, schema_editor):
    apps.get_model("players", "Character").objects.filter(
        id__in=[cid for cid, _, _ in ROSTER]
    ).delete()


class Migration(migrations.Migration):
    dependencies = [("players", "0001_initial")]
    operations = [migrations.RunPython(add_roster, remove_roster)]
