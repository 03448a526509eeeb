"""The lab's question about seasons (README.md#seasons): would widening every rating's
deviation at a season's start predict better? `SeasonStartBump` is the site's Glicko with
that widening, for the lab to score beside the site's own (bench/lab.py --season-bump);
the site does not apply it.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

from matches.ratings.base import ContinuousGlicko, GlickoState
from matches.ratings.glicko import DEFAULT_PARAMS, GlickoParams


class SeasonStartBump(ContinuousGlicko):
    """The first game of a rating in a new season sees its deviation widened by `bump`
    (added in quadrature, capped at the maximum), as if a season's start were a long idle
    spell. Season starts are epoch seconds."""

    name = "glicko_season_bump"
    __slots__ = ("bump", "season_starts")

    def __init__(
        self,
        season_starts: Sequence[float],
        bump: float,
        params: GlickoParams = DEFAULT_PARAMS,
    ) -> None:
        super().__init__(params)
        self.season_starts = sorted(season_starts)
        self.bump = bump

    def decayed(self, state: GlickoState, at: float) -> GlickoState:
        seen = super().decayed(state, at)
        if state.last_decay_at is None or not self.bump:
            return seen
        starts = self.season_starts
        if bisect.bisect_right(starts, state.last_decay_at) == bisect.bisect_right(starts, at):
            return seen
        widened = min(self.params.maximum_deviation, math.hypot(seen.deviation, self.bump))
        return GlickoState(seen.rating, widened, seen.last_decay_at)
