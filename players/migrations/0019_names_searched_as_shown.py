"""Names searched by how they show, ignoring case, spaces and invisible characters.

`players_name_key(name)`: the name in upper case without whitespace or the invisible
formatting characters of `players.formatting.INVISIBLE_FORMATTING` (copied here, as a
migration keeps the value it was written with), so that "trap daisy" finds "TrapDaisy"
and a name padded with zero-width spaces is found by what it shows. Exact names and
prefixes walk a text_pattern_ops btree of it, names containing the query and names like
it (pg_trgm similarity) a trigram index; these replace the UPPER(name) indexes.

`players_name_shown_as(name)`: what a name with a right-to-left override (U+202E) looked
like before the site neutralised it: each override's text reversed, as a browser shows
it. Such names are rare; a partial index of their key lets search find "Ky Main" stored
backwards behind an override, so that the impersonation is seen.
"""

from django.db import migrations
from django.db.migrations.operations.special import SeparateDatabaseAndState

INVISIBLE = "\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
RIGHT_TO_LEFT_OVERRIDE = r"\u202e"


def _characters(ranges: str) -> str:
    """'a-cx' → 'abcx'."""
    expanded, i = [], 0
    while i < len(ranges):
        if i + 2 < len(ranges) and ranges[i + 1] == "-":
            expanded += [chr(c) for c in range(ord(ranges[i]), ord(ranges[i + 2]) + 1)]
            i += 3
        else:
            expanded.append(ranges[i])
            i += 1
    return "".join(expanded)


# What a key leaves out: Python's whitespace (str.isspace) and the invisible characters.
DROPPED = "".join(chr(c) for c in range(0x3000 + 1) if chr(c).isspace()) + _characters(INVISIBLE)

FUNCTIONS = rf"""
-- PL/pgSQL, so that it is not inlined: its cost (far above an operator's) tells the planner
-- that reading a name index beats computing the key of every name.
CREATE FUNCTION players_name_key(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 1000
AS $$ BEGIN RETURN upper(translate(name, '{DROPPED}', '')); END $$;

CREATE FUNCTION players_name_shown_as(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    -- The text of each open embedding, override or isolate, innermost last. An override
    -- to the right keeps its text backwards, to be reversed when it closes.
    texts text[] := ARRAY[''];
    backwards boolean[] := ARRAY[false];
    depth int := 1;
    shown text;
    c text;
BEGIN
    FOREACH c IN ARRAY regexp_split_to_array(name, '') || ARRAY[NULL] LOOP
        IF c ~ '[\u202a\u202b\u202d\u202e\u2066-\u2068]' THEN
            depth := depth + 1;
            texts[depth] := '';
            backwards[depth] := c = E'\u202e';
        ELSIF depth > 1 AND (c IS NULL OR c ~ '[\u202c\u2069]') THEN
            -- Closed (or the name ended): its text as shown, placed in the enclosing one.
            WHILE depth > 1 LOOP
                shown := CASE WHEN backwards[depth] THEN reverse(texts[depth]) ELSE texts[depth] END;
                depth := depth - 1;
                texts[depth] := texts[depth]
                    || CASE WHEN backwards[depth] THEN reverse(shown) ELSE shown END;
                EXIT WHEN c IS NOT NULL;
            END LOOP;
        ELSIF c IS NOT NULL THEN
            texts[depth] := texts[depth] || c;
        END IF;
    END LOOP;
    RETURN texts[1];
END $$;
"""

INDEXES = rf"""
CREATE INDEX player_name_key_idx ON players_player (players_name_key(name) text_pattern_ops);
CREATE INDEX playername_name_key_idx ON players_playername (players_name_key(name) text_pattern_ops);
CREATE INDEX player_name_key_trgm ON players_player USING gin (players_name_key(name) gin_trgm_ops);
CREATE INDEX playername_name_key_trgm ON players_playername USING gin (players_name_key(name) gin_trgm_ops);
CREATE INDEX player_shown_key_idx ON players_player (players_name_key(players_name_shown_as(name)) text_pattern_ops)
    WHERE name ~ '{RIGHT_TO_LEFT_OVERRIDE}';
CREATE INDEX playername_shown_key_idx ON players_playername (players_name_key(players_name_shown_as(name)) text_pattern_ops)
    WHERE name ~ '{RIGHT_TO_LEFT_OVERRIDE}';
DROP INDEX player_upper_name_idx, playername_upper_name_idx, player_name_trgm, playername_name_trgm;
"""

INDEXES_BEFORE = """
CREATE INDEX player_upper_name_idx ON players_player (UPPER(name) text_pattern_ops);
CREATE INDEX playername_upper_name_idx ON players_playername (UPPER(name) text_pattern_ops);
CREATE INDEX player_name_trgm ON players_player USING gin (UPPER(name) gin_trgm_ops);
CREATE INDEX playername_name_trgm ON players_playername USING gin (UPPER(name) gin_trgm_ops);
DROP INDEX player_name_key_idx, playername_name_key_idx, player_name_key_trgm,
    playername_name_key_trgm, player_shown_key_idx, playername_shown_key_idx;
DROP FUNCTION players_name_shown_as(text), players_name_key(text);
"""


class Migration(migrations.Migration):
    dependencies = [("players", "0018_ranked_indexes_hold_ranking_rows")]
    operations = [
        migrations.RunSQL(FUNCTIONS + INDEXES, INDEXES_BEFORE),
        # The model's UPPER(name) index is gone with the others (above).
        SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex("player", "player_upper_name_idx"),
            ]
        ),
    ]
