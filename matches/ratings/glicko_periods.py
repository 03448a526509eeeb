"""Glicko-1 in rating periods, as Glickman's Glicko paper defines it.

The site rates each game at once (glicko.py); the paper instead collects a period's
games and scores them all against the player's rating at the start of the period.
This module gives the lab that reading, with the same g, E and q.

Start each period by growing the deviation of the time since the player's last
period with `glicko.decayed_deviation` (the paper's step 1); then call `rate_period`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from matches.ratings.glicko import DEFAULT_PARAMS, GlickoParams, Q, expected_score, g


def rate_period(
    rating: float,
    deviation: float,
    results: Iterable[tuple[float, float, float]],
    params: GlickoParams = DEFAULT_PARAMS,
) -> tuple[float, float]:
    """(rating, deviation) after a period of (opponent rating, opponent RD, score) results.

    The deviation keeps the site's floor (params.minimum_deviation); with no results
    nothing changes.
    """
    inverse_d2 = 0.0
    score_sum = 0.0
    for opponent_rating, opponent_deviation, score in results:
        g_o = g(opponent_deviation)
        e = expected_score(rating, opponent_rating, opponent_deviation)
        inverse_d2 += g_o * g_o * e * (1.0 - e)
        score_sum += g_o * (score - e)
    if inverse_d2 == 0.0:
        return rating, deviation
    denominator = 1.0 / (deviation * deviation) + Q * Q * inverse_d2
    return (
        rating + Q / denominator * score_sum,
        max(math.sqrt(1.0 / denominator), params.minimum_deviation),
    )
