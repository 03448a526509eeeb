"""Temperature calibration of shown probabilities (pure math)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings.calibration import (
    MAX_LOGIT,
    LogitHistogram,
    RollingCalibration,
    calibrated,
    fit_temperature,
    logit,
    logit_bins,
    recent_games,
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


def drifting_predictions(temperatures: list[float], per_hour: int, seed: int = 11):
    """(time, model probability, score) with the model's overconfidence `temperatures[h]`
    in hour h: the true chance is sigmoid(logit(p) / T)."""
    rng = random.Random(seed)
    games = []
    for hour, temperature in enumerate(temperatures):
        for n in range(per_hour):
            p = rng.uniform(0.05, 0.95)
            truth = sigmoid(logit(p) / temperature)
            games.append((hour * 3600 + n * 3600 / per_hour, p, float(rng.random() < truth)))
    return games


def play_rolling(games, refit_every: float = 3600) -> list[float]:
    """The temperature in force at each game."""
    rolling = RollingCalibration(refit_every)
    temperatures = []
    for at, p, score in games:
        temperatures.append(rolling.at(at))
        rolling.learn(p, score)
    return temperatures


def test_the_rolling_calibration_follows_an_overconfidence_that_fades():
    # Very overconfident for 10 hours, then barely: a temperature fitted once would be
    # far off in the later hours; refitted hourly on the latest 10% (at least 2,000
    # games), it follows.
    games = drifting_predictions([3.0] * 10 + [1.2] * 30, per_hour=4_000)
    temperatures = play_rolling(games)
    assert temperatures[0] == 1.0  # nothing fitted before the first refresh
    assert temperatures[4_000 * 10 - 1] == pytest.approx(3.0, rel=0.15)
    assert temperatures[-1] == pytest.approx(1.2, rel=0.1)


def test_the_rolling_calibration_never_sees_the_games_it_shows():
    games = drifting_predictions([2.0] * 6, per_hour=500)
    flipped = games[:1_700] + [(at, p, 1.0 - score) for at, p, score in games[1_700:]]
    before, after = play_rolling(games), play_rolling(flipped)
    # Every game up to the first refit after the flip is shown exactly as before...
    first_refit_after = next(i for i in range(1_700, len(games)) if games[i][0] >= 4 * 3600)
    assert before[:first_refit_after] == after[:first_refit_after]
    # ...and the refits only change at refresh boundaries (each hour here).
    changes = [i for i in range(1, len(games)) if before[i] != before[i - 1]]
    assert changes == [500, 1_000, 1_500, 2_000, 2_500]


def test_the_rolling_window_is_the_latest_recent_games():
    rolling = RollingCalibration(3600)
    games = drifting_predictions([1.0] * 3 + [2.5] * 3, per_hour=10_000)
    for at, p, score in games[:30_000] + games[30_000:35_000]:
        rolling.at(at)
        rolling.learn(p, score)
    rolling.at(10 * 3600)  # a refit over the latest recent_games(35,000) = 3,500
    latest = LogitHistogram()
    for _, p, score in games[31_500:35_000]:
        latest.add(p, score)
    assert recent_games(35_000) == 3_500
    assert rolling.temperature == pytest.approx(fit_temperature(latest.bins()).temperature)


def test_a_histogram_forgets_what_it_is_told_to():
    histogram = LogitHistogram()
    histogram.add(0.7, 1.0)
    histogram.add_logit(logit(0.3), 0.0)
    histogram.add_logit(logit(0.3), 0.0, -1)
    assert histogram.games == 1
    assert [(b.games, b.wins) for b in histogram.bins()] == [(1, 1.0)]


@given(
    st.lists(
        st.tuples(
            st.floats(min_value=-20, max_value=20, allow_nan=False),
            st.sampled_from((0.0, 0.5, 1.0)),
        ),
        max_size=200,
    )
)
def test_array_bins_are_the_histogram_bins(predictions):
    """logit_bins (the recompute's, over arrays) bins as LogitHistogram does, each bin's
    mean logit within ±MAX_LOGIT as the stored predictions are read back."""
    histogram = LogitHistogram()
    for x, score in predictions:
        histogram.add_logit(x, score)
    expected = sorted(
        (max(-MAX_LOGIT, min(MAX_LOGIT, mean)), games, wins)
        for mean, games, wins in histogram.bins()
    )
    logits = np.array([x for x, _ in predictions], dtype=np.float64)
    scores = np.array([score for _, score in predictions], dtype=np.float64)
    binned = sorted(logit_bins(logits, scores))
    assert [games for _, games, _ in binned] == [games for _, games, _ in expected]
    assert [wins for _, _, wins in binned] == pytest.approx([w for _, _, w in expected])
    assert [mean for mean, _, _ in binned] == pytest.approx([m for m, _, _ in expected])
