"""Choosing the site's Glicko constants from its own history (DESIGN.md section 8).

The decay constant, the minimum deviation and the counting margin of section 4 are
searched for the lowest log loss on a held-out later part of the stored history:
the site's Glicko learns from the first part and is scored on the rest, predicting
each game before learning from it (matches.services.evaluation.replay).

The search is by coordinates: starting from the current settings, try every
candidate value of one constant with the others fixed, keep the best, go on to the
next constant, and repeat until a whole round changes nothing.  All candidates of
one constant run side by side in a single pass over the matches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from matches.models import Match
from matches.params import glicko_params
from matches.ratings.base import ContinuousGlicko
from matches.ratings.glicko import GlickoParams
from matches.services.evaluation import replay

# (GlickoParams field, the setting that holds it, candidate values). The current
# setting is always tried as well.
SEARCH_SPACE: tuple[tuple[str, str, tuple[float, ...]], ...] = (
    ("decay_constant", "RATING_DECAY_CONSTANT", (0.5, 1.0, 2.0, 3.1, 5.0, 8.0)),
    ("minimum_deviation", "RATING_MINIMUM_DEVIATION", (10.0, 25.0, 40.0, 60.0)),
    ("counting_margin", "RATING_COUNTING_MARGIN", (0.0, 0.02, 0.045, 0.08, 0.15)),
)
DEFAULT_HELD_OUT = 0.3
DEFAULT_ROUNDS = 3

Scorer = Callable[[Sequence[GlickoParams]], list[float]]


@dataclass(frozen=True)
class TuningResult:
    current: GlickoParams
    best: GlickoParams
    current_log_loss: float
    best_log_loss: float
    training_games: int  # matches read before scoring starts
    held_out_games: int  # games scored
    tried: int  # distinct parameter sets scored
    passes: int  # passes over the matches


def coordinate_search(
    score: Scorer,
    start: GlickoParams,
    space: Sequence[tuple[str, str, Sequence[float]]] = SEARCH_SPACE,
    rounds: int = DEFAULT_ROUNDS,
) -> tuple[GlickoParams, dict[GlickoParams, float], int]:
    """(best parameters, the loss of every set tried, calls to `score`).

    `score` gets the candidates of one step and returns their losses in order; a
    set is scored once however often the search comes back to it.  A candidate
    replaces the best so far only when strictly better, so ties keep the start.
    """
    losses: dict[GlickoParams, float] = {}
    calls = 0
    best = start
    for _ in range(rounds):
        changed = False
        for name, _setting, candidates in space:
            options = [best] + [
                replace(best, **{name: value})
                for value in sorted(candidates)
                if value != getattr(best, name)
            ]
            new = [option for option in options if option not in losses]
            if new:
                losses.update(zip(new, score(new), strict=True))
                calls += 1
            choice = min(options, key=losses.__getitem__)
            if losses[choice] < losses[best]:
                best, changed = choice, True
        if not changed:
            break
    return best, losses, calls


def tune(
    *,
    held_out: float = DEFAULT_HELD_OUT,
    since: datetime | None = None,
    rounds: int = DEFAULT_ROUNDS,
) -> TuningResult:
    """Search SEARCH_SPACE around the current settings, scoring the last `held_out` share."""
    if not 0.0 < held_out < 1.0:
        raise ValueError(f"the held-out share must lie between 0 and 1, got {held_out}")
    matches = Match.objects.all() if since is None else Match.objects.filter(played_at__gte=since)
    training = int(matches.count() * (1.0 - held_out))
    held_out_games = 0

    def score(candidates: Sequence[GlickoParams]) -> list[float]:
        nonlocal held_out_games
        result = replay(
            [ContinuousGlicko(params, apply_counting_rule=True) for params in candidates],
            matches,
            score_from=training,
        )
        held_out_games = result.systems[0].overall.count
        return [system.overall.log_loss for system in result.systems]

    current = glicko_params()
    best, losses, calls = coordinate_search(score, current, rounds=rounds)
    return TuningResult(
        current=current,
        best=best,
        current_log_loss=losses[current],
        best_log_loss=losses[best],
        training_games=training,
        held_out_games=held_out_games,
        tried=len(losses),
        passes=calls,
    )
