"""The ranking indexes hold every column a ranking row shows, so that a page of the API's
and the site's rankings is read from the index alone (players.selectors.rankings)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0017_players_leave_room_for_updates"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="rating",
            name="rating_char_ranked_idx",
        ),
        migrations.RemoveIndex(
            model_name="rating",
            name="rating_ranked_idx",
        ),
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(
                condition=models.Q(("deviation__lt", 75.0)),
                fields=["-value", "id"],
                include=("player", "deviation", "wins", "losses", "character"),
                name="rating_ranked_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(
                condition=models.Q(("deviation__lt", 75.0)),
                fields=["character", "-value", "id"],
                include=("player", "deviation", "wins", "losses"),
                name="rating_char_ranked_idx",
            ),
        ),
    ]
