"""Two-player TrueSkill against published examples and the PyPI `trueskill` package.

The package (`trueskill.TrueSkill(mu, sigma, beta, tau, draw_probability)` as an
environment; `trueskill.rate_1vs1(winner, loser, drawn=..., env=env)`,
`trueskill.quality_1vs1(a, b, env=env)`, `env.v_win(diff, margin)` and friends) runs
the full factor graph with its own approximation of erfc (about 1e-7 relative), hence
tolerances of 1e-5.
"""

import math
import random

import pytest
import trueskill as pypi_trueskill
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings.trueskill import (
    TrueSkill,
    TrueSkillParams,
    TrueSkillState,
    draw_margin,
    draw_terms,
    match_quality,
    win_terms,
)

NEW = TrueSkillState(25.0, 25.0 / 3.0)

skills = st.builds(TrueSkillState, st.floats(0, 50), st.floats(1, 25 / 3))


def test_defaults():
    params = TrueSkillParams()
    assert (params.mu, params.sigma, params.beta, params.tau, params.draw_probability) == (
        pytest.approx(25.0),
        pytest.approx(8.3333, abs=1e-4),
        pytest.approx(4.1667, abs=1e-4),
        pytest.approx(0.0833, abs=1e-4),
        0.10,
    )
    assert TrueSkill().initial() == NEW
    assert TrueSkill().epsilon == pytest.approx(0.7405, abs=1e-4)


def test_win_between_new_players():
    system = TrueSkill()
    winner, loser = system.rate_1vs1(NEW, NEW, 1.0)
    assert winner == pytest.approx((29.396, 7.171), abs=1e-3)
    assert loser == pytest.approx((20.604, 7.171), abs=1e-3)
    assert system.quality(NEW, NEW) == pytest.approx(0.447, abs=1e-3)
    # The loss is the same game from the other side.
    assert system.rate_1vs1(NEW, NEW, 0.0) == (loser, winner)


def test_draw_between_new_players():
    a, b = TrueSkill().rate_1vs1(NEW, NEW, 0.5)
    assert a == pytest.approx((25.000, 6.458), abs=1e-3)
    assert b == pytest.approx((25.000, 6.458), abs=1e-3)


def test_draw_with_a_stronger_player():
    stronger = TrueSkillState(50.0, 12.5)
    system = TrueSkill()
    a, b = system.rate_1vs1(NEW, stronger, 0.5)
    assert a == pytest.approx((31.662, 7.137), abs=1e-3)
    assert b == pytest.approx((35.010, 7.910), abs=1e-3)
    assert system.quality(NEW, stronger) == pytest.approx(0.110, abs=1e-3)
    assert system.rate_1vs1(stronger, NEW, 0.5) == (b, a)


def test_agrees_with_pypi_trueskill():
    env = pypi_trueskill.TrueSkill()
    system = TrueSkill()
    rng = random.Random(7)
    draws = 0
    for _ in range(1000):
        a = TrueSkillState(rng.uniform(0, 50), rng.uniform(1, 25 / 3))
        b = TrueSkillState(rng.uniform(0, 50), rng.uniform(1, 25 / 3))
        score = rng.choice([1.0, 0.0, 0.5])
        draws += score == 0.5
        pa, pb = env.create_rating(*a), env.create_rating(*b)
        quality = pypi_trueskill.quality_1vs1(pa, pb, env=env)
        if score == 0.0:
            pb, pa = pypi_trueskill.rate_1vs1(pb, pa, env=env)
        else:
            pa, pb = pypi_trueskill.rate_1vs1(pa, pb, drawn=score == 0.5, env=env)
        new_a, new_b = system.rate_1vs1(a, b, score)
        assert (*new_a, *new_b) == pytest.approx((pa.mu, pa.sigma, pb.mu, pb.sigma), rel=1e-5)
        assert system.quality(a, b) == pytest.approx(quality, rel=1e-9)
    assert draws > 250


@pytest.mark.parametrize("t", [-4.0, -1.0, -0.3, 0.0, 0.4, 2.0, 5.0])
@pytest.mark.parametrize("epsilon", [0.05, 0.3, 1.0])
def test_v_and_w_agree_with_pypi(t, epsilon):
    env = pypi_trueskill.TrueSkill()
    assert win_terms(t, epsilon) == pytest.approx(
        (env.v_win(t, epsilon), env.w_win(t, epsilon)), rel=1e-5
    )
    assert draw_terms(t, epsilon) == pytest.approx(
        (env.v_draw(t, epsilon), env.w_draw(t, epsilon)), rel=1e-5, abs=1e-9
    )


def test_terms_stay_finite_for_impossible_results():
    v, w = win_terms(-60.0, 0.1)
    assert (v, w) == (pytest.approx(60.1), 1.0)
    # Just inside the far tail the exact terms are still computed, and near the limits.
    v, w = win_terms(-29.0, 0.1)
    assert v == pytest.approx(29.1, abs=0.05) and 0.99 < w < 1
    assert draw_terms(60.0, 0.1) == (pytest.approx(-59.9), 1.0)
    assert draw_terms(-60.0, 0.1) == (pytest.approx(59.9), 1.0)


def test_draw_margin_matches_pypi():
    env = pypi_trueskill.TrueSkill(beta=5.0, draw_probability=0.25)
    assert draw_margin(0.25, 5.0) == pytest.approx(
        pypi_trueskill.calc_draw_margin(0.25, 2, env), rel=1e-6
    )


def test_expected_score_and_display():
    system = TrueSkill()
    assert system.expected_score(NEW, NEW, 0.0) == 0.5
    strong = TrueSkillState(35.0, 2.0)
    weak = TrueSkillState(20.0, 2.0)
    c = math.sqrt(2 * (25 / 6) ** 2 + 8 + 2 * (25 / 300) ** 2)
    expected = 0.5 * math.erfc(-15 / c / math.sqrt(2))
    assert system.expected_score(strong, weak, 0.0) == pytest.approx(expected)
    assert system.display(strong) == 29.0


def test_rejects_other_scores():
    with pytest.raises(ValueError, match="score"):
        TrueSkill().rate_1vs1(NEW, NEW, 0.25)


@given(skills, skills)
def test_properties(a, b):
    system = TrueSkill()
    win_a, loss_b = system.update(a, b, 1.0, 0.0)
    assert win_a.mu >= a.mu and loss_b.mu <= b.mu
    for before, after in ((a, win_a), (b, loss_b)):
        assert after.sigma <= math.hypot(before.sigma, system.params.tau)
    p = system.expected_score(a, b, 0.0) + system.expected_score(b, a, 0.0)
    assert p == pytest.approx(1.0)
    assert match_quality(a, b) == pytest.approx(match_quality(b, a))
    assert 0 < match_quality(a, b) <= 1
