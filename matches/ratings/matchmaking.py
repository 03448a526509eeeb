"""Fair-opponent suggestions (docs/rating-model.md#fair-opponents).

- Match quality: for Glicko, 1 - 2 |P - 0.5| with P the win probability using both
  deviations (1 for a coin flip, 0 for a certainty); for TrueSkill, its draw-probability
  quality (`match_quality_trueskill`, from trueskill.py).
- `fairest_opponents`: the candidates a player is most likely to find an even game with.
- `pair_round`: league-style pairing that keeps game counts level while favouring good
  games: the participant with the fewest games picks first, and its opponent is drawn
  at random with probability proportional to match quality (so pairings vary between
  rounds instead of the same two strongest always meeting).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Protocol, TypeVar

from matches.ratings.glicko import win_probability
from matches.ratings.trueskill import match_quality as match_quality_trueskill

__all__ = [
    "HasGlicko",
    "fairest_opponents",
    "match_quality_glicko",
    "match_quality_trueskill",
    "pair_round",
]

ParticipantT = TypeVar("ParticipantT", bound=Hashable)
RatedT = TypeVar("RatedT", bound="HasGlicko")


class HasGlicko(Protocol):
    """Anything with a Glicko rating and deviation (GlickoState, Glicko2State, models)."""

    @property
    def rating(self) -> float: ...

    @property
    def deviation(self) -> float: ...


def _win_probability(a: HasGlicko, b: HasGlicko) -> float:
    return win_probability(a.rating, a.deviation, b.rating, b.deviation)


def match_quality_glicko(a: HasGlicko, b: HasGlicko) -> float:
    """1 - 2 |P(a beats b) - 0.5|: 1 for an even game, towards 0 for a one-sided one."""
    return 1.0 - 2.0 * abs(_win_probability(a, b) - 0.5)


def fairest_opponents(target: RatedT, candidates: Iterable[RatedT], n: int) -> list[RatedT]:
    """The n candidates whose game with `target` is nearest a coin flip.

    Ties go to the candidate with the lower deviation, whose rating is better known.
    The target itself is skipped if it is among the candidates.
    """
    return heapq.nsmallest(
        n,
        (candidate for candidate in candidates if candidate is not target),
        key=lambda candidate: (
            abs(_win_probability(target, candidate) - 0.5),
            candidate.deviation,
        ),
    )


def pair_round(
    participants: Sequence[ParticipantT],
    games_played: Mapping[ParticipantT, int],
    quality_fn: Callable[[ParticipantT, ParticipantT], float],
    rng: random.Random,
) -> list[tuple[ParticipantT, ParticipantT]]:
    """One round of pairs; with an odd count the participant left over sits out.

    The participant with the fewest games (ties in random order) chooses first; its
    opponent is drawn from those still waiting with probability quality / total
    quality (uniformly if every quality is 0).  Participants missing from
    `games_played` have played none.
    """
    waiting = list(participants)
    rng.shuffle(waiting)
    waiting.sort(key=lambda participant: games_played.get(participant, 0))
    pairs = []
    while len(waiting) >= 2:
        chooser = waiting.pop(0)
        qualities = [max(quality_fn(chooser, other), 0.0) for other in waiting]
        weights = qualities if sum(qualities) > 0.0 else None
        index = rng.choices(range(len(waiting)), weights)[0]
        pairs.append((chooser, waiting.pop(index)))
    return pairs
