"""Matchup offsets (docs/rating-model.md#matchups): how many rating points character X is worth
against character Y, estimated from counted games and the players' pre-game ratings.

A game between a player on X rated r_X and a player on Y rated r_Y is modelled as
P(X side wins) = 1 / (1 + 10^(-(r_X - r_Y + m) / 400)), with m = m(X, Y) = -m(Y, X)
and a normal prior on m centred on 0. Every estimate here is a function of sums over
games, so it does not depend on the order the games were played in.

Two estimators share that model:
- `fit_offset`: the penalised maximum-likelihood estimate (Newton's method) from games
  grouped by their rating difference; the character matchup table uses it.
- `one_step_offset`: one Fisher-scoring step from the prior's centre, computed from
  four running sums a rating can keep per opposing character as games arrive; the
  player matchups use it. For offsets within about 100 points it is within a few
  percent of the full fit, and its sign always agrees with wins against expectation.

Pure Python, no Django.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import NamedTuple

K = math.log(10) / 400  # d/dm of the logit of P per rating point
# Games whose rating differences fall within this many points share a bin: the fit sees a
# few dozen bins per pair instead of every game, at no visible cost in accuracy.
DIFFERENCE_BIN_POINTS = 8
Z95 = 1.959963984540054


def expected(difference: float) -> float:
    """P(win) for a side `difference` rating points stronger (offsets included)."""
    return 1.0 / (1.0 + 10.0 ** (-difference / 400.0))


class OffsetEvidence(NamedTuple):
    """Running sums over one cell's counted games, from the X side's point of view.

    `expected_wins` sums the pre-game P(X side wins) from ratings alone (m = 0), and
    `information` sums p (1 - p) of those same probabilities.
    """

    games: int = 0
    wins: int = 0
    expected_wins: float = 0.0
    information: float = 0.0

    @classmethod
    def of_game(cls, rating_difference: float, won: bool) -> OffsetEvidence:
        p = expected(rating_difference)
        return cls(1, int(won), p, p * (1.0 - p))

    def __add__(self, other: object) -> OffsetEvidence:  # type: ignore[override]
        if not isinstance(other, OffsetEvidence):
            return NotImplemented
        return OffsetEvidence(*(a + b for a, b in zip(self, other, strict=True)))

    def mirrored(self) -> OffsetEvidence:
        """The same games from the Y side's point of view."""
        return OffsetEvidence(
            self.games,
            self.games - self.wins,
            self.games - self.expected_wins,
            self.information,
        )


class Offset(NamedTuple):
    """An estimated offset in rating points with its standard error."""

    value: float
    standard_error: float

    @property
    def probability(self) -> float:
        """P(X beats Y) at equal skill."""
        return expected(self.value)

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """The interval of P(X beats Y) at equal skill (95% by default)."""
        spread = z * self.standard_error
        return expected(self.value - spread), expected(self.value + spread)

    def half_width(self, z: float = Z95) -> float:
        """Half the width of the interval, in rating points."""
        return z * self.standard_error


def one_step_offset(evidence: OffsetEvidence, prior_deviation: float) -> Offset:
    """One Fisher-scoring step from m = 0 under a N(0, prior_deviation^2) prior."""
    precision = K * K * evidence.information + 1.0 / (prior_deviation * prior_deviation)
    value = K * (evidence.wins - evidence.expected_wins) / precision
    return Offset(value, 1.0 / math.sqrt(precision))


class DifferenceBin(NamedTuple):
    """Games whose rating difference (X side minus Y side) fell in one narrow bin."""

    mean_difference: float
    games: int
    wins: int


def fit_offset(
    bins: Iterable[DifferenceBin],
    prior_deviation: float,
    *,
    tolerance: float = 1e-6,
    max_steps: int = 50,
) -> Offset:
    """The posterior mode of m (penalised maximum likelihood), by Newton's method.

    The log posterior is concave, so Newton from m = 0 converges; a step is halved
    while it would lower the posterior. The standard error comes from the curvature
    at the mode.
    """
    bins = [b for b in bins if b.games]
    prior_precision = 1.0 / (prior_deviation * prior_deviation)

    def log_posterior(m: float) -> float:
        total = -0.5 * m * m * prior_precision
        for diff, games, wins in bins:
            x = K * (diff + m)
            # log sigmoid(x) = -log1p(exp(-x)), written to stay finite for large |x|
            log_win = -math.log1p(math.exp(-x)) if x > -30 else x
            log_loss = -math.log1p(math.exp(x)) if x < 30 else -x
            total += wins * log_win + (games - wins) * log_loss
        return total

    def slope_and_curvature(m: float) -> tuple[float, float]:
        slope, curvature = -m * prior_precision, prior_precision
        for diff, games, wins in bins:
            p = expected(diff + m)
            slope += K * (wins - games * p)
            curvature += K * K * games * p * (1.0 - p)
        return slope, curvature

    m = 0.0
    current = log_posterior(m)
    for _ in range(max_steps):
        slope, curvature = slope_and_curvature(m)
        step = slope / curvature
        while True:
            candidate = log_posterior(m + step)
            if candidate >= current - 1e-12 or abs(step) < tolerance:
                break
            step /= 2
        m, current = m + step, candidate
        if abs(step) < tolerance:
            break
    _, curvature = slope_and_curvature(m)
    return Offset(m, 1.0 / math.sqrt(curvature))


def shrunk_offsets(table: Mapping[tuple[int, int], Offset]) -> dict[tuple[int, int], float]:
    """Each cell's offset shrunk toward 0 by its uncertainty: its posterior mean
    m·τ²/(τ² + se²) under the table's own prior N(0, τ²). τ² is estimated from the table
    (empirical Bayes: the offsets' spread beyond what their standard errors explain, each
    cell weighted by its precision, so a few noisy cells cannot hide the clear ones). A
    table whose offsets are all noise shrinks to zeros. Mirrors are left out."""
    cells = [(pair, o) for pair, o in table.items() if pair[0] != pair[1]]
    if not cells:
        return {}
    squares = [o.value * o.value for _, o in cells]
    variances = [o.standard_error**2 for _, o in cells]
    prior = sum(squares) / len(cells)
    for _ in range(_PRIOR_STEPS):
        weights = [1.0 / (prior + v) ** 2 for v in variances]
        excess = sum(w * (m2 - v) for w, m2, v in zip(weights, squares, variances, strict=True))
        settled, prior = prior, max(excess / sum(weights), 0.0)
        if abs(prior - settled) <= 1e-9 * max(settled, 1.0):
            break
    return {
        pair: o.value * prior / (prior + v) if prior > 0 else 0.0
        for (pair, o), v in zip(cells, variances, strict=True)
    }


# At most this many fixed-point steps for the table's prior variance (it settles in a few).
_PRIOR_STEPS = 50
