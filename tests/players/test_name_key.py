"""Search's stored name key (players/migrations/0024): `name_key` holds what
players_name_key(name) computes, and search finds by it what it found by the function."""

from __future__ import annotations

import importlib
import re

import pytest
from django.db import connection

from players.formatting import INVISIBLE_FORMATTING, NAME_KEY_DROPPED
from players.models import Player, PlayerName
from players.selectors import search
from tests.factories import BASE_TIME, RatingFactory

pytestmark = pytest.mark.django_db

# Spaces of every kind, zero-width and bidirectional characters, case, a right-to-left
# override, scripts without case or with one of their own.
TRICKY = [
    "Trap Daisy",
    "trap\u200bdaisy",
    "TRAPDAISY",
    "\u202eniaM yK",
    "Ky\u2066 Main\u2069",
    "Кирилл Петров",
    "日本\u3000語",
    "a\tb\u00a0c\u2028d",
    "\ufeffBom",
    "Straße ﬁx",
    "İstanbul",
    "pad 🎮 pro",
    "\u200b \u200b",
]


@pytest.fixture
def tricky() -> list[Player]:
    players = [RatingFactory(player__name=name).player for name in TRICKY]
    PlayerName.objects.bulk_create(
        PlayerName(player=player, name=f"x{player.name}", first_seen=BASE_TIME, last_seen=BASE_TIME)
        for player in players
    )
    return players


def _differing_keys(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM {table} WHERE name_key IS DISTINCT FROM players_name_key(name)"
        )
        return cursor.fetchone()[0]


def test_the_stored_key_is_the_function_s(tricky):
    assert PlayerName.objects.count() == len(TRICKY)
    assert _differing_keys("players_player") == _differing_keys("players_playername") == 0
    keys = dict(Player.objects.values_list("name", "name_key"))
    assert keys["trap\u200bdaisy"] == keys["Trap Daisy"] == "TRAPDAISY"
    assert keys["Кирилл Петров"] == "КИРИЛЛПЕТРОВ" and keys["\u200b \u200b"] == ""
    # A renamed player's key follows the name.
    Player.objects.filter(name="TRAPDAISY").update(name="New  Name")
    assert Player.objects.get(name="New  Name").name_key == "NEWNAME"
    assert _differing_keys("players_player") == 0


def test_the_dropped_characters_are_the_function_s():
    """Whitespace then the invisible formatting characters, as 0019 and 0024 spell them."""
    for migration in ("0019_names_searched_as_shown", "0024_name_key_stored"):
        module = importlib.import_module(f"players.migrations.{migration}")
        assert module.DROPPED == NAME_KEY_DROPPED
    invisible = {
        chr(c) for c in range(0x10000) if re.fullmatch(f"[{INVISIBLE_FORMATTING}]", chr(c))
    }
    spaces = {chr(c) for c in range(0x110000) if chr(c).isspace()}
    assert set(NAME_KEY_DROPPED) == spaces | invisible
    assert len(NAME_KEY_DROPPED) == len(spaces) + len(invisible)


QUERIES = ["trapdaisy", "trap daisy", "ky main", "niam", "кирилл", "日本語", "abcd", "bom",
           "istanbul", "straße", "pad🎮", "tr", "x", "xtrap", "dasy", "петров"]  # fmt: skip


@pytest.mark.parametrize(
    ("tiers", "finding"),
    [(search.SHORT_TIERS, 12), (search.PRECISE_TIERS, 12), ((search.SIMILAR,), 1)],
)
def test_search_finds_by_the_column_what_the_function_found(tricky, tiers, finding):
    """The tiers' compiled SQL, once as it is and once with each stored key read back as
    players_name_key(name) (the SQL before 0024), give the same rows."""
    sql, constants, at = search._names_sql(tiers, 51)
    by_function = re.sub(r'("\w+")\."name_key"', r'players_name_key(\1."name")', sql)
    assert by_function != sql and 'name_key"' not in by_function
    found = 0
    for query in QUERIES:
        params = [query if n in at else constant for n, constant in enumerate(constants)]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            by_column = cursor.fetchall()
            cursor.execute(by_function, params)
            assert sorted(by_column) == sorted(cursor.fetchall()), query
        found += bool(by_column)
    assert found >= finding  # queries that found a name, of 16
