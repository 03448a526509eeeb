"""The site's continuous Glicko (glicko.py) against docs/rating-model.md#reference-numbers,
plus properties, and its lab adapter ContinuousGlicko."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings import glicko
from matches.ratings.base import ContinuousGlicko, GlickoState
from tests.ratings.reference import REFERENCE

HOUR = 3600.0


ratings = st.floats(min_value=500, max_value=3000)
deviations = st.floats(min_value=25, max_value=350)
scores = st.sampled_from([0.0, 0.5, 1.0])
dampings = st.sampled_from([0.0, 0.1])


@pytest.mark.parametrize(("a", "b", "a_won", "a_after", "b_after", "p_a"), REFERENCE)
def test_reference_games(a, b, a_won, a_after, b_after, p_a):
    after = glicko.rate_game(*a, *b, float(a_won))
    assert after == pytest.approx((*a_after, *b_after), abs=1e-3)
    assert glicko.win_probability(*a, *b) == pytest.approx(p_a, abs=1e-3)


@pytest.mark.parametrize(("deviation", "expected"), [(350, 0.6691), (200, 0.8443), (50, 0.9876)])
def test_g(deviation, expected):
    assert glicko.g(deviation) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(("deviation", "expected"), [(50, 97.0526), (300, 311.3185)])
def test_decay_after_720_periods(deviation, expected):
    assert glicko.decayed_deviation(deviation, 720) == pytest.approx(expected, abs=1e-3)
    decayed, last_decay_at = glicko.decay(deviation, 0.0, 720 * HOUR + 59.0)
    assert decayed == pytest.approx(expected, abs=1e-3)
    assert last_decay_at == 720 * HOUR


def test_decay_is_capped():
    assert glicko.decayed_deviation(340, 10_000) == 350


@given(
    deviation=deviations,
    steps=st.lists(st.floats(min_value=0, max_value=30 * HOUR), min_size=1, max_size=30),
)
def test_decay_in_small_steps_equals_one_step(deviation, steps):
    stepwise, last = deviation, 0.0
    now = 0.0
    for step in steps:
        now += step
        stepwise, last = glicko.decay(stepwise, last, now)
    at_once, last_at_once = glicko.decay(deviation, 0.0, now)
    assert stepwise == pytest.approx(at_once, rel=1e-9)
    assert last == pytest.approx(last_at_once, abs=1e-6)


@given(ratings, deviations, ratings, deviations, dampings)
def test_win_never_lowers_and_loss_never_raises(rating_a, dev_a, rating_b, dev_b, damping):
    params = glicko.GlickoParams(update_damping=damping)
    won_a, _, lost_b, _ = glicko.rate_game(rating_a, dev_a, rating_b, dev_b, 1.0, params)
    lost_a, _, won_b, _ = glicko.rate_game(rating_a, dev_a, rating_b, dev_b, 0.0, params)
    assert won_a >= rating_a >= lost_a
    assert won_b >= rating_b >= lost_b


@given(ratings, deviations, ratings, deviations, scores)
def test_deviation_stays_within_bounds(rating_a, dev_a, rating_b, dev_b, score):
    _, new_a, _, new_b = glicko.rate_game(rating_a, dev_a, rating_b, dev_b, score)
    for deviation in (new_a, new_b):
        assert glicko.DEFAULT_PARAMS.minimum_deviation <= deviation <= 350


@given(ratings, ratings, deviations, scores, dampings)
def test_equal_deviations_give_opposite_changes(rating_a, rating_b, deviation, score, damping):
    params = glicko.GlickoParams(update_damping=damping)
    new_a, _, new_b, _ = glicko.rate_game(rating_a, deviation, rating_b, deviation, score, params)
    assert new_a - rating_a == pytest.approx(rating_b - new_b, abs=1e-9)


@given(ratings, deviations, ratings, deviations)
def test_win_probabilities_sum_to_one(rating_a, dev_a, rating_b, dev_b):
    total = glicko.win_probability(rating_a, dev_a, rating_b, dev_b) + glicko.win_probability(
        rating_b, dev_b, rating_a, dev_a
    )
    assert total == pytest.approx(1.0, abs=1e-12)


@given(ratings, deviations, ratings, deviations, st.booleans())
def test_game_counts_rules(rating_a, dev_a, rating_b, dev_b, a_won):
    counts = glicko.game_counts(rating_a, dev_a, rating_b, dev_b, a_won)
    # The same game seen from the other side.
    assert counts == glicko.game_counts(rating_b, dev_b, rating_a, dev_a, not a_won)
    p_a = glicko.win_probability(rating_a, dev_a, rating_b, dev_b)
    p_winner = p_a if a_won else 1 - p_a
    rms = math.sqrt((dev_a**2 + dev_b**2) / 2)
    if 0.045 < p_winner < 0.955 or rms >= 50:
        assert counts
    else:
        assert not counts


def test_game_counts_examples():
    # Established players 600 apart: neither the expected win nor the upset counts.
    assert not glicko.game_counts(2000, 30, 1400, 30, a_won=True)
    assert not glicko.game_counts(2000, 30, 1400, 30, a_won=False)
    # The same gap with uncertain ratings counts.
    assert glicko.game_counts(2000, 60, 1400, 60, a_won=True)
    assert glicko.game_counts(1700, 30, 1500, 30, a_won=False)


class TestContinuousGlicko:
    def test_first_game_starts_the_decay_clock(self):
        system = ContinuousGlicko()
        a, b = system.update(system.initial(), system.initial(), 1.0, 1000.0)
        assert a == pytest.approx(GlickoState(1662.2120, 290.2305, 1000.0), abs=1e-3)
        assert b == pytest.approx(GlickoState(1337.7880, 290.2305, 1000.0), abs=1e-3)

    def test_decays_both_sides_before_updating(self):
        system = ContinuousGlicko()
        a = GlickoState(1700, 80, 0.0)
        b = GlickoState(1500, 200, 0.0)
        at = 720 * HOUR + 10.0
        new_a, new_b = system.update(a, b, 0.0, at)
        deviation_a = glicko.decayed_deviation(80, 720)
        deviation_b = glicko.decayed_deviation(200, 720)
        expected = glicko.rate_game(1700, deviation_a, 1500, deviation_b, 0.0)
        assert (new_a.rating, new_a.deviation, new_b.rating, new_b.deviation) == expected
        assert new_a.last_decay_at == new_b.last_decay_at == 720 * HOUR

    def test_prediction_uses_decayed_deviations(self):
        system = ContinuousGlicko()
        a = GlickoState(1700, 80, 0.0)
        b = GlickoState(1500, 200, 0.0)
        assert system.expected_score(a, b, 0.0) == pytest.approx(0.721200, abs=1e-6)
        later = system.expected_score(a, b, 720 * HOUR)
        assert later == glicko.win_probability(
            1700, glicko.decayed_deviation(80, 720), 1500, glicko.decayed_deviation(200, 720)
        )
        assert 0.5 < later < 0.721200

    def test_counting_rule_keeps_ratings_of_uncounted_games(self):
        a = GlickoState(2000, 30, 0.0)
        b = GlickoState(1400, 30, 0.0)
        assert ContinuousGlicko(apply_counting_rule=True).update(a, b, 1.0, 10.0) == (a, b)
        moved_a, _ = ContinuousGlicko().update(a, b, 1.0, 10.0)
        assert moved_a.rating > a.rating

    def test_display_is_the_rating(self):
        assert ContinuousGlicko().display(GlickoState(1612.5, 80, None)) == 1612.5
