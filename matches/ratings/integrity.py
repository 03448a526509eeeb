"""What the integrity detectors report (README.md#integrity): pure data, no Django.

A detector (the early-surprise test for alternate accounts, the ring test for win-trading)
returns Suspicions; matches.services.integrity keeps them as IntegrityFlag rows for the
operators' review queue. A suspicion is evidence for a person to weigh, never a verdict
shown to the public.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


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
