"""The calculator: DESIGN 4.3 reference numbers, the counting rule, players as input."""

from __future__ import annotations

import pytest

from matches.selectors.calculator import Contender, win_forecast
from players.models import Player, Rating
from tests.factories import replay
from tests.fixtures.league import rate_replays
from tests.ratings.reference import COUNTED, REFERENCE

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("a", "b", "a_won", "a_after", "b_after", "p_a"), COUNTED)
def test_reference_numbers(a, b, a_won, a_after, b_after, p_a):
    forecast = win_forecast(Contender(*a), Contender(*b))
    assert forecast.a.win_probability == pytest.approx(p_a, abs=1e-4)
    assert forecast.b.win_probability == pytest.approx(1 - p_a, abs=1e-4)
    mine = forecast.a.after_win if a_won else forecast.a.after_loss
    theirs = forecast.b.after_loss if a_won else forecast.b.after_win
    assert (mine.value, mine.deviation) == pytest.approx(a_after, abs=1e-3)
    assert (theirs.value, theirs.deviation) == pytest.approx(b_after, abs=1e-3)
    assert mine.change == pytest.approx(a_after[0] - a[0], abs=1e-3)
    assert forecast.counts


def test_lopsided_game_between_established_players_does_not_count_either_way():
    lopsided = REFERENCE[4]
    forecast = win_forecast(Contender(*lopsided.a), Contender(*lopsided.b))
    assert forecast.a.win_probability == pytest.approx(lopsided.p_a, abs=1e-5)
    assert not forecast.counts
    for outcome in (forecast.a.after_win, forecast.a.after_loss):
        assert (outcome.value, outcome.deviation, outcome.change) == (2000, 30, 0)
    # The same gap with uncertain ratings (RMS deviation >= 50) counts.
    assert win_forecast(Contender(2000, 30), Contender(1400, 80)).counts


def test_page_with_numbers(client, db):
    html = client.get(
        "/calculator?a-rating=1500&a-uncertainty=700&b-rating=1500&b-uncertainty=700"
    ).content.decode()
    assert "50.0%" in html
    assert '1662 ±580 <span class="up">(+162.2)</span>' in html
    assert '1338 ±580 <span class="down">(\u2212162.2)</span>' in html
    lopsided = client.get(
        "/calculator?a-rating=2000&a-uncertainty=60&b-rating=1400&b-uncertainty=60"
    ).content.decode()
    assert "This game would not move either rating, whoever wins" in lopsided


def test_page_with_players(client, db, django_capture_on_commit_callbacks):
    a, b = "100000000000000001", "100000000000000002"
    rate_replays([replay(1, a, b)])
    mine = Rating.objects.get(player_id=a)
    html = client.get(
        f"/calculator?a-player={a}&a-character=SO&b-rating=1500&b-uncertainty=200"
    ).content.decode()
    expected = win_forecast(Contender.of(mine), Contender(1500, 100))
    assert f"{100 * expected.a.win_probability:.1f}%" in html
    assert f'href="/player/{a}/SO"' in html
    hidden = Player.objects.get(id=a)
    hidden.hidden = True
    with django_capture_on_commit_callbacks(execute=True):
        hidden.save()  # as the admin does: cached pages are invalidated
    html = client.get(
        f"/calculator?a-player={a}&a-character=SO&b-rating=1500&b-uncertainty=200"
    ).content.decode()
    assert "No rating for this player and character." in html
    assert 'id="result-heading"' not in html


def test_empty_and_incomplete_forms(client, db):
    assert 'id="result-heading"' not in client.get("/calculator").content.decode()
    html = client.get("/calculator?a-rating=1500&b-rating=1500&b-uncertainty=100").content.decode()
    assert "Give a rating and its ±, or a player and character." in html
