"""Names that cannot impersonate: every page, title and API field shows a name without
its invisible formatting characters (players.formatting.shown_name), isolated, while the
stored name keeps them; search compares names the same way (players_name_key)."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from players.formatting import INVISIBLE_FORMATTING, shown_name
from players.models import Player
from tests.factories import RatingFactory

pytestmark = pytest.mark.django_db

# Written backwards behind a right-to-left override, it displays as "Ky Main".
STORED = "\u202eniaM yK"
SHOWN = "niaM yK"


def invisible_characters() -> list[str]:
    """Every character of INVISIBLE_FORMATTING, its ranges spelt out."""
    return [chr(c) for c in range(0x110000) if re.fullmatch(f"[{INVISIBLE_FORMATTING}]", chr(c))]


def test_the_named_controls_are_all_invisible_formatting():
    named = {0x061C, 0xFEFF, *range(0x200B, 0x2010), *range(0x202A, 0x202F)}
    named |= {*range(0x2060, 0x2065), *range(0x2066, 0x206A)}
    assert {ord(c) for c in invisible_characters()} == named


def test_search_keys_drop_what_pages_drop(db):
    """The database's key (migrations/0019 copies the set) leaves out exactly the
    characters shown_name leaves out, and spaces."""
    with connection.cursor() as cursor:
        for character in invisible_characters():
            cursor.execute("SELECT players_name_key(%s)", [f"a {character}b"])
            assert (cursor.fetchone()[0], shown_name(f"a{character}b")) == ("AB", "ab")


@pytest.fixture
def impostor(db) -> Player:
    rating = RatingFactory(player__name=STORED, deviation=50.0, value=2400.0)
    Player.objects.filter(id=rating.player_id).update(supporter=True)
    return Player.objects.get(id=rating.player_id)


@pytest.mark.parametrize(
    "path", ["/player/{id}/SO", "/", "/top/SO", "/search?name=ky+ma", "/supporters"]
)
def test_pages_show_the_name_isolated_without_its_override(client, impostor, path):
    html = client.get(path.format(id=impostor.id), follow=True).content.decode()
    assert f"<bdi>{SHOWN}</bdi>" in html
    assert not any(character in html for character in invisible_characters())
    assert Player.objects.get(id=impostor.id).name == STORED  # kept as evidence


def test_the_profile_title_and_tooltip_hold_the_shown_name(client, impostor):
    html = client.get(f"/player/{impostor.id}/SO").content.decode()
    title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
    # Isolated by the page's own first-strong isolate, never the name's override.
    assert title.startswith(f"&#x2068;{SHOWN}&#x2069; · Sol")


@pytest.mark.parametrize(
    "path, field",
    [
        ("/api/v1/players/{id}/", lambda body: body["name"]),
        ("/api/v1/players/?name=ky+main", lambda body: body["results"][0]["name"]),
        ("/api/v1/rankings/", lambda body: body["results"][0]["player"]["name"]),
    ],
)
def test_the_api_gives_the_name_as_shown(client, impostor, path, field):
    body = client.get(path.format(id=impostor.id)).json()
    assert field(body) == SHOWN
