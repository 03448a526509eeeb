"""Reads of ratings shared by the profile and the API: a rating's overview, read with
hand-written queries, holds what the ORM would have read."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Model

from players.models import Character, Player, PlayerMatchup, PlayerName, Rating
from players.selectors.ratings import rating_overview
from tests.factories import BASE_TIME, PlayerFactory, RatingFactory

pytestmark = pytest.mark.django_db


def columns(instance: Model) -> list:
    return [getattr(instance, field.attname) for field in instance._meta.concrete_fields]


def character(code: str) -> Character:
    return Character.objects.get(code=code)


@pytest.fixture
def player() -> Player:
    """Three ratings (KY and MA tied on games: character order), two best wins (one over
    a hidden player), two past names and two matchups of the Sol rating."""
    player = PlayerFactory(name="Now", supporter=True, floor=None)
    rival, hidden = PlayerFactory(), PlayerFactory(hidden=True)
    best_win = {"best_win_value": 1700.5, "best_win_deviation": 61.0, "best_win_at": BASE_TIME}
    RatingFactory(
        player=player, character=character("SO"), wins=30, losses=5,
        peak_value=1800.0, peak_deviation=55.5, peak_at=BASE_TIME,
        best_win_opponent=rival, best_win_character=character("KY"), **best_win,
    )  # fmt: skip
    for code in ("MA", "KY"):
        RatingFactory(player=player, character=character(code), wins=4, losses=6)
    Rating.objects.filter(player=player, character__code="MA").update(
        best_win_opponent=hidden, best_win_character=character("SO"), **best_win
    )
    for days, name in ((1, "Older"), (3, "Oldest"), (0, "Now")):
        PlayerName.objects.create(
            player=player,
            name=name,
            first_seen=BASE_TIME - timedelta(days=10 + days),
            last_seen=BASE_TIME - timedelta(days=days),
        )
    sol = Rating.objects.get(player=player, character__code="SO")
    for code, wins in (("MA", 3), ("KY", 7)):
        PlayerMatchup.objects.create(
            rating=sol,
            opponent_character=character(code),
            wins=wins,
            losses=2,
            expected_wins=4.25,
            information=1.5,
        )
    return player


def test_an_overview_holds_what_the_orm_reads(player):
    overview = rating_overview(player.id, "so")
    expected = list(
        Rating.objects.filter(player=player).select_related(
            "player", "character", "best_win_opponent", "best_win_character"
        )
    )
    expected.sort(key=lambda r: (-r.games, r.character_id))
    assert [r.character.code for r in expected] == ["SO", "KY", "MA"]
    assert overview.rating == expected[0]
    assert [columns(r) for r in overview.ratings] == [columns(r) for r in expected]
    for read, orm in zip(overview.ratings, expected, strict=True):
        assert columns(read.player) == columns(orm.player)
        assert read.character == orm.character and read.character.name == orm.character.name
        assert read.best_win_character == orm.best_win_character
        opponent = read.best_win_opponent
        assert (opponent and columns(opponent)) == (
            orm.best_win_opponent and columns(orm.best_win_opponent)
        )
    # Flags read as booleans and moments as aware ones, on every database.
    assert overview.rating.player.supporter is True and overview.rating.player.hidden is False
    assert overview.rating.peak_at == BASE_TIME and overview.rating.peak_at.tzinfo is not None
    assert not overview.best_win_hidden
    assert rating_overview(player.id, "MA").best_win_hidden
    assert rating_overview(player.id, "KY").rating.best_win_opponent is None


def test_an_overview_has_past_names_latest_first_and_matchups_by_character(player):
    overview = rating_overview(player.id, "SO")
    names = [(n.name, n.last_seen) for n in overview.past_names]
    assert names == [
        ("Older", BASE_TIME - timedelta(days=1)),
        ("Oldest", BASE_TIME - timedelta(days=3)),
    ]
    assert [columns(n) for n in overview.past_names] == [
        columns(n) for n in PlayerName.objects.filter(player=player).exclude(name="Now")
    ]
    assert [(m.opponent_character.code, m.wins) for m in overview.matchups] == [
        ("KY", 7),
        ("MA", 3),
    ]
    assert [columns(m) for m in overview.matchups] == [
        columns(m) for m in PlayerMatchup.objects.order_by("opponent_character_id")
    ]
    assert rating_overview(player.id, "KY").matchups == []


def test_no_overview_of_unknown_or_hidden_players_or_unplayed_characters(player):
    assert rating_overview(player.id, "JC") is None
    assert rating_overview("1", "SO") is None
    Player.objects.filter(id=player.id).update(hidden=True)
    assert rating_overview(player.id, "SO") is None
