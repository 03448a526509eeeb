"""The common interface of the rating systems lab.

docs/rating-model.md#the-lab-other-systems-and-tuning says what the lab is for.

The lab replays one stored history through several systems and scores their
predictions, so every system exposes the same members and keeps each player's
state in a small immutable value (a float or a NamedTuple).  States carry no game
count: every system is judged on what its ratings know, and one evaluation loop
works for all of them::

    p = system.expected_score(states[a], states[b], at)   # predict first...
    states[a], states[b] = system.update(states[a], states[b], score_a, at)  # ...then learn

Also here: `ContinuousGlicko`, the site's own system (glicko.py) behind this interface,
and the two small helpers the systems share.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple, Protocol, TypeVar

from matches.ratings import glicko
from matches.ratings.glicko import DEFAULT_PARAMS, GlickoParams

StateT = TypeVar("StateT")
ValueT = TypeVar("ValueT")

_HALF_LN10 = math.log(10) / 2


class RatingSystem(Protocol[StateT]):
    """What the lab needs from a rating system; `at` is the game's time in epoch seconds.

    A system whose prediction and update share work (both decay the states to the
    game's time) may also offer `predict_and_update(a, b, score_a, at)`, returning
    (expected_score, *update) in one call; the tuner's hot loop uses it when present.
    """

    @property
    def name(self) -> str:
        """The registry key, e.g. "glicko"."""
        ...

    def initial(self) -> StateT:
        """The state of a player who has not played yet."""
        ...

    def expected_score(self, a: StateT, b: StateT, at: float) -> float:
        """P(a beats b) for a game at `at`, before the game is known."""
        ...

    def update(self, a: StateT, b: StateT, score_a: float, at: float) -> tuple[StateT, StateT]:
        """Both states after a game at `at`; score_a is 1 win, 0 loss, 0.5 draw."""
        ...

    def display(self, state: StateT) -> float:
        """The number a leaderboard would sort by."""
        ...


def logistic(difference: float, scale: float = 400.0) -> float:
    """1 / (1 + 10^(-difference / scale)): Elo's curve, where `scale` points mean 10:1 odds.

    Written with tanh so that no rating gap, however absurd, overflows.
    """
    return 0.5 + 0.5 * math.tanh(_HALF_LN10 * difference / scale)


def ascending_steps(
    steps: Sequence[tuple[float, ValueT]],
) -> tuple[tuple[float, ValueT], ...]:
    """Validate (threshold, value) steps for `step_value`: thresholds strictly ascending."""
    checked = tuple(steps)
    for (low, _), (high, _) in pairwise(checked):
        if not low < high:
            raise ValueError(f"thresholds must be strictly ascending, got {low} then {high}")
    return checked


def step_value(x: float, steps: Sequence[tuple[float, ValueT]], below: ValueT) -> ValueT:
    """The value of the highest threshold at or under `x`, or `below` under them all.

    Elo's tiered K; `steps` must be ascending.
    """
    value = below
    for threshold, step in steps:
        if x < threshold:
            break
        value = step
    return value


class GlickoState(NamedTuple):
    """A continuous-Glicko rating; last_decay_at is None until the first game
    (docs/rating-model.md#decay)."""

    rating: float
    deviation: float
    last_decay_at: float | None = None


class ContinuousGlicko:
    """The site's continuous Glicko-1 (glicko.py) as a lab system; its prediction is the
    chance the site shows (`glicko.chance`: the lab knows no characters, so no matchup).

    Both sides are decayed to the game's time before predicting or updating, as the
    rating pipeline does.  With `apply_counting_rule` a game that the counting rule would
    not count leaves the ratings as they were (decay still applies), so the lab can
    measure what the rule costs or gains.
    """

    name = "glicko"
    __slots__ = ("apply_counting_rule", "params")

    def __init__(
        self, params: GlickoParams = DEFAULT_PARAMS, *, apply_counting_rule: bool = False
    ) -> None:
        self.params = params
        self.apply_counting_rule = apply_counting_rule

    def initial(self) -> GlickoState:
        return GlickoState(self.params.initial_rating, self.params.initial_deviation)

    def decayed(self, state: GlickoState, at: float) -> GlickoState:
        """The state as seen at `at`: idle whole periods have grown its deviation."""
        if state.last_decay_at is None:
            return GlickoState(state.rating, state.deviation, at)
        deviation, last_decay_at = glicko.decay(
            state.deviation, state.last_decay_at, at, self.params
        )
        if last_decay_at == state.last_decay_at:
            return state
        return GlickoState(state.rating, deviation, last_decay_at)

    def expected_score(self, a: GlickoState, b: GlickoState, at: float) -> float:
        a = self.decayed(a, at)
        b = self.decayed(b, at)
        return glicko.chance(a.rating, a.deviation, b.rating, b.deviation, self.params)

    def update(
        self, a: GlickoState, b: GlickoState, score_a: float, at: float
    ) -> tuple[GlickoState, GlickoState]:
        return self._rate(self.decayed(a, at), self.decayed(b, at), score_a)

    def predict_and_update(
        self, a: GlickoState, b: GlickoState, score_a: float, at: float
    ) -> tuple[float, GlickoState, GlickoState]:
        """expected_score, then update, decaying each side once (the tuner's hot loop)."""
        a = self.decayed(a, at)
        b = self.decayed(b, at)
        probability = glicko.chance(a.rating, a.deviation, b.rating, b.deviation, self.params)
        return (probability, *self._rate(a, b, score_a))

    def _rate(
        self, a: GlickoState, b: GlickoState, score_a: float
    ) -> tuple[GlickoState, GlickoState]:
        """Both sides after a game, from states already decayed to its time."""
        if self.apply_counting_rule and not glicko.game_counts(
            a.rating, a.deviation, b.rating, b.deviation, score_a > 0.5, self.params
        ):
            return a, b
        rating_a, deviation_a, rating_b, deviation_b = glicko.rate_game(
            a.rating, a.deviation, b.rating, b.deviation, score_a, self.params
        )
        return (
            GlickoState(rating_a, deviation_a, a.last_decay_at),
            GlickoState(rating_b, deviation_b, b.last_decay_at),
        )

    def display(self, state: GlickoState) -> float:
        return state.rating
