"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013 revision).

Glicko-2 adds a volatility to Glicko: how erratic a player's results are, so a
player whose results suddenly change is believed sooner.  The volatility step
solves Glickman's f(x) = 0 with the Illinois variant of regula falsi.

Ratings and deviations are taken and returned on the familiar Glicko scale;
internally mu = (r - 1500) / SCALE and phi = RD / SCALE with SCALE = 400 / ln 10
(Glickman's 173.7178).  On that scale Glicko-2's g and E are exactly glicko.py's,
so they are reused.

`rate_period` rates one player over a rating period; `Glicko2` plays one game per
period for each side, for the lab.  The deviation grows by the volatility at each game
(Glickman's step 6) and, with `period_seconds` set, also once per whole idle period
since the player's last game (Glickman's rule for a period without games); with it
unset (0) idle time plays no part.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from matches.ratings import glicko

SCALE = 1.0 / glicko.Q


@dataclass(frozen=True, slots=True)
class Glicko2Params:
    """Glickman's defaults: tau 0.5 constrains how fast the volatility moves."""

    initial_rating: float = 1500.0
    initial_deviation: float = 350.0
    initial_volatility: float = 0.06
    tau: float = 0.5
    convergence: float = 1e-6
    period_seconds: float = 0.0  # 0: idle time does not grow the deviation
    maximum_deviation: float = 350.0


DEFAULT_PARAMS = Glicko2Params()


class Glicko2State(NamedTuple):
    rating: float
    deviation: float
    volatility: float
    period_start: float | None = None  # epoch seconds; idle periods count from here


def new_volatility(
    phi: float, volatility: float, v: float, delta: float, tau: float, convergence: float
) -> float:
    """Step 5: sigma' from phi, v and delta (Glicko-2 scale), by the Illinois iteration."""
    phi2 = phi * phi
    delta2 = delta * delta
    a = math.log(volatility * volatility)
    tau2 = tau * tau

    def f(x: float) -> float:
        ex = math.exp(x)
        denominator = phi2 + v + ex
        return ex * (delta2 - phi2 - v - ex) / (2.0 * denominator * denominator) - (x - a) / tau2

    low = a
    if delta2 > phi2 + v:
        high = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low = f(low)
    f_high = f(high)
    while abs(high - low) > convergence:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)


def _finish(
    rating: float,
    deviation: float,
    volatility: float,
    inverse_v: float,
    score_sum: float,
    params: Glicko2Params,
) -> tuple[float, float, float]:
    """Steps 3-8 once the period's sums are known: inverse_v = sum g^2 E (1 - E) and
    score_sum = sum g (s - E) over the games."""
    phi = deviation / SCALE
    v = 1.0 / inverse_v
    sigma = new_volatility(phi, volatility, v, v * score_sum, params.tau, params.convergence)
    phi = 1.0 / math.sqrt(1.0 / (phi * phi + sigma * sigma) + inverse_v)
    return rating + SCALE * phi * phi * score_sum, SCALE * phi, sigma


def rate_period(
    rating: float,
    deviation: float,
    volatility: float,
    results: Iterable[tuple[float, float, float]],
    params: Glicko2Params = DEFAULT_PARAMS,
) -> tuple[float, float, float]:
    """(rating, deviation, volatility) after a period of (opponent rating, opponent RD,
    score) results, each scored against the pre-period values.

    With no results only the deviation grows, by the volatility (step 6).
    """
    inverse_v = 0.0
    score_sum = 0.0
    for opponent_rating, opponent_deviation, score in results:
        g_o = glicko.g(opponent_deviation)
        e = glicko.expected_score(rating, opponent_rating, opponent_deviation)
        inverse_v += g_o * g_o * e * (1.0 - e)
        score_sum += g_o * (score - e)
    if inverse_v == 0.0:
        return rating, math.hypot(deviation, SCALE * volatility), volatility
    return _finish(rating, deviation, volatility, inverse_v, score_sum, params)


def _rate_one(
    player: Glicko2State, opponent: Glicko2State, score: float, params: Glicko2Params
) -> Glicko2State:
    """`rate_period` for a single game, without building a list in the hot loop."""
    g_o = glicko.g(opponent.deviation)
    e = glicko.expected_score(player.rating, opponent.rating, opponent.deviation)
    return Glicko2State(
        *_finish(
            player.rating,
            player.deviation,
            player.volatility,
            g_o * g_o * e * (1.0 - e),
            g_o * (score - e),
            params,
        ),
        player.period_start,
    )


class Glicko2:
    """Glicko-2 with every game its own rating period for both sides."""

    name = "glicko2"
    __slots__ = ("params",)

    def __init__(self, params: Glicko2Params = DEFAULT_PARAMS) -> None:
        self.params = params

    def initial(self) -> Glicko2State:
        params = self.params
        return Glicko2State(
            params.initial_rating, params.initial_deviation, params.initial_volatility
        )

    def idle_to(self, state: Glicko2State, at: float) -> Glicko2State:
        """The state at `at`: each whole idle period grows phi to sqrt(phi² + sigma²)."""
        period = self.params.period_seconds
        if not period:
            return state
        if state.period_start is None:
            return state._replace(period_start=at)
        periods = math.floor((at - state.period_start) / period)
        if periods <= 0:
            return state
        grown = math.sqrt(state.deviation**2 + periods * (SCALE * state.volatility) ** 2)
        return state._replace(
            deviation=min(grown, self.params.maximum_deviation),
            period_start=state.period_start + periods * period,
        )

    def expected_score(self, a: Glicko2State, b: Glicko2State, at: float) -> float:
        a, b = self.idle_to(a, at), self.idle_to(b, at)
        return glicko.win_probability(a.rating, a.deviation, b.rating, b.deviation)

    def update(
        self, a: Glicko2State, b: Glicko2State, score_a: float, at: float
    ) -> tuple[Glicko2State, Glicko2State]:
        a, b = self.idle_to(a, at), self.idle_to(b, at)
        return (
            _rate_one(a, b, score_a, self.params),
            _rate_one(b, a, 1.0 - score_a, self.params),
        )

    def predict_and_update(
        self, a: Glicko2State, b: Glicko2State, score_a: float, at: float
    ) -> tuple[float, Glicko2State, Glicko2State]:
        """expected_score, then update, growing each side's idle deviation once."""
        a, b = self.idle_to(a, at), self.idle_to(b, at)
        return (
            glicko.win_probability(a.rating, a.deviation, b.rating, b.deviation),
            _rate_one(a, b, score_a, self.params),
            _rate_one(b, a, 1.0 - score_a, self.params),
        )

    def display(self, state: Glicko2State) -> float:
        return state.rating
