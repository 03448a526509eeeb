"""Fair opponents: even games first, only eligible and recent players, bounded queries."""

from __future__ import annotations

from datetime import timedelta

import pytest

from matches.params import glicko_params
from matches.ratings.glicko import chance, win_probability
from matches.ratings.matchmaking import fairest_opponents
from matches.selectors import opponents
from matches.selectors.opponents import fair_opponents
from players.models import Character, Player, Rating
from tests.factories import BASE_TIME, PlayerFactory, RatingFactory

pytestmark = pytest.mark.django_db

NOW = BASE_TIME + timedelta(days=1)


def rating(value: float, deviation: float, **extra) -> Rating:
    return RatingFactory(value=value, deviation=deviation, **extra)


@pytest.fixture
def target() -> Rating:
    return rating(1500, 50)


def test_opponents_come_fairest_first_with_lower_deviation_breaking_ties(target):
    even_uncertain = rating(1500, 80)
    even_certain = rating(1500, 40)
    slightly_above = rating(1520, 50)
    further_below = rating(1450, 50)
    far_above = rating(1700, 30)
    found = fair_opponents(target.player_id, target.character_id, now=NOW)
    assert [o["player_id"] for o in found] == [
        even_certain.player_id,
        even_uncertain.player_id,
        slightly_above.player_id,
        further_below.player_id,
        far_above.player_id,
    ]
    first = found[0]
    assert first == {
        "player_id": even_certain.player_id,
        "name": even_certain.player.name,
        "character": "SO",
        "value": 1500.0,
        "deviation": 40.0,
        "tier": "Silver",
        "win_probability": 0.5,
        "model_win_probability": 0.5,
        "quality": 1.0,
    }
    # The chance the site shows: the one-chance model (all on Sol: a mirror, no matchup).
    assert found[2]["model_win_probability"] == pytest.approx(win_probability(1500, 50, 1520, 50))
    assert found[2]["win_probability"] == pytest.approx(chance(1500, 50, 1520, 50, glicko_params()))
    assert found[2]["win_probability"] < 0.5 < found[3]["win_probability"]
    assert [o["quality"] for o in found] == sorted((o["quality"] for o in found), reverse=True)
    assert found[-1]["tier"] == "Gold"
    assert len(fair_opponents(target.player_id, target.character_id, limit=2, now=NOW)) == 2


def test_hidden_cheating_inactive_players_and_the_player_themself_are_left_out(target, settings):
    settings.FAIR_OPPONENT_DAYS = 14
    rating(1500, 30, player=PlayerFactory(hidden=True))
    rating(1500, 30, player=PlayerFactory(cheater=True))
    idle = rating(1500, 30, last_played_at=NOW - timedelta(days=20))
    never_played = rating(1500, 30, last_played_at=None)
    rating(1500, 30, player=target.player, character=Character.objects.get(code="KY"))
    eligible = rating(1600, 60)
    found = fair_opponents(target.player_id, target.character_id, now=NOW)
    assert [o["player_id"] for o in found] == [eligible.player_id]

    settings.FAIR_OPPONENT_DAYS = 30  # the idle rating played 20 days ago
    found = fair_opponents(target.player_id, target.character_id, now=NOW)
    assert [o["player_id"] for o in found] == [idle.player_id, eligible.player_id]
    assert never_played.player_id not in {o["player_id"] for o in found}


def test_unknown_and_hidden_targets_have_no_suggestions(target):
    rating(1500, 40)
    assert fair_opponents("999", target.character_id, now=NOW) == []
    assert fair_opponents(target.player_id, Character.objects.get(code="MA").id, now=NOW) == []
    Player.objects.filter(id=target.player_id).update(hidden=True)
    assert fair_opponents(target.player_id, target.character_id, now=NOW) == []


def test_a_large_table_takes_four_queries_and_finds_the_true_best(
    target, django_assert_max_num_queries, monkeypatch
):
    players = Player.objects.bulk_create(
        PlayerFactory.build(id=str(900_000 + n)) for n in range(600)
    )
    sol = Character.objects.get(code="SO")
    Rating.objects.bulk_create(
        Rating(
            player=player,
            character=sol,
            value=1000 + (n * 37) % 1000,  # spread over 1000-2000, not in id order
            deviation=30 + (n * 13) % 120,
            last_played_at=BASE_TIME,
        )
        for n, player in enumerate(players)
    )
    monkeypatch.setattr(opponents, "CANDIDATES_PER_SIDE", 40)
    with django_assert_max_num_queries(4):  # the calibration is one of them
        found = fair_opponents(target.player_id, target.character_id, limit=10, now=NOW)

    everyone = [
        opponents._Rated(value, deviation, player_id)
        for value, deviation, player_id in Rating.objects.exclude(
            player_id=target.player_id
        ).values_list("value", "deviation", "player_id")
    ]
    best = fairest_opponents(opponents._Rated(1500.0, 50.0), everyone, 10)
    assert [o["player_id"] for o in found] == [o.player_id for o in best]
