"""Matchups become estimates from sums over games (docs/rating-model.md#matchups) instead of
Glicko ratings.

Character matchups are derived and rebuilt whole by the next statistics refresh
(matches.services.character_matchups), so they are emptied both ways. The player
matchup sums, emptied by players 0009, are filled here from the stored match ratings,
as the rating ledger would have summed them (no recompute needed); going back, they
stay empty until a recompute with the old code."""

from django.db import migrations, models


def empty_character_matchups(apps, schema_editor):
    apps.get_model("matches", "CharacterMatchup").objects.all().delete()


def _side(own: str, other: str, winner: str, matches: str, ratings: str) -> str:
    """One side of every counted game: (player, character, opponent character, won, p)."""
    return f"""
        SELECT m.player_{own}_id AS player_id, m.character_{own}_id AS own_character_id,
               m.character_{other}_id AS opponent_character_id,
               CASE WHEN m.winner = '{winner}' THEN 1 ELSE 0 END AS won,
               1.0 / (1.0 + POWER(10.0, (r.value_{other} - r.value_{own}) / 400.0)) AS p
        FROM {ratings} r JOIN {matches} m ON m.id = r.match_id
        WHERE r.counted"""


def fill_player_matchups(apps, schema_editor):
    tables = {
        name: apps.get_model(app, model)._meta.db_table
        for name, (app, model) in {
            "matches": ("matches", "Match"),
            "ratings": ("matches", "MatchRating"),
            "rating": ("players", "Rating"),
            "matchups": ("players", "PlayerMatchup"),
        }.items()
    }
    sides = (
        _side("a", "b", "A", tables["matches"], tables["ratings"])
        + " UNION ALL "
        + _side("b", "a", "B", tables["matches"], tables["ratings"])
    )
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {tables["matchups"]}
                (rating_id, opponent_character_id, wins, losses, expected_wins, information)
            SELECT rt.id, g.opponent_character_id, SUM(g.won), SUM(1 - g.won),
                   SUM(g.p), SUM(g.p * (1.0 - g.p))
            FROM ({sides}) g
            JOIN {tables["rating"]} rt
              ON rt.player_id = g.player_id AND rt.character_id = g.own_character_id
            GROUP BY rt.id, g.opponent_character_id
            """
        )


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0003_reported_time_replaces_time_corrected"),
        ("players", "0009_matchup_evidence_sums"),
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
        # Going back, players 0009 empties them again.
        migrations.RunPython(fill_player_matchups, migrations.RunPython.noop),
    ]
