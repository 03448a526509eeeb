"""Two-player TrueSkill (Herbrich, Minka and Graepel, 2006), in closed form.

With one player per side the factor graph needs no iteration, so a game is a few
lines: add the dynamics tau^2 to both variances, then with
c^2 = 2 beta^2 + sigma_w^2 + sigma_l^2, t = (mu_w - mu_l) / c and e = epsilon / c,

    mu_w'    = mu_w + sigma_w^2 / c * v(t, e)     mu_l' = mu_l - sigma_l^2 / c * v(t, e)
    sigma'^2 = sigma^2 * (1 - sigma^2 / c^2 * w(t, e))    (each side)

where v and w are the win or draw functions of a truncated Gaussian and epsilon is
the draw margin implied by the draw probability.  The normal distribution comes from
math.erfc and statistics.NormalDist, so no SciPy.  A player is shown by the
conservative mu - 3 sigma.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import NamedTuple, Protocol

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
# Results more than 30 standard deviations against the odds: the tails would underflow,
# so v and w take their limits (v -> the far edge, w -> 1), keeping sigma finite.
_FAR_TAIL = -30.0


@dataclass(frozen=True, slots=True)
class TrueSkillParams:
    """The published defaults: beta = sigma / 2, tau = sigma / 100."""

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 25.0 / 300.0
    draw_probability: float = 0.10


DEFAULT_PARAMS = TrueSkillParams()


class TrueSkillState(NamedTuple):
    mu: float
    sigma: float


class HasSkill(Protocol):
    """Anything with a TrueSkill mean and deviation."""

    @property
    def mu(self) -> float: ...

    @property
    def sigma(self) -> float: ...


def pdf(x: float) -> float:
    """The standard normal density."""
    return _INV_SQRT_2PI * math.exp(-0.5 * x * x)


def cdf(x: float) -> float:
    """The standard normal distribution function, accurate far into the lower tail."""
    return 0.5 * math.erfc(-x / _SQRT2)


def win_terms(t: float, epsilon: float) -> tuple[float, float]:
    """(v, w) of a win by t (performance gap over c) with draw margin epsilon (over c)."""
    x = t - epsilon
    if x < _FAR_TAIL:
        return -x, 1.0
    v = pdf(x) / cdf(x)
    return v, v * (v + x)


def draw_terms(t: float, epsilon: float) -> tuple[float, float]:
    """(v, w) of a draw at gap t with draw margin epsilon (both over c)."""
    gap = abs(t)
    upper = epsilon - gap
    lower = -epsilon - gap
    mass = cdf(upper) - cdf(lower)
    if upper < _FAR_TAIL or mass <= 0.0:
        return (upper if t >= 0 else -upper), 1.0
    pdf_upper = pdf(upper)
    pdf_lower = pdf(lower)
    v = (pdf_lower - pdf_upper) / mass
    w = v * v + (upper * pdf_upper - lower * pdf_lower) / mass
    return (v if t >= 0 else -v), w


def draw_margin(draw_probability: float, beta: float, players: int = 2) -> float:
    """epsilon such that two equal players draw with `draw_probability`."""
    return NormalDist().inv_cdf((draw_probability + 1.0) / 2.0) * math.sqrt(players) * beta


def match_quality(a: HasSkill, b: HasSkill, beta: float = DEFAULT_PARAMS.beta) -> float:
    """The draw probability of a against b relative to that of two equal, certain players:
    1 for a perfectly even game, near 0 for a foregone one."""
    two_beta2 = 2.0 * beta * beta
    c2 = two_beta2 + a.sigma * a.sigma + b.sigma * b.sigma
    gap = a.mu - b.mu
    return math.sqrt(two_beta2 / c2) * math.exp(-gap * gap / (2.0 * c2))


class TrueSkill:
    """TrueSkill for one-on-one games; the game's time plays no part (tau acts per game)."""

    name = "trueskill"
    __slots__ = ("_tau2", "_two_beta2", "epsilon", "params")

    def __init__(self, params: TrueSkillParams = DEFAULT_PARAMS) -> None:
        self.params = params
        self.epsilon = draw_margin(params.draw_probability, params.beta)
        self._two_beta2 = 2.0 * params.beta * params.beta
        self._tau2 = params.tau * params.tau

    def initial(self) -> TrueSkillState:
        return TrueSkillState(self.params.mu, self.params.sigma)

    def expected_score(self, a: TrueSkillState, b: TrueSkillState, at: float) -> float:
        """P(a performs better than b), with the variances the update would use."""
        c2 = self._two_beta2 + a.sigma * a.sigma + b.sigma * b.sigma + 2.0 * self._tau2
        return cdf((a.mu - b.mu) / math.sqrt(c2))

    def update(
        self, a: TrueSkillState, b: TrueSkillState, score_a: float, at: float
    ) -> tuple[TrueSkillState, TrueSkillState]:
        return self.rate_1vs1(a, b, score_a)

    def rate_1vs1(
        self, a: TrueSkillState, b: TrueSkillState, score_a: float
    ) -> tuple[TrueSkillState, TrueSkillState]:
        """Both states after a game; score_a is 1 win, 0 loss, 0.5 draw."""
        if score_a == 1.0:
            return self._rate(a, b, drawn=False)
        if score_a == 0.0:
            new_b, new_a = self._rate(b, a, drawn=False)
            return new_a, new_b
        if score_a == 0.5:
            return self._rate(a, b, drawn=True)
        raise ValueError(f"score must be 1, 0 or 0.5, got {score_a}")

    def _rate(
        self, first: TrueSkillState, second: TrueSkillState, *, drawn: bool
    ) -> tuple[TrueSkillState, TrueSkillState]:
        """The update with `first` the winner (or either side of a draw)."""
        var_1 = first.sigma * first.sigma + self._tau2
        var_2 = second.sigma * second.sigma + self._tau2
        c2 = self._two_beta2 + var_1 + var_2
        c = math.sqrt(c2)
        terms = draw_terms if drawn else win_terms
        v, w = terms((first.mu - second.mu) / c, self.epsilon / c)
        return (
            TrueSkillState(first.mu + var_1 / c * v, math.sqrt(var_1 * (1.0 - var_1 / c2 * w))),
            TrueSkillState(second.mu - var_2 / c * v, math.sqrt(var_2 * (1.0 - var_2 / c2 * w))),
        )

    def quality(self, a: HasSkill, b: HasSkill) -> float:
        """Match quality with this system's beta."""
        return match_quality(a, b, self.params.beta)

    def display(self, state: TrueSkillState) -> float:
        return state.mu - 3.0 * state.sigma
