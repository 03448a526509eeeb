"""The calibration shown probabilities go through: refitted at every refresh on the site's
latest predictions (each game's ratings before it was rated), stored, and shown on /lab
and in the API."""

from __future__ import annotations

import random

import pytest

from matches.models import MatchRating
from matches.ratings import calibration as calibration_math
from matches.ratings.calibration import LogitHistogram, fit_temperature, logit, sigmoid
from matches.replays.readers import iter_replay_payloads
from matches.selectors.calibration import Calibration, current_calibration
from matches.services.calibration import refit_calibration
from matches.services.file_import import file_import_source
from matches.services.flags import set_player_flags
from matches.services.ingest import store_replays
from matches.services.rating.incremental import rate_pending_matches
from matches.services.rating.recompute import recompute_all_ratings
from matches.services.refresh import refresh_site
from players.models import Player
from players.services import ensure_roster
from tests.factories import replay

pytestmark = pytest.mark.django_db

PLAYERS = [f"1000000000000000{n:02d}" for n in range(12)]


def store_and_rate(games: int, seed: int = 5, *, shuffled: bool = False) -> None:
    """A small league through ingestion and rating: strong players mostly win; `shuffled`,
    the games arrive in another order than they were played."""
    ensure_roster()
    rng = random.Random(seed)
    replays = []
    for n in range(games):
        one, two = rng.sample(range(len(PLAYERS)), 2)
        one_wins = rng.random() < sigmoid((one - two) / 3)
        replays.append(replay(n, PLAYERS[one], PLAYERS[two], winner=1 if one_wins else 2))
    if shuffled:
        rng.shuffle(replays)
    store_replays(source=file_import_source(), replays=iter_replay_payloads(replays))
    rate_pending_matches()


def expected_fit(ratings: list[MatchRating]):
    """The temperature fitted in Python on these stored chances (those shown before each
    game)."""
    predictions = LogitHistogram()
    for row in ratings:
        predictions.add(row.chance_a, 1.0 if row.match.winner == "A" else 0.0)
    return fit_temperature(predictions.bins())


def test_each_refresh_fits_the_calibration_on_the_latest_stored_predictions(client, monkeypatch):
    store_and_rate(400)
    assert current_calibration() == Calibration()  # before the first fit: shown as they are
    assert current_calibration().shown(0.3) == 0.3
    # The latest 10% of the games, at least 150 of them (the site's floor is 2,000).
    monkeypatch.setattr(calibration_math, "RECENT_MIN_GAMES", 150)

    refresh_site()  # a new site: the lab's first evaluation runs too

    latest = list(MatchRating.objects.select_related("match").order_by("-match_id")[:150])
    fit = expected_fit(latest)
    calibration = current_calibration()
    assert calibration.games == 150 and calibration.fitted_at is not None
    assert calibration.temperature == pytest.approx(fit.temperature, rel=1e-6)
    assert calibration.temperature != 1.0
    assert calibration.log_loss_after <= calibration.log_loss_before
    assert calibration.shown(0.8) == pytest.approx(sigmoid(logit(0.8) / fit.temperature))
    # Every game predicted over all: a different fit, so the window is what was used.
    everything = expected_fit(list(MatchRating.objects.select_related("match")))
    assert everything.temperature != pytest.approx(fit.temperature, rel=1e-3)

    page = " ".join(client.get("/lab").content.decode().split())
    assert "How often the site's chances come true" in page
    assert f"temperature of <strong>{fit.temperature:.3f}</strong>" in page
    assert "It is a measurement, not applied to the chances" in page
    assert "Fitted on the latest 150 games" in page
    lab = client.get("/api/v1/lab/").json()
    assert lab["calibration"]["temperature"] == calibration.temperature
    assert sum(row["games"] for row in lab["calibration"]["after"]) == 150


def test_games_of_hidden_players_and_cheaters_are_left_out_of_the_fit():
    store_and_rate(300)
    everyone = refit_calibration()
    cheater = Player.objects.get(id=PLAYERS[0])
    set_player_flags(cheater, cheater=True, by="test")
    without = refit_calibration()
    theirs = MatchRating.objects.filter(match__player_a=cheater).count()
    theirs += MatchRating.objects.filter(match__player_b=cheater).count()
    assert theirs > 0
    assert without["games"] == everyone["games"] - theirs == 300 - theirs


def test_too_few_games_fit_nothing_and_keep_what_is_stored():
    store_and_rate(calibration_math.MIN_FIT_GAMES - 1)
    assert refit_calibration() is None
    assert current_calibration() == Calibration()


def test_a_recompute_refits_the_calibration_on_the_new_predictions(settings):
    store_and_rate(300)
    refit_calibration()
    before = current_calibration()
    settings.RATING_INITIAL_DEVIATION = 200.0  # a new model: other predictions
    recompute_all_ratings()
    after = current_calibration()
    assert after.fitted_at > before.fitted_at
    fit = expected_fit(list(MatchRating.objects.select_related("match")))
    assert after.temperature == pytest.approx(fit.temperature, rel=1e-6)
    assert after.temperature != pytest.approx(before.temperature, rel=1e-3)


def test_a_recompute_fits_on_the_predictions_the_stored_games_give_back(monkeypatch):
    """A recompute gathers the latest predictions as it rates (on PostgreSQL with the
    compiled ledger): the same window by arrival, without flagged players' games, as
    refitting from the stored games reads."""
    monkeypatch.setattr(calibration_math, "RECENT_MIN_GAMES", 150)
    store_and_rate(600, shuffled=True)  # arrival (match id) is not the order of play
    Player.objects.filter(id=PLAYERS[0]).update(cheater=True)
    recompute_all_ratings()
    gathered = current_calibration()
    read_back = refit_calibration()
    assert 100 < gathered.games == read_back["games"] < 150  # the cheater's games left out
    assert gathered.temperature == pytest.approx(read_back["temperature"], rel=1e-9)
    assert gathered.log_loss_before == pytest.approx(read_back["log_loss_before"], rel=1e-9)
    assert gathered.log_loss_after == pytest.approx(read_back["log_loss_after"], rel=1e-9)
