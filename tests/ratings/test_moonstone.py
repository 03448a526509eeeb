"""Moonstone v1 against the numbers its description publishes."""

import pytest

from matches.ratings.base import logistic
from matches.ratings.moonstone import Moonstone, rate_game


@pytest.mark.parametrize(
    ("a", "b", "score", "a_after", "b_after"),
    [
        (1500, 1400, 1.0, 1504.0230, 1395.6897),
        (1500, 1400, 0.5, 1497.9885, 1402.1552),
        (1490, 1500, 1.0, 1514.0803, 1476.0803),
    ],
)
def test_published_numbers(a, b, score, a_after, b_after):
    assert rate_game(a, b, score) == pytest.approx((a_after, b_after), abs=1e-4)
    # Seen from the other side, the same game gives the same numbers.
    assert rate_game(b, a, 1.0 - score) == pytest.approx((b_after, a_after), abs=1e-4)


def test_no_result_changes_nothing():
    assert rate_game(1500, 1400, None) == (1500, 1400)


def test_tie_between_equal_ratings_changes_nothing():
    assert rate_game(1500, 1500, 0.5) == (1500, 1500)


def test_loss_mirrors_win():
    # 1400 beats 1500: the gain is 100/24 * 1500/1450, the loss 100/24 * 1400/1450.
    assert rate_game(1400, 1500, 1.0) == pytest.approx((1404.3103, 1495.9770), abs=1e-4)


def test_balance_jumps_at_24():
    assert rate_game(1524, 1500, 1.0)[0] - 1524 == pytest.approx(24 * 1500 / 1512)
    assert rate_game(1525, 1500, 1.0)[0] - 1525 == pytest.approx(25 / 24 * 1500 / 1512.5)


def test_multiplier_scales_the_change():
    plain = rate_game(1500, 1400, 1.0)
    doubled = rate_game(1500, 1400, 1.0, multiplier=2.0)
    assert doubled[0] - 1500 == pytest.approx(2 * (plain[0] - 1500))
    assert doubled[1] - 1400 == pytest.approx(2 * (plain[1] - 1400))


def test_rejects_other_scores():
    with pytest.raises(ValueError, match="score"):
        rate_game(1500, 1400, 0.7)


def test_system_interface():
    system = Moonstone(multiplier=2.0)
    assert system.initial() == 1500
    assert system.update(1500, 1400, 1.0, 0.0) == rate_game(1500, 1400, 1.0, 2.0)
    assert system.expected_score(1600, 1200, 0.0) == pytest.approx(10 / 11)
    assert system.expected_score(1600, 1200, 0.0) == logistic(400)
    assert system.display(1490.5) == 1490.5
