"""Temperature calibration of shown probabilities (pure math)."""

from __future__ import annotations

import math
import random

import pytest

from matches.ratings.calibration import (
    LogitHistogram,
    calibrated,
    fit_temperature,
    logit,
    reliability,
    sigmoid,
)


def overconfident_history(temperature: float, games: int = 40_000, seed: int = 3):
    """Predictions whose true probability is sigmoid(logit(p) / temperature)."""
    rng = random.Random(seed)
    history = LogitHistogram()
    for _ in range(games):
        shown = rng.uniform(0.03, 0.97)
        truth = sigmoid(logit(shown) / temperature)
        history.add(shown, 1.0 if rng.random() < truth else 0.0)
    return history


def test_a_known_overconfidence_is_recovered():
    fit = fit_temperature(overconfident_history(1.6).bins())
    assert fit.temperature == pytest.approx(1.6, rel=0.06)
    assert fit.log_loss_after < fit.log_loss_before


def test_a_calibrated_model_keeps_temperature_one():
    fit = fit_temperature(overconfident_history(1.0).bins())
    assert fit.temperature == pytest.approx(1.0, abs=0.06)


def test_calibration_keeps_order_and_even_odds():
    assert calibrated(0.5, 1.7) == pytest.approx(0.5)
    shown = [calibrated(p / 20, 1.7) for p in range(1, 20)]
    assert shown == sorted(shown)
    assert calibrated(0.36, 1.7) > 0.36  # an overconfident 36% is shown closer to even


def test_no_information_leaves_the_model_alone():
    history = LogitHistogram()
    for score in (1.0, 0.0, 1.0):
        history.add(0.5, score)
    assert fit_temperature(history.bins()).temperature == 1.0
    assert fit_temperature([]).temperature == 1.0


def test_reliability_after_the_fit_is_closer_to_the_diagonal():
    history = overconfident_history(1.8)
    fit = fit_temperature(history.bins())

    def gap(table) -> float:
        return sum(abs(b.mean_predicted - b.observed) * b.count for b in table if b.count) / sum(
            b.count for b in table
        )

    before, after = reliability(history.bins()), reliability(history.bins(), fit.temperature)
    assert sum(b.count for b in after) == history.games == 40_000
    assert gap(after) < gap(before) / 2
    assert not math.isnan(after[5].observed)


def test_a_model_that_knows_nothing_is_shown_as_even_odds():
    # Favourites win exactly as often as they lose: the best monotone map is 50%.
    history = LogitHistogram()
    for p in (0.2, 0.35, 0.65, 0.8):
        for score in (1.0, 0.0):
            history.add(p, score)
    fit = fit_temperature(history.bins())
    assert fit.log_loss_before > math.log(2)
    assert fit.log_loss_after == pytest.approx(math.log(2), abs=1e-4)
    assert calibrated(0.8, fit.temperature) == pytest.approx(0.5, abs=0.01)
