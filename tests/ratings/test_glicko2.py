"""Glicko-2 against Glickman's worked example and the PyPI `glicko2` package.

The package (Ryan Kirkman's, `glicko2.Player(rating, rd, vol)`, `update_player(ratings,
rds, outcomes)`, tau as the class attribute `_tau`) writes mu^2 where Glickman's
volatility function f has phi^2.  So it is compared twice: as published, where the
ratings agree to 1e-4 and the deviations to about 1e-3 (the volatility moves the
deviation only a little), and with that one term corrected, to rounding.
"""

import math
import random

import glicko2 as pypi_glicko2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings import glicko
from matches.ratings.glicko2 import SCALE, Glicko2, Glicko2Params, Glicko2State, rate_period

EXAMPLE = [(1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0)]


class CorrectedPlayer(pypi_glicko2.Player):
    """The package's Player with Glickman's f: phi^2 where the package has mu^2."""

    def _f(self, x, delta, v, a):
        ex = math.exp(x)
        phi2 = self._Player__rd**2
        return ex * (delta**2 - phi2 - v - ex) / (2 * (phi2 + v + ex) ** 2) - (x - a) / self._tau**2


def random_periods(count, seed=20240601):
    rng = random.Random(seed)
    for _ in range(count):
        player = (rng.uniform(1000, 2200), rng.uniform(30, 350), rng.uniform(0.03, 0.12))
        results = [
            (rng.uniform(1000, 2200), rng.uniform(30, 350), rng.choice([0.0, 0.5, 1.0]))
            for _ in range(rng.randint(1, 6))
        ]
        yield player, results


def pypi_rate(player_class, player, results):
    rating, deviation, volatility = player
    pypi = player_class(rating, deviation, volatility)
    pypi.update_player(*(list(column) for column in zip(*results, strict=True)))
    return pypi.rating, pypi.rd, pypi.vol


def test_glickman_example():
    rating, deviation, volatility = rate_period(1500, 200, 0.06, EXAMPLE)
    assert rating == pytest.approx(1464.0507, abs=1e-3)
    assert deviation == pytest.approx(151.5165, abs=1e-3)
    assert volatility == pytest.approx(0.059996, abs=1e-3)
    assert volatility == pytest.approx(0.05999598, abs=1e-8)


def test_no_games_grows_the_deviation_by_the_volatility():
    rating, deviation, volatility = rate_period(1500, 200, 0.06, [])
    phi = 200 / 173.7178
    assert rating == 1500
    assert volatility == 0.06
    assert deviation == pytest.approx(173.7178 * math.sqrt(phi**2 + 0.06**2), rel=1e-6)


def test_agrees_with_pypi_glicko2_as_published():
    for player, results in random_periods(1000):
        ours = rate_period(*player, results)
        theirs = pypi_rate(pypi_glicko2.Player, player, results)
        assert ours[0] == pytest.approx(theirs[0], rel=1e-4)
        # Its volatility is off, so the deviation too: worst 1.3e-3 here, for a player
        # far from 1500 with a small deviation and a large volatility.
        assert ours[1] == pytest.approx(theirs[1], rel=2e-3)


def test_agrees_with_pypi_glicko2_corrected():
    for player, results in random_periods(1000):
        ours = rate_period(*player, results)
        theirs = pypi_rate(CorrectedPlayer, player, results)
        assert ours == pytest.approx(theirs, rel=1e-6)


def test_tau_is_a_parameter():
    calm = rate_period(1500, 60, 0.06, [(1900, 60, 1.0)] * 5, Glicko2Params(tau=0.2))
    wild = rate_period(1500, 60, 0.06, [(1900, 60, 1.0)] * 5, Glicko2Params(tau=1.2))
    assert 0.06 < calm[2] < wild[2]


@given(
    st.floats(1000, 2200),
    st.floats(30, 350),
    st.floats(0.02, 0.2),
    st.floats(1000, 2200),
    st.floats(30, 350),
    st.sampled_from([0.0, 0.5, 1.0]),
)
def test_one_game_system_is_a_one_game_period(rating, deviation, vol, opp_rating, opp_dev, score):
    system = Glicko2()
    a = Glicko2State(rating, deviation, vol)
    b = Glicko2State(opp_rating, opp_dev, 0.06)
    new_a, new_b = system.update(a, b, score, 0.0)
    assert new_a[:3] == pytest.approx(rate_period(rating, deviation, vol, [(*b[:2], score)]))
    assert new_b[:3] == pytest.approx(rate_period(*b[:3], [(rating, deviation, 1.0 - score)]))
    assert math.isfinite(new_a.volatility) and new_a.volatility > 0
    if score == 1.0:
        assert new_a.rating >= rating and new_b.rating <= opp_rating


def test_system_defaults_and_prediction():
    system = Glicko2()
    state = system.initial()
    assert state == (1500, 350, 0.06, None)
    assert system.expected_score(state, state, 0.0) == 0.5
    a, b = Glicko2State(1700, 80, 0.06), Glicko2State(1500, 200, 0.06)
    assert system.expected_score(a, b, 0.0) == glicko.win_probability(1700, 80, 1500, 200)
    assert system.display(a) == 1700


def test_idle_periods_grow_the_deviation_by_the_volatility():
    day = 86400.0
    system = Glicko2(Glicko2Params(period_seconds=day))
    a, b = Glicko2State(1600, 60, 0.06), Glicko2State(1500, 60, 0.06)
    a, b = system.update(a, b, 1.0, 0.0)  # the first game starts both clocks
    assert a.period_start == b.period_start == 0.0
    idle = system.idle_to(a, 10.5 * day)  # ten whole periods; the half carries over
    sigma = SCALE * a.volatility
    assert idle.deviation == pytest.approx(math.sqrt(a.deviation**2 + 10 * sigma**2))
    assert idle.period_start == 10 * day
    assert system.idle_to(a, 0.9 * day) == a
    assert Glicko2().idle_to(a, 1e9) == a  # no period length: time plays no part
    capped = system.idle_to(a._replace(volatility=1.0), 1e9)
    assert capped.deviation == 350.0
