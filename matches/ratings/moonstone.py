"""Moonstone v1, the community's older rating, kept as a baseline for the lab.

For ratings r1 and r2 and a result for player 1::

    mean      = (r1 + r2) / 2
    scaling_i = r_opponent / mean          (so the lower-rated side moves less)
    balance   = 24                 if |r1 - r2| <= 24
              = |r1 - r2| / 24     otherwise
    change_i  = polarity_i * scaling_i * balance * multiplier
    r_i'      = r_i + change_i

polarity_i is +1 for a win and -1 for a loss; on a tie the higher-rated player gets
-1/2 and the lower-rated +1/2 (0 for both when the ratings are equal); 0 when the
game has no result.

The source text writes the change as already including the old rating, and gives
player 2 player 1's polarity.  Both are slips: the change is added to each player's
own rating with that player's own polarity, which is the only reading that gives
its published numbers: 1500 beats 1400 -> 1504.0230 / 1395.6897; 1500 and 1400 tie
-> 1497.9885 / 1402.1552; 1490 beats 1500 -> 1514.0803 / 1476.0803.

Two properties of the rule as written, kept so the lab can measure them: the change
jumps at a gap of 24 (a gap of 24 moves 24 points, a gap of 25 about one), and
beyond it grows with the gap whoever wins, so a player who keeps losing to stronger
opponents falls ever faster (ratings can even go negative).

Moonstone has no probability model.  For the lab, its expected score is Elo's
logistic curve on the Moonstone rating difference (400 points for 10:1 odds); that
is this module's assumption, not part of Moonstone.
"""

from __future__ import annotations

from matches.ratings.base import logistic

BALANCE_UNIT = 24.0


def _polarities(rating_1: float, rating_2: float, score_1: float | None) -> tuple[float, float]:
    if score_1 is None:
        return 0.0, 0.0
    if score_1 == 1.0:
        return 1.0, -1.0
    if score_1 == 0.0:
        return -1.0, 1.0
    if score_1 == 0.5:
        if rating_1 == rating_2:
            return 0.0, 0.0
        return (-0.5, 0.5) if rating_1 > rating_2 else (0.5, -0.5)
    raise ValueError(f"score must be 1, 0, 0.5 or None (no result), got {score_1}")


def rate_game(
    rating_1: float, rating_2: float, score_1: float | None, multiplier: float = 1.0
) -> tuple[float, float]:
    """Both ratings after a game; score_1 is 1 win, 0 loss, 0.5 tie, None no result."""
    polarity_1, polarity_2 = _polarities(rating_1, rating_2, score_1)
    if not polarity_1:
        return rating_1, rating_2
    gap = abs(rating_1 - rating_2)
    balance = BALANCE_UNIT if gap <= BALANCE_UNIT else gap / BALANCE_UNIT
    step = balance * multiplier * 2.0 / (rating_1 + rating_2)
    return rating_1 + polarity_1 * rating_2 * step, rating_2 + polarity_2 * rating_1 * step


class Moonstone:
    """Moonstone v1 behind the lab interface; the game's time plays no part."""

    name = "moonstone"
    __slots__ = ("initial_rating", "multiplier")

    def __init__(self, initial_rating: float = 1500.0, multiplier: float = 1.0) -> None:
        self.initial_rating = initial_rating
        self.multiplier = multiplier

    def initial(self) -> float:
        return self.initial_rating

    def expected_score(self, a: float, b: float, at: float) -> float:
        return logistic(a - b)

    def update(self, a: float, b: float, score_a: float, at: float) -> tuple[float, float]:
        return rate_game(a, b, score_a, self.multiplier)

    def display(self, state: float) -> float:
        return state
