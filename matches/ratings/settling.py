"""Why a rating is too wide to rank, and what brings it back (the profile's "Unranked: …"):
the deviation its last game left it at, recovered from the decay since, and how many
games make it settled.

Decay is exact to undo: it adds c² per whole period to the squared deviation, on a clock
of whole periods from the rating's first game (`glicko.decay`), so the periods applied
since the last game follow from `last_decay_at` alone, until the cap hides them.
"""

from __future__ import annotations

import math

from matches.ratings.glicko import GlickoParams, deviation_before_decay, update


def deviation_after_last_game(
    deviation: float, last_decay_at: float, last_played_at: float, params: GlickoParams
) -> float | None:
    """The deviation the rating had right after its last game (epoch seconds), before the
    decay since; None when the cap has swallowed some of that decay."""
    # last_decay_at sits on the period grid; the last game fell within the period that
    # ended at the first decay after it (so a floor would miss that period).
    periods = math.ceil((last_decay_at - last_played_at) / params.decay_period_seconds)
    return deviation_before_decay(deviation, periods, params)


# Games the answer counts up to: beyond this the profile says "more than".
MOST_GAMES = 1000


def games_to_settle(deviation: float, params: GlickoParams) -> int:
    """How many games, played one after another against settled players of the same
    value (the opponent at the widest settled deviation: the least each game can teach),
    take the deviation below the settled limit; 0 when it already is."""
    games = 0
    opponent = math.nextafter(params.low_deviation, 0.0)
    while deviation >= params.low_deviation and games < MOST_GAMES:
        # The deviation after a game does not depend on its result.
        _, deviation = update(1500.0, deviation, 1500.0, opponent, 1.0, params)
        games += 1
    return games
