"""The calibration shown probabilities go through: fitted by the lab on predictions made
before each game was learned, stored, and shown on /lab."""

from __future__ import annotations

import pytest

from matches.ratings.calibration import LogitHistogram, fit_temperature, logit, sigmoid
from matches.ratings.glicko import rate_game, win_probability
from matches.selectors.calibration import Calibration, current_calibration
from matches.services.evaluation import refresh_lab
from tests.factories import PlayerFactory
from tests.lab.test_evaluation import play

pytestmark = pytest.mark.django_db


def test_the_lab_fits_the_calibration_from_predictions_made_before_each_game(client):
    a, b = PlayerFactory(), PlayerFactory()
    for minutes, a_won in ((0, True), (10, True), (20, False), (30, True)):
        play(a, b, a_won=a_won, minutes=minutes)
    assert current_calibration() == Calibration()  # before the first fit: shown as they are
    assert current_calibration().shown(0.3) == 0.3

    refresh_lab()

    # The site's Glicko predicts each game from the ratings after the games before it.
    predictions, ratings = LogitHistogram(), (1500.0, 350.0, 1500.0, 350.0)
    for score in (1.0, 1.0, 0.0, 1.0):
        predictions.add(win_probability(*ratings), score)
        ratings = rate_game(*ratings, score)
    fit = fit_temperature(predictions.bins())
    calibration = current_calibration()
    assert calibration.temperature == pytest.approx(fit.temperature, rel=1e-9)
    assert calibration.temperature != 1.0
    assert calibration.games == 4 and calibration.fitted_at is not None
    assert calibration.log_loss_after <= calibration.log_loss_before
    assert calibration.shown(0.8) == pytest.approx(sigmoid(logit(0.8) / fit.temperature))

    page = client.get("/lab").content.decode()
    assert "The chances this site shows" in page
    assert f"{fit.temperature:.3f}" in page
