"""Placement (/api/v1/players/<id>/<character>/placement/): the games that would rank a
rating, held to the closed form of Glicko's deviation step."""

from __future__ import annotations

import math
import random
from datetime import timedelta

import pytest

from matches.params import glicko_params
from matches.replays.readers import iter_replay_payloads
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.services.rating.incremental import rate_pending_matches
from players.models import Character, Rating
from players.selectors.rankings import unranked_reason
from tests.factories import BASE_TIME, PlayerFactory, RatingFactory, replay

pytestmark = pytest.mark.django_db

Q = math.log(10) / 400


def independent_games_to_rank(deviation: float) -> int:
    """Against an equal opponent at the settled limit each game adds q² g² / 4 to 1/d²
    (the expected score is 1/2 whatever the result): the first n taking d below the limit."""
    low = glicko_params().low_deviation
    if deviation < low:
        return 0
    g = 1 / math.sqrt(1 + 3 * Q**2 * low**2 / math.pi**2)
    information = Q**2 * g**2 / 4
    return math.floor((1 / low**2 - 1 / deviation**2) / information) + 1


@pytest.mark.parametrize("deviation", [350.0, 200.0, 120.0, 90.0, 76.0, 75.5])
def test_the_games_to_rank_are_those_of_the_deviation_step(client, deviation):
    rating = RatingFactory(deviation=deviation, wins=3, losses=2)
    answer = client.get(f"/api/v1/players/{rating.player_id}/SO/placement/").json()
    assert answer["ranked"] is False and answer["flag"] is None
    assert answer["games_to_rank"] == independent_games_to_rank(deviation) > 0


def test_a_ranked_rating_needs_no_games_and_an_idle_one_says_since_when(client):
    ranked = RatingFactory(deviation=50.0)
    answer = client.get(f"/api/v1/players/{ranked.player_id}/SO/placement/").json()
    assert answer == {
        "ranked": True,
        "flag": None,
        "games_to_rank": 0,
        "idle_since": None,
        "widest": False,
        "opponents_to_rank": 0,
    }
    # Settled (±146) after its last game, then 300 idle hours.
    idle_deviation = math.sqrt(73.0**2 + 300 * glicko_params().decay_constant ** 2)
    idle = RatingFactory(
        deviation=idle_deviation,
        last_played_at=BASE_TIME,
        last_decay_at=BASE_TIME + timedelta(hours=300),
    )
    answer = client.get(f"/api/v1/players/{idle.player_id}/SO/placement/").json()
    assert answer["idle_since"] == BASE_TIME.isoformat().replace("+00:00", "Z")
    assert answer["games_to_rank"] == independent_games_to_rank(idle_deviation)


SETTLED_OPPONENTS = [str(200000000000000000 + n) for n in range(20)]


def test_the_games_it_names_rank_a_new_rating_in_the_real_pipeline(client):
    """What the profile promises ("ranked in about N more games"), held against the rating
    pipeline as the site runs it: a new rating plays N games, one after another, against
    typical settled players of its level (± 100-140, within 60 points of it), winning and
    losing in turn. After N games it is settled; a few games fewer leave it unranked."""
    rng = random.Random(30)
    newcomer = "100000000000000001"
    sol = Character.objects.get(code="SO")
    for opponent in SETTLED_OPPONENTS:
        RatingFactory(
            player=PlayerFactory(id=opponent),
            character=sol,
            value=1500 + rng.uniform(-60, 60),
            deviation=rng.uniform(50, 70),
            last_played_at=BASE_TIME,
            last_decay_at=BASE_TIME + timedelta(minutes=1),
        )

    def play(first: int, count: int) -> Rating:
        games = [
            replay(
                first + n,
                newcomer,
                SETTLED_OPPONENTS[(first + n) % len(SETTLED_OPPONENTS)],
                winner=1 + (first + n) % 2,
                characters=("SO", "SO"),
            )
            for n in range(count)
        ]
        store_replays(source=file_import_source(), replays=iter_replay_payloads(games))
        rate_pending_matches()
        return Rating.objects.select_related("player").get(player_id=newcomer, character=sol)

    # The first game makes the rating; the placement API then names the games still to play.
    rating = play(1, 1)
    placement = client.get(f"/api/v1/players/{newcomer}/SO/placement/").json()
    games = placement["games_to_rank"]
    assert placement["ranked"] is False and games > 5
    short = 3
    rating = play(2, games - short)
    assert unranked_reason(rating) == "unsettled"
    rating = play(2 + games - short, short)
    assert unranked_reason(rating) is None, rating.deviation


def test_a_settled_rating_short_of_settled_opponents_says_how_many_more(client, settings):
    settings.RANKED_MIN_OPPONENTS = 10
    short = RatingFactory(deviation=50.0, confirmations=7)
    answer = client.get(f"/api/v1/players/{short.player_id}/SO/placement/").json()
    assert answer["ranked"] is False
    assert (answer["flag"], answer["games_to_rank"], answer["opponents_to_rank"]) == (None, 0, 3)
    html = client.get(f"/player/{short.player_id}/SO").content.decode()
    assert "Unranked: needs 3 more different opponents who are settled when you play them" in html
    # Unsettled and short of opponents: both are said.
    wide = RatingFactory(deviation=200.0, confirmations=9)
    answer = client.get(f"/api/v1/players/{wide.player_id}/SO/placement/").json()
    assert answer["opponents_to_rank"] == 1
    assert answer["games_to_rank"] == independent_games_to_rank(200.0)
    html = client.get(f"/player/{wide.player_id}/SO").content.decode()
    assert "and it needs one more different opponent who is settled when you play them" in html


def test_an_empty_ranking_says_when_no_narrow_rating_is_confirmed(client, settings):
    settings.RANKED_MIN_OPPONENTS = 10
    RatingFactory(deviation=50.0, confirmations=9)
    html = client.get("/").content.decode()
    assert (
        "No rating is ranked yet: a rating with a narrow ± is ranked once it has met 10 "
        "different opponents who were settled when they played it."
    ) in html
