"""Search's name key stored: `name_key`, a generated column of players_player and
players_playername equal to `players_name_key(name)` (0019), with its btree
(text_pattern_ops) and trigram indexes in place of the indexes of the function's value.

An index walk or a trigram bitmap rechecks its candidates against the key: computed by the
PL/pgSQL function, 3 µs a name, that was most of a cold search at 1M games (62 ms for the
19,981 candidates of one fragment, against 4 ms for upper(name)); stored, it is read. The
function stays, for the query's own key and the partial indexes of names that showed as
another (players_name_shown_as, rare). The column is the function's body, with its copy of
the characters a key leaves out (a migration keeps the value it was written with).
"""

from django.contrib.postgres.indexes import GinIndex
from django.db import migrations, models
from django.db.models.functions import Upper

DROPPED = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)

# The indexes of 0019 on the function's value; the column's take their names.
FUNCTION_INDEXES = """
CREATE INDEX player_name_key_idx ON players_player (players_name_key(name) text_pattern_ops);
CREATE INDEX playername_name_key_idx ON players_playername (players_name_key(name) text_pattern_ops);
CREATE INDEX player_name_key_trgm ON players_player USING gin (players_name_key(name) gin_trgm_ops);
CREATE INDEX playername_name_key_trgm ON players_playername USING gin (players_name_key(name) gin_trgm_ops);
"""
DROP_FUNCTION_INDEXES = """
DROP INDEX player_name_key_idx, playername_name_key_idx, player_name_key_trgm,
    playername_name_key_trgm;
"""


def name_key() -> models.GeneratedField:
    expression = Upper(
        models.Func(models.F("name"), models.Value(DROPPED), models.Value(""), function="translate")
    )
    return models.GeneratedField(
        expression=expression, output_field=models.TextField(), db_persist=True
    )


class Migration(migrations.Migration):
    dependencies = [("players", "0023_ratings_confirmed_by_settled_opponents")]

    operations = [
        migrations.AddField("player", "name_key", name_key()),
        migrations.AddField("playername", "name_key", name_key()),
        migrations.RunSQL(DROP_FUNCTION_INDEXES, FUNCTION_INDEXES),
        *(
            migrations.AddIndex(model, index)
            for model in ("player", "playername")
            for index in (
                models.Index(
                    fields=["name_key"],
                    opclasses=["text_pattern_ops"],
                    name=f"{model}_name_key_idx",
                ),
                GinIndex(
                    fields=["name_key"], opclasses=["gin_trgm_ops"], name=f"{model}_name_key_trgm"
                ),
            )
        ),
    ]
