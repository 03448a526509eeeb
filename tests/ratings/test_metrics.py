"""The streaming prediction scores, against hand-computed values."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings.metrics import CalibrationBin, PredictionMetrics

GAMES = [(0.8, 1.0), (0.3, 0.0), (0.6, 0.0), (0.5, 1.0)]


def filled(games, **options):
    metrics = PredictionMetrics(**options)
    for probability, score in games:
        metrics.add(probability, score)
    return metrics


def test_hand_computed_scores():
    metrics = filled(GAMES)
    assert metrics.count == 4
    assert metrics.log_loss == pytest.approx(
        -(math.log(0.8) + math.log(0.7) + math.log(0.4) + math.log(0.5)) / 4
    )
    assert metrics.brier == pytest.approx((0.04 + 0.09 + 0.36 + 0.25) / 4)
    # Right, right, wrong, and a coin flip counting half.
    assert metrics.accuracy == pytest.approx(2.5 / 4)
    assert metrics.summary() == {
        "games": 4.0,
        "log_loss": metrics.log_loss,
        "brier": metrics.brier,
        "accuracy": metrics.accuracy,
    }


def test_draws_count_half_and_score_half():
    metrics = filled([(0.7, 0.5)])
    assert metrics.accuracy == 0.5
    assert metrics.log_loss == pytest.approx(-(0.5 * math.log(0.7) + 0.5 * math.log(0.3)))
    assert metrics.brier == pytest.approx(0.04)


def test_certain_misses_are_clipped_not_infinite():
    metrics = filled([(0.0, 1.0), (1.0, 0.0)])
    assert metrics.log_loss == pytest.approx(-math.log(1e-15))
    assert filled([(0.0, 1.0)], epsilon=1e-6).log_loss == pytest.approx(-math.log(1e-6))
    assert metrics.brier == 1.0
    assert metrics.accuracy == 0.0


def test_calibration_table():
    table = filled([*GAMES, (0.85, 0.0), (1.0, 1.0), (0.0, 0.0)]).calibration()
    assert len(table) == 10
    assert [row.count for row in table] == [1, 0, 0, 1, 0, 1, 1, 0, 2, 1]
    assert table[8] == CalibrationBin(0.8, 0.9, 2, pytest.approx(0.825), 0.5)
    assert table[9] == CalibrationBin(0.9, 1.0, 1, 1.0, 1.0)  # 1.0 falls in the top bin
    assert table[0] == CalibrationBin(0.0, 0.1, 1, 0.0, 0.0)
    assert math.isnan(table[1].mean_predicted) and math.isnan(table[1].observed)


def test_empty_metrics_are_nan():
    metrics = PredictionMetrics()
    assert math.isnan(metrics.log_loss) and math.isnan(metrics.brier)
    assert math.isnan(metrics.accuracy)
    assert all(row.count == 0 for row in metrics.calibration())


@given(
    st.lists(st.tuples(st.floats(0, 1), st.sampled_from([0.0, 0.5, 1.0])), min_size=1, max_size=50)
)
def test_streaming_equals_batch(games):
    metrics = filled(games)
    assert metrics.brier == pytest.approx(sum((p - s) ** 2 for p, s in games) / len(games))
    assert sum(row.count for row in metrics.calibration()) == len(games)
    assert 0 <= metrics.accuracy <= 1
    assert metrics.log_loss >= 0
