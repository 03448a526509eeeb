"""The reference games every layer must reproduce to 1e-3
(docs/rating-model.md#reference-numbers)."""

from __future__ import annotations

from typing import NamedTuple


class ReferenceGame(NamedTuple):
    a: tuple[float, float]  # A before: (value, deviation)
    b: tuple[float, float]
    a_won: bool
    a_after: tuple[float, float]
    b_after: tuple[float, float]
    p_a: float  # P(A wins) before


G = ReferenceGame
REFERENCE = (
    G((1500, 350), (1500, 350), True, (1662.2120, 290.2305), (1337.7880, 290.2305), 0.5),
    G((1700, 80), (1500, 200), False, (1678.0926, 78.8224), (1636.5075, 180.2274), 0.721200),
    G((1500, 200), (1400, 30), True, (1563.4320, 175.2202), (1398.3425, 29.9251), 0.618797),
    G((1500, 200), (1550, 100), False, (1426.8389, 175.7192), (1570.1876, 97.2117), 0.441587),
    G((2000, 30), (1400, 30), True, (2000.1604, 29.9866), (1399.8396, 29.9866), 0.968415),
)  # fmt: skip
# The games that count (docs/rating-model.md#which-games-count): the last one is lopsided
# between established players.
COUNTED = REFERENCE[:4]
