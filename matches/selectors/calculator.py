"""The calculator (DESIGN.md section 6, `/calculator`): win probability and both sides'
ratings after either result, by the site's own rules."""

from __future__ import annotations

from dataclasses import dataclass

from matches.params import glicko_params
from matches.ratings.glicko import game_counts, rate_game, win_probability
from players.models import Rating


@dataclass(frozen=True)
class Contender:
    """One side of the calculator: typed-in numbers, or a player's rating."""

    value: float
    deviation: float
    rating: Rating | None = None

    @classmethod
    def of(cls, rating: Rating) -> Contender:
        return cls(rating.value, rating.deviation, rating)

    @property
    def eligible(self) -> bool:
        """Cheaters' games never move ratings."""
        return self.rating is None or not self.rating.player.cheater


@dataclass(frozen=True)
class Outcome:
    value: float
    deviation: float
    change: float


@dataclass(frozen=True)
class SideForecast:
    contender: Contender
    win_probability: float
    after_win: Outcome
    after_loss: Outcome


@dataclass(frozen=True)
class Forecast:
    a: SideForecast
    b: SideForecast
    # False: the game would be stored but move no rating (a flagged player, or a lopsided
    # game between established players: then neither result counts, upset or not).
    counts: bool

    @property
    def sides(self) -> tuple[SideForecast, SideForecast]:
        return self.a, self.b


def win_forecast(a: Contender, b: Contender) -> Forecast:
    """P(A wins) and both sides' ratings after either result, by the site's own rules."""
    params = glicko_params()
    probability = win_probability(a.value, a.deviation, b.value, b.deviation)
    counts = (
        a.eligible
        and b.eligible
        and game_counts(a.value, a.deviation, b.value, b.deviation, True, params)
    )
    after: dict[bool, tuple[Outcome, Outcome]] = {}
    for a_won in (True, False):
        va, da, vb, db = (
            rate_game(a.value, a.deviation, b.value, b.deviation, float(a_won), params)
            if counts
            else (a.value, a.deviation, b.value, b.deviation)
        )
        after[a_won] = (Outcome(va, da, va - a.value), Outcome(vb, db, vb - b.value))
    return Forecast(
        SideForecast(a, probability, after[True][0], after[False][0]),
        SideForecast(b, 1.0 - probability, after[False][1], after[True][1]),
        counts,
    )
