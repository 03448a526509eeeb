"""The calculator forecasts what rating the game does, with every rule of the ledger: a young
account's early stage and fast track (docs/integrity.md) as well as the update itself."""

from __future__ import annotations

import pytest
from django.utils.html import escape

from matches.models import MatchRating
from matches.selectors.calculator import Contender, win_forecast
from players.models import Rating
from tests.factories import RatingFactory, replay
from tests.fixtures.league import rate_replays

pytestmark = pytest.mark.django_db
NEW, SETTLED = "100000000000000071", "100000000000000072"

# A young account (14 counted games, every one a win read by the test at even odds): its
# test stands at 7 / √3.5 = 3.74 standard deviations, past the fast track's 3.5 and short
# of the flag's 4.0 after this game too; its recent results beat their chances.
FAST_TRACKED = {
    "value": 1800.0,
    "deviation": 200.0,
    "wins": 14,
    "surprise_games": 14,
    "surprise_wins": 14,
    "surprise_expected": 7.0,
    "surprise_information": 3.5,
    "recent_surprise": 1.0,
}
# A new account before its first game: a win puts it in the early stage.
FRESH = {"value": 1500.0, "deviation": 350.0, "wins": 0}


def _rating(player_id: str) -> Rating:
    return Rating.objects.select_related("player", "character").get(player_id=player_id)


@pytest.mark.parametrize("young", [FAST_TRACKED, FRESH], ids=["fast-tracked", "fresh"])
def test_the_forecast_is_what_rating_the_game_does(young):
    RatingFactory(player__id=NEW, losses=0, confirmations=0, **young)
    RatingFactory(player__id=SETTLED, value=1500.0, deviation=60.0, wins=100, losses=100)
    forecast = win_forecast(Contender.of(_rating(NEW)), Contender.of(_rating(SETTLED)))

    # The young account wins, a minute later (nothing decays).
    rate_replays([replay(1, NEW, SETTLED, winner=1, characters=("SO", "SO"))])
    new, settled = _rating(NEW), _rating(SETTLED)
    stored = MatchRating.objects.get()

    assert (new.value, new.deviation) == pytest.approx(
        (forecast.a.after_win.value, forecast.a.after_win.deviation), abs=1e-9
    )
    assert (settled.value, settled.deviation) == pytest.approx(
        (forecast.b.after_loss.value, forecast.b.after_loss.deviation), abs=1e-9
    )
    assert stored.change_a == pytest.approx(forecast.a.after_win.change, abs=1e-9)
    assert stored.change_b == pytest.approx(forecast.b.after_loss.change, abs=1e-9)
    assert stored.chance_a == pytest.approx(forecast.a.win_probability, abs=1e-9)
    if young is FAST_TRACKED:
        # Its opponent is spared, and told why; it keeps the fast track's deviation.
        assert forecast.b.after_loss.change == forecast.b.after_win.change == 0.0
        assert (forecast.a.spared, forecast.b.spared) == (False, True)
        assert forecast.spared_text.startswith("B's rating would not move, whoever wins: A's")
        assert forecast.a.after_win.deviation == pytest.approx(350.0)
    else:
        # One win at even odds: the early stage holds its deviation at 250. Nobody spared.
        assert forecast.a.after_win.deviation == pytest.approx(250.0)
        assert not forecast.b.spared and forecast.spared_text == ""
        assert forecast.a.after_loss.deviation < 250.0  # a loss: the bare update's


def test_typed_in_numbers_are_rated_as_an_established_rating():
    # No young games: a 350 deviation narrows after a win as the bare update says.
    forecast = win_forecast(Contender(1500.0, 350.0), Contender(1500.0, 60.0))
    assert forecast.a.after_win.deviation < 250.0
    assert forecast.b.after_loss.change < 0.0


def test_the_api_says_who_is_spared(client):
    fast = RatingFactory(player__id=NEW, losses=0, confirmations=0, **FAST_TRACKED)
    settled = RatingFactory(player__id=SETTLED, value=1500.0, deviation=60.0, wins=100, losses=100)
    body = client.get(
        "/api/v1/probability/", {"a": f"{fast.player_id}:SO", "b": f"{settled.player_id}:SO"}
    ).json()
    assert (body["a"]["spared"], body["b"]["spared"]) == (False, True)
    assert body["b"]["after_loss"]["change"] == 0.0
    assert body["spared_display"].startswith("B's rating would not move, whoever wins")
    page = client.get(
        f"/calculator?a-player={fast.player_id}&a-character=SO"
        f"&b-player={settled.player_id}&b-character=SO"
    ).content.decode()
    assert f"<span data-spared-text>{escape(body['spared_display'])}</span>" in page


def test_the_spared_sides_history_says_why_its_rating_did_not_move(client):
    fast = RatingFactory(player__id=NEW, losses=0, confirmations=0, **FAST_TRACKED)
    RatingFactory(player__id=SETTLED, value=1500.0, deviation=60.0, wins=100, losses=100)
    rate_replays(
        [
            replay(1, NEW, SETTLED, winner=1, characters=("SO", "SO")),
            replay(2, NEW, SETTLED, winner=2, characters=("SO", "SO")),
        ]
    )
    assert list(MatchRating.objects.values_list("counted", "change_b")) == [(True, 0.0)] * 2
    mark = "Left your rating as it was: your opponent's rating was new"
    settled_page = client.get(f"/player/{SETTLED}/SO").content.decode()
    # The set's row and each of its two games are marked, and the legend names the mark.
    assert settled_page.count(mark) == 2
    assert "2 of 2 games left your rating as it was" in settled_page
    assert 'href="/about#new-accounts">new accounts</a>' in settled_page
    # The account itself moved: nothing marked on its page.
    assert fast.player_id == NEW
    new_page = client.get(f"/player/{NEW}/SO").content.decode()
    assert "left your rating as it was" not in new_page
