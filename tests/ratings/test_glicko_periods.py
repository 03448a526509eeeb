"""Glicko-1 in rating periods against Glickman's Glicko paper."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings import glicko
from matches.ratings.glicko_periods import rate_period

EXAMPLE = [(1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0)]

results = st.tuples(st.floats(800, 2600), st.floats(25, 350), st.sampled_from([0.0, 0.5, 1.0]))


def test_glickman_example():
    rating, deviation = rate_period(1500, 200, EXAMPLE)
    assert rating == pytest.approx(1464.1065, abs=1e-3)
    assert deviation == pytest.approx(151.3989, abs=1e-3)


def test_a_period_scores_every_game_against_the_starting_rating():
    # Rating the same games one at a time, as the site does, gives another answer.
    rating, deviation = 1500.0, 200.0
    for opponent_rating, opponent_deviation, score in EXAMPLE:
        rating, deviation = glicko.update(
            rating, deviation, opponent_rating, opponent_deviation, score
        )
    assert rating != pytest.approx(1464.1065, abs=0.1)


def test_no_games_changes_nothing():
    assert rate_period(1612.0, 80.0, []) == (1612.0, 80.0)


@given(st.floats(800, 2600), st.floats(25, 350), results)
def test_one_game_period_is_a_continuous_update(rating, deviation, result):
    assert rate_period(rating, deviation, [result]) == pytest.approx(
        glicko.update(rating, deviation, *result)
    )


@given(st.floats(800, 2600), st.floats(25, 350), st.lists(results, min_size=1, max_size=8))
def test_order_within_a_period_does_not_matter(rating, deviation, games):
    assert rate_period(rating, deviation, games) == pytest.approx(
        rate_period(rating, deviation, games[::-1])
    )


def test_deviation_keeps_the_floor():
    many = [(1500, 30, 1.0), (1500, 30, 0.0)] * 200
    assert rate_period(1500, 60, many)[1] == glicko.DEFAULT_PARAMS.minimum_deviation
    unfloored = glicko.GlickoParams(minimum_deviation=0.0)
    assert rate_period(1500, 60, many, unfloored)[1] < glicko.DEFAULT_PARAMS.minimum_deviation
