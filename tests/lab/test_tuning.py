"""The coordinate search behind tune_ratings, on loss functions with a known minimum."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from matches.ratings.glicko import DEFAULT_PARAMS, GlickoParams
from matches.services.tuning import SEARCH_SPACE, coordinate_search


class Recorder:
    """A loss with its minimum at decay 2, minimum deviation 40 and margin 0.02; it
    counts how often each parameter set is scored and how many passes were asked for."""

    def __init__(self) -> None:
        self.scored: Counter[GlickoParams] = Counter()
        self.calls = 0

    def __call__(self, candidates: Sequence[GlickoParams]) -> list[float]:
        self.calls += 1
        self.scored.update(candidates)
        return [
            (p.decay_constant - 2.0) ** 2
            + ((p.minimum_deviation - 40.0) / 10.0) ** 2
            + ((p.counting_margin - 0.02) * 100) ** 2
            for p in candidates
        ]


def test_the_search_finds_the_minimum_and_scores_each_set_once():
    loss = Recorder()
    best, losses, passes = coordinate_search(loss, DEFAULT_PARAMS)
    assert (best.decay_constant, best.minimum_deviation, best.counting_margin) == (2.0, 40.0, 0.02)
    assert losses[best] == 0.0
    assert losses[DEFAULT_PARAMS] > 0.0
    assert set(loss.scored.values()) == {1}
    assert passes == loss.calls
    # Round one: 6 decay constants, then 3 new minimum deviations and 4 new margins.
    # Round two, around (2, 40, 0.02): 5 new decays, 3 new deviations, no new margin;
    # it changes nothing, so the search stops there.
    assert [len(values) for _, _, values in SEARCH_SPACE] == [6, 4, 5]
    assert len(losses) == 13 + 8
    assert passes == 5
    # Everything else is left as it was.
    assert best.decay_period_seconds == DEFAULT_PARAMS.decay_period_seconds
    assert best.initial_deviation == DEFAULT_PARAMS.initial_deviation


def test_the_current_values_are_always_candidates_and_win_ties():
    start = GlickoParams(decay_constant=2.5, minimum_deviation=33.0, counting_margin=0.03)

    def flat(candidates: Sequence[GlickoParams]) -> list[float]:
        return [0.7] * len(candidates)

    best, losses, passes = coordinate_search(flat, start)
    assert best == start
    assert start in losses
    assert passes == 3  # one round over the three constants, nothing changed


def test_a_search_can_stop_after_one_round():
    loss = Recorder()
    space = (("decay_constant", "RATING_DECAY_CONSTANT", (1.0, 2.0, 3.0)),)
    best, losses, passes = coordinate_search(loss, DEFAULT_PARAMS, space, rounds=1)
    assert best.decay_constant == 2.0
    assert passes == 1
    assert len(losses) == 4  # the three candidates and the start (3.1)
