"""Elo: the simplest baseline the lab compares against.

E = 1 / (1 + 10^(-(r_a - r_b) / 400)) and r' = r + K (s - E).  K is 32 by default;
`tiers` lowers it for stronger players, as chess federations do, e.g.
``Elo(tiers=((2100, 24), (2400, 16)))`` uses K 32 under 2100, 24 from 2100 and
16 from 2400, each side by its own pre-game rating.  (With tiers the update is no
longer zero-sum.)
"""

from __future__ import annotations

from collections.abc import Sequence

from matches.ratings.base import ascending_steps, logistic, step_value


class Elo:
    """Logistic Elo on 400 points with an optional rating-tiered K-factor."""

    name = "elo"
    __slots__ = ("initial_rating", "k", "scale", "tiers")

    def __init__(
        self,
        k: float = 32.0,
        tiers: Sequence[tuple[float, float]] = (),
        *,
        initial_rating: float = 1500.0,
        scale: float = 400.0,
    ) -> None:
        self.k = k
        self.tiers = ascending_steps(tiers)
        self.initial_rating = initial_rating
        self.scale = scale

    def k_for(self, rating: float) -> float:
        """The K-factor of a player at `rating`."""
        return step_value(rating, self.tiers, self.k)

    def initial(self) -> float:
        return self.initial_rating

    def expected_score(self, a: float, b: float, at: float) -> float:
        return logistic(a - b, self.scale)

    def update(self, a: float, b: float, score_a: float, at: float) -> tuple[float, float]:
        surprise = score_a - logistic(a - b, self.scale)
        return a + self.k_for(a) * surprise, b - self.k_for(b) * surprise

    def display(self, state: float) -> float:
        return state
