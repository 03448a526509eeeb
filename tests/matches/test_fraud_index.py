"""The fraud index (docs/rating-model.md#the-fraud-index) equals a computation in plain
Python over every rating row, on a league with hidden players, cheaters, unsettled
ratings and ratings with too few games; the stats page and the API show it."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import timedelta

import pytest

from matches.models import SiteStatistic
from matches.services.refresh import refresh_derived_tables
from players.models import Character, Rating
from tests.factories import BASE_TIME, PlayerFactory, RatingFactory

pytestmark = pytest.mark.django_db

NOW = BASE_TIME + timedelta(minutes=30)
MINIMUM_GAMES = 200
FLOORS = (1500.0, 1800.0)


def independent_fraud_index() -> dict[tuple[str, str], tuple[int, float]]:
    """{(bracket key, character code): (players, mean offset)} from every rating row: a
    player's ratings that are settled (deviation under 75), of an unflagged player, with
    200 games or more; players with two or more of them; each such rating's value minus
    the mean of the player's other such ratings."""
    eligible: dict[str, list[Rating]] = defaultdict(list)
    for rating in Rating.objects.select_related("player", "character"):
        player = rating.player
        if player.hidden or player.cheater or rating.deviation >= 75:
            continue
        if rating.wins + rating.losses >= MINIMUM_GAMES:
            eligible[player.id].append(rating)
    offsets: dict[tuple[str, str], list[float]] = defaultdict(list)
    for ratings in eligible.values():
        if len(ratings) < 2:
            continue
        for rating in ratings:
            others = [other.value for other in ratings if other is not rating]
            offset = rating.value - sum(others) / len(others)
            offsets[("all", rating.character.code)].append(offset)
            for floor in FLOORS:
                if rating.value >= floor:
                    offsets[(f"{floor:g}", rating.character.code)].append(offset)
    return {key: (len(values), sum(values) / len(values)) for key, values in offsets.items()}


def stored_fraud_index() -> dict[tuple[str, str], tuple[int, float]]:
    data = SiteStatistic.objects.get(key="fraud_index").data
    return {
        (key, row["character"]): (cell["players"], cell["offset"])
        for row in data["rows"]
        for key, cell in row["cells"].items()
        if cell["players"]
    }


def make_league(seed: int) -> None:
    rng = random.Random(seed)
    roster = list(Character.objects.order_by("id")[:6])
    for n in range(80):
        player = PlayerFactory(hidden=n % 17 == 0, cheater=n % 13 == 0)
        for character in rng.sample(roster, rng.randint(1, 4)):
            RatingFactory(
                player=player,
                character=character,
                value=rng.uniform(1200, 2100),
                # Some unsettled, some with too few games (exactly the minimum counts).
                deviation=rng.choice([40.0, 60.0, 74.9, 75.0, 120.0]),
                wins=rng.choice([50, 100, 120, 150]),
                losses=rng.choice([49, 50, 100, 150]),
            )


def test_the_fraud_index_equals_an_independent_computation():
    make_league(seed=31)
    refresh_derived_tables(now=NOW)
    expected = independent_fraud_index()
    stored = stored_fraud_index()
    assert len(expected) > 10, "the league gives the index something to count"
    assert any(key[0] == "1800" for key in expected), "some players above the top floor"
    assert stored.keys() == expected.keys()
    for key, (players, offset) in expected.items():
        assert stored[key][0] == players, key
        assert stored[key][1] == pytest.approx(offset, abs=1e-9), key


def test_the_stats_page_and_the_api_show_the_fraud_index(client):
    so, ky, ma = (Character.objects.get(code=code) for code in ("SO", "KY", "MA"))
    player = PlayerFactory()
    RatingFactory(player=player, character=so, value=1900.0, wins=150, losses=50)
    RatingFactory(player=player, character=ky, value=1700.0, wins=100, losses=100)
    RatingFactory(player=player, character=ma, value=1600.0, wins=10, losses=10)  # too few
    refresh_derived_tables(now=NOW)
    html = client.get("/stats").content.decode()
    assert 'id="fraud-heading">Fraud index' in html
    # Sol: 1900 - 1700 = +200, one player; in every bracket (1500+ and 1800+ too).
    assert (
        '<td class="num" data-sort="200.0">+200.0<small class="muted">1 player</small></td>' in html
    )
    answer = client.get("/api/v1/stats/").json()["fraud_index"]
    assert answer["minimum_games"] == MINIMUM_GAMES
    assert [b["key"] for b in answer["brackets"]] == ["all", "1500", "1800"]
    first = answer["rows"][0]
    assert first["character"] == "SO"
    assert first["cells"]["1800"] == {"players": 1, "offset": 200.0}
    ky_row = next(row for row in answer["rows"] if row["character"] == "KY")
    assert ky_row["cells"]["all"] == {"players": 1, "offset": -200.0}
    assert ky_row["cells"]["1800"] == {"players": 0, "offset": None}
