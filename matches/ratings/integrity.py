"""What the integrity detectors report (README.md#integrity): pure data, no Django.

A detector (the early-surprise test for alternate accounts, the ring test for win-trading)
returns Suspicions; matches.services.integrity keeps them as IntegrityFlag rows for the
operators' review queue. A suspicion is evidence for a person to weigh, never a verdict
shown to the public.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum

from matches.ratings.glicko import GlickoParams


class SuspicionKind(StrEnum):
    # A strong player on a fresh account: early results improbable under the model.
    ALTERNATE_ACCOUNT = "alt"
    # Accounts that meet far more often than their activity predicts, one side winning.
    WIN_TRADING = "ring"


@dataclass(frozen=True, slots=True)
class Suspicion:
    """One rating's (or, for a ring, one beneficiary's) evidence.

    `games`, `wins` and `expected_wins` count the games the test read; `probability` is
    the chance, under the model, of a record at least this good (smaller is stronger
    evidence). `partners` are the other accounts of a ring; `match_ids` the games shown
    to the reviewer."""

    kind: SuspicionKind
    player: str
    character: int | None
    games: int
    expected_wins: float
    wins: int
    probability: float
    partners: tuple[str, ...] = ()
    match_ids: tuple[int, ...] = field(default=())


# The early-surprise test reads a game when a fresh rating would have had at least this
# chance in it (the opponent at most about 70 points above the start)...
TESTED_START_CHANCE = 0.4
# ...and the opponent's deviation was below this multiple of the settled limit: settled,
# or nearly (a median player between games is often just above it).
TESTED_OPPONENT_DEVIATION = 1.5


def surprise_flagged(
    games: int,
    wins: float,
    expected_wins: float,
    information: float,
    params: GlickoParams,
    threshold: float | None = None,
) -> bool:
    """Whether the early-surprise test's sums (docs/integrity.md) flag a rating: enough
    games read, and wins above expectation by `threshold` (by default
    `surprise_threshold`) standard deviations (the sum of p(1 - p) is the variance of
    the wins under the model)."""
    if threshold is None:
        threshold = params.surprise_threshold
    return games >= params.surprise_min_games and surprise_beats(
        wins, expected_wins, information, threshold
    )


def surprise_beats(wins: float, expected_wins: float, information: float, threshold: float) -> bool:
    """Whether the test's sums put the wins `threshold` standard deviations or more above
    their expectation, however few games were read (at least one)."""
    return information > 0.0 and wins - expected_wins >= threshold * math.sqrt(information)


def record_probability(wins: float, expected_wins: float, information: float) -> float:
    """The chance under the model of a record at least this good: the normal tail of the
    surplus of wins over its standard deviation."""
    if information <= 0.0:
        return 1.0
    z = (wins - expected_wins) / math.sqrt(information)
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def alternate_account(
    player: str,
    character: int,
    games: int,
    wins: int,
    expected_wins: float,
    information: float,
) -> Suspicion:
    """The suspicion of a rating the early-surprise test flagged, from its sums."""
    return Suspicion(
        kind=SuspicionKind.ALTERNATE_ACCOUNT,
        player=player,
        character=character,
        games=int(games),
        expected_wins=float(expected_wins),
        wins=int(wins),
        probability=record_probability(wins, expected_wins, information),
    )
