"""The integrity bench's log loss comparison: a paired difference and its standard error."""

from __future__ import annotations

import math

import pytest

from bench.integrity import paired_difference


def test_the_difference_is_the_mean_of_the_per_game_differences_with_its_standard_error():
    # Differences 0.5, 0 and 1: mean 0.5, sample deviation 0.5.
    mean, error = paired_difference([1.0, 2.0, 3.0], [0.5, 2.0, 2.0])
    assert mean == pytest.approx(0.5)
    assert error == pytest.approx(0.5 / math.sqrt(3))


def test_a_shift_common_to_every_game_has_no_error():
    # Two ratings whose losses differ by the same amount on every game: the paired error
    # is nil however much the games' own losses vary.
    baseline = [0.1, 2.3, 0.7, 1.9]
    mean, error = paired_difference([loss - 0.01 for loss in baseline], baseline)
    assert mean == pytest.approx(-0.01)
    assert error == pytest.approx(0.0, abs=1e-12)


def test_games_rated_both_ways_must_be_the_same_games():
    with pytest.raises(ValueError):
        paired_difference([0.5, 0.6], [0.5])
