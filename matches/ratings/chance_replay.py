"""Games replayed as the site would have shown their chances (docs/rating-model.md#one-chance):
ratings from a `RatingLedger`, the character matchup offsets those chances add refitted
every `refit_every` seconds on the counted games before it, as the site's refresh
refits its table. So no game is shown through an offset that saw it.

`make bench-predictions` scores the chances of a simulated league's later half against
the league's true probabilities with it. Pure Python, no Django.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from matches.ratings.glicko import GlickoParams
from matches.ratings.ledger import Game, GameResult, MatchupOffsets, RatingLedger
from matches.ratings.matchup_offset import (
    DIFFERENCE_BIN_POINTS,
    DifferenceBin,
    Offset,
    fit_offset,
    shrunk_offsets,
)


class RollingMatchups:
    """The character matchup offsets in force at each moment: refitted at every
    `refit_every` seconds boundary on the counted games learned before it between two
    ratings settled before the game (deviations below `settled_below`), as the site's
    table takes them."""

    def __init__(self, refit_every: float, prior_deviation: float, settled_below: float) -> None:
        self.refit_every = refit_every
        self.prior_deviation = prior_deviation
        self.settled_below = settled_below
        self.offsets: dict[tuple[int, int], float] = {}
        self._period: int | None = None
        # (X, Y) with X < Y -> difference bin -> [games, X wins, sum of differences]
        self._bins: dict[tuple[int, int], dict[int, list[float]]] = defaultdict(dict)

    def at(self, moment: float) -> MatchupOffsets:
        period = int(moment // self.refit_every)
        if self._period is not None and period != self._period:
            self._refit()
        self._period = period
        return self.offsets

    def learn(self, game: Game, result: GameResult) -> None:
        if not result.counted or game.character_a == game.character_b:
            return
        if max(result.deviation_a, result.deviation_b) >= self.settled_below:
            return
        difference = result.value_a - result.value_b
        won = game.a_won
        pair = (game.character_a, game.character_b)
        if pair[0] > pair[1]:
            pair, difference, won = pair[::-1], -difference, not won
        cell = self._bins[pair].setdefault(round(difference / DIFFERENCE_BIN_POINTS), [0, 0, 0.0])
        cell[0] += 1
        cell[1] += won
        cell[2] += difference

    def _refit(self) -> None:
        table: dict[tuple[int, int], Offset] = {}
        for (x, y), bins in self._bins.items():
            offset = fit_offset(
                (DifferenceBin(total / games, games, wins) for games, wins, total in bins.values()),
                self.prior_deviation,
            )
            table[(x, y)] = offset
            table[(y, x)] = Offset(-offset.value, offset.standard_error)
        self.offsets = shrunk_offsets(table)


def replay_chances(
    games: Iterable[Game],
    params: GlickoParams,
    *,
    refit_every: float,
    prior_deviation: float,
    matchups: bool = True,
) -> Iterator[tuple[Game, GameResult]]:
    """Every game with its result, in the order given (time order), each rated with the
    offsets in force at its time (none unless `params.one_chance` and `matchups`)."""
    ledger = RatingLedger(params=params)
    rolling = RollingMatchups(refit_every, prior_deviation, params.low_deviation)
    use_offsets = params.one_chance and matchups
    for game in games:
        if use_offsets:
            ledger.offsets = rolling.at(game.played_at)
        result = ledger.apply(game)
        if use_offsets:
            rolling.learn(game, result)
        yield game, result
