"""The matchup offset estimators of docs/rating-model.md#matchups (pure math)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings.matchup_offset import (
    DifferenceBin,
    K,
    OffsetEvidence,
    fit_offset,
    one_step_offset,
)

WEAK = 1e9  # a prior so weak the fit is the plain maximum-likelihood estimate


def test_equal_ratings_fit_is_the_logit_of_the_win_rate():
    # 30 wins in 40 games between equally rated players: m = logit(0.75) / K.
    offset = fit_offset([DifferenceBin(0.0, 40, 30)], WEAK)
    assert offset.value == pytest.approx(math.log(3) / K, abs=1e-4)
    assert offset.probability == pytest.approx(0.75, abs=1e-9)
    # Fisher information of 40 games at p = 0.75: se = 1 / (K sqrt(40 * 0.75 * 0.25)).
    assert offset.standard_error == pytest.approx(1 / (K * math.sqrt(7.5)), rel=1e-6)


def test_the_fit_maximises_the_posterior():
    bins = [DifferenceBin(-120.0, 10, 3), DifferenceBin(15.0, 25, 14), DifferenceBin(200.0, 5, 5)]
    offset = fit_offset(bins, 100.0)

    def log_posterior(m: float) -> float:
        total = -0.5 * (m / 100.0) ** 2
        for diff, games, wins in bins:
            p = 1 / (1 + 10 ** (-(diff + m) / 400))
            total += wins * math.log(p) + (games - wins) * math.log(1 - p)
        return total

    best = max((offset.value + step / 100 for step in range(-500, 501)), key=log_posterior)
    assert offset.value == pytest.approx(best, abs=0.01)


def test_a_prior_pulls_a_small_cell_toward_even():
    few = fit_offset([DifferenceBin(0.0, 7, 6)], 100.0)
    many = fit_offset([DifferenceBin(0.0, 700, 600)], 100.0)
    assert 0 < few.value < many.value
    assert few.standard_error > many.standard_error


@given(games=st.lists(st.tuples(st.floats(-400, 400), st.booleans()), min_size=1, max_size=60))
def test_one_step_agrees_in_sign_with_wins_against_expectation_and_mirrors(games):
    evidence = sum((OffsetEvidence.of_game(d, won) for d, won in games), OffsetEvidence())
    offset = one_step_offset(evidence, 100.0)
    surplus = evidence.wins - evidence.expected_wins
    assert math.copysign(1, offset.value) == math.copysign(1, surplus) or abs(surplus) < 1e-9
    mirror = one_step_offset(evidence.mirrored(), 100.0)
    assert mirror.value == pytest.approx(-offset.value, abs=1e-9)
    assert offset.probability + mirror.probability == pytest.approx(1.0)


def test_one_step_is_close_to_the_fit_for_moderate_offsets():
    # 64% wins at equal ratings (a true offset of about 100 points), 2,000 games.
    bins = [DifferenceBin(0.0, 2000, 1280)]
    evidence = OffsetEvidence(2000, 1280, 1000.0, 500.0)
    full, step = fit_offset(bins, 100.0), one_step_offset(evidence, 100.0)
    assert abs(step.value - full.value) < 0.05 * abs(full.value)
