"""Continuous Glicko-1, the site's rating system (docs/rating-model.md).

Every game updates both sides from their ratings before the game; there are no
rating periods except the virtual ones used to grow the deviation of idle players.
Pure functions on floats: no Django, no I/O, so the hot loops stay fast.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Q = math.log(10) / 400
# g(d) = 1 / sqrt(1 + G_FACTOR d²); public for the database-side win probability.
G_FACTOR = 3 * Q * Q / (math.pi * math.pi)
_Q2 = Q * Q


@dataclass(frozen=True, slots=True)
class GlickoParams:
    """The tunable constants, seconds for time spans
    (docs/rating-model.md#constants-and-settings)."""

    initial_rating: float = 1500.0
    initial_deviation: float = 350.0
    minimum_deviation: float = 25.0
    decay_constant: float = 3.1
    decay_period_seconds: float = 3600.0
    maximum_deviation: float = 350.0
    low_deviation: float = 75.0
    # A rating is confirmed (may be ranked, set a peak or a best win) once its counted
    # games include this many distinct opponents who were settled when they played it.
    ranked_min_opponents: int = 10
    # Flattening of the expected score (the original site damps E by 0.1 for updates only).
    # 0 gives plain Glicko.
    update_damping: float = 0.0
    # One chance (docs/rating-model.md#one-chance): the chance shown for a game is the
    # update's expected score for both sides, with both deviations, the damping and the
    # matchup offset inside it. False: the reference update, each side's E from the
    # opponent's deviation alone, damping in the update only, no offset.
    one_chance: bool = False
    # A game counts when the winner's expectation lies strictly inside this margin...
    counting_margin: float = 0.045
    # ...or when the root-mean-square of both deviations is at least this.
    counting_rms_deviation: float = 50.0
    # The early-surprise test for alternate accounts (docs/integrity.md): it reads a
    # rating's games among its first `surprise_window` against (nearly) settled
    # opponents a fresh rating would not have been far behind, with the chance that fresh
    # rating would have had, and flags it once at least `surprise_min_games` of them
    # put its surplus of wins `surprise_threshold` standard deviations above expectation.
    surprise_window: int = 30
    surprise_min_games: int = 5
    surprise_threshold: float = 3.75
    # The fast track: a rating whose test stands at `fast_track_threshold` standard
    # deviations (by default the flag's) and whose recent surprise (each game's result
    # minus its chance, older games weighted down by `surprise_memory` a game) is at least
    # `fast_track_margin` keeps its deviation at or above `fast_track_deviation` after
    # each game within its first `surprise_window` counted games, and its opponents keep
    # their ratings. 0 turns it off.
    surprise_memory: float = 0.8
    fast_track_deviation: float = 0.0
    fast_track_margin: float = 0.15
    fast_track_threshold: float = 3.75
    # The fast track's early stage: within a rating's first `early_fast_track_games`
    # counted games, while its test stands at `early_fast_track_threshold` standard
    # deviations (one game read is enough), its deviation is kept at least
    # `early_fast_track_deviation` after each game. It runs only with the fast track on;
    # 0 games turns it off.
    early_fast_track_games: int = 0
    early_fast_track_threshold: float = 1.0
    early_fast_track_deviation: float = 250.0
    # With the fast track on, a rating's flag gives its opponents back what its games
    # changed them by (RatingLedger.young_games).
    give_back: bool = False

    @property
    def gives_back(self) -> bool:
        return self.give_back and self.fast_track_deviation > 0.0


DEFAULT_PARAMS = GlickoParams()


def lasting_share(deviation: float, games_since: int) -> float:
    """About what share of a change to a rating is still in it `games_since` counted games
    later, at this deviation: each update pulls the rating toward what its results say,
    taking back a share 1 - 1 / (1 + Q² p(1 - p) deviation²) of any error in it (the
    update's gain times the chance's slope; p = 1/2, an even game, the largest)."""
    return (1.0 + _Q2 * 0.25 * deviation * deviation) ** -float(games_since)


def g(deviation: float) -> float:
    """Glicko's attenuation of a rating difference by the opponent's uncertainty."""
    return 1.0 / math.sqrt(1.0 + G_FACTOR * deviation * deviation)


def expected_score(
    rating: float, opponent_rating: float, opponent_deviation: float, damping: float = 0.0
) -> float:
    """E(r, r_o, RD_o): expected score against an opponent, as used by the update."""
    exponent = -g(opponent_deviation) * (rating - opponent_rating) / 400.0 * (1.0 - damping)
    return 1.0 / (1.0 + 10.0**exponent)


def win_probability(
    rating_a: float, deviation_a: float, rating_b: float, deviation_b: float
) -> float:
    """P(A beats B), accounting for both deviations."""
    combined = math.sqrt(deviation_a * deviation_a + deviation_b * deviation_b)
    return 1.0 / (1.0 + 10.0 ** (-g(combined) * (rating_a - rating_b) / 400.0))


def chance(
    rating_a: float,
    deviation_a: float,
    rating_b: float,
    deviation_b: float,
    params: GlickoParams = DEFAULT_PARAMS,
    offset: float = 0.0,
) -> float:
    """The chance of A beating B that the site shows: under one chance also the expected
    score both updates use, `offset` being what A's character is worth against B's in
    rating points; otherwise `win_probability` (the offset and damping left out)."""
    if not params.one_chance:
        return win_probability(rating_a, deviation_a, rating_b, deviation_b)
    combined = math.sqrt(deviation_a * deviation_a + deviation_b * deviation_b)
    slope = g(combined) * (1.0 - params.update_damping)
    return 1.0 / (1.0 + 10.0 ** (-slope * (rating_a - rating_b + offset) / 400.0))


def update(
    rating: float,
    deviation: float,
    opponent_rating: float,
    opponent_deviation: float,
    score: float,
    params: GlickoParams = DEFAULT_PARAMS,
) -> tuple[float, float]:
    """One side's (rating, deviation) after one game by the reference update (§4.2): E from
    the opponent's deviation alone; score is 1 win, 0 loss, 0.5 draw."""
    e = expected_score(rating, opponent_rating, opponent_deviation, params.update_damping)
    return update_from_expected(rating, deviation, opponent_deviation, score, e, params)


def update_from_expected(
    rating: float,
    deviation: float,
    opponent_deviation: float,
    score: float,
    expected: float,
    params: GlickoParams = DEFAULT_PARAMS,
) -> tuple[float, float]:
    """One side's (rating, deviation) after one game whose expected score was `expected`:
    §4.2's step, d² and new deviation with E given."""
    g_o = 1.0 / math.sqrt(1.0 + G_FACTOR * opponent_deviation * opponent_deviation)
    denominator = 1.0 / (deviation * deviation) + _Q2 * g_o * g_o * expected * (1.0 - expected)
    new_deviation = math.sqrt(1.0 / denominator)
    if new_deviation < params.minimum_deviation:
        new_deviation = params.minimum_deviation
    return rating + Q / denominator * g_o * (score - expected), new_deviation


def rate_game(
    rating_a: float,
    deviation_a: float,
    rating_b: float,
    deviation_b: float,
    score_a: float,
    params: GlickoParams = DEFAULT_PARAMS,
    offset: float = 0.0,
) -> tuple[float, float, float, float]:
    """Both sides after one game, each updated from the other's pre-game rating: under one
    chance both from `chance` (A expects it, B one minus it), else by the reference update."""
    if params.one_chance:
        expected_a = chance(rating_a, deviation_a, rating_b, deviation_b, params, offset)
        new_a = update_from_expected(
            rating_a, deviation_a, deviation_b, score_a, expected_a, params
        )
        new_b = update_from_expected(
            rating_b, deviation_b, deviation_a, 1.0 - score_a, 1.0 - expected_a, params
        )
    else:
        new_a = update(rating_a, deviation_a, rating_b, deviation_b, score_a, params)
        new_b = update(rating_b, deviation_b, rating_a, deviation_a, 1.0 - score_a, params)
    return new_a[0], new_a[1], new_b[0], new_b[1]


def decayed_deviation(
    deviation: float, periods: int, params: GlickoParams = DEFAULT_PARAMS
) -> float:
    """The deviation after `periods` idle virtual periods, capped."""
    if periods <= 0:
        return deviation
    return min(
        math.sqrt(deviation * deviation + periods * params.decay_constant**2),
        params.maximum_deviation,
    )


def deviation_before_decay(
    deviation: float, periods: int, params: GlickoParams = DEFAULT_PARAMS
) -> float | None:
    """The deviation `periods` idle periods earlier: `decayed_deviation` undone. None when
    the deviation sits at the cap, which hides how much decay reached it."""
    if periods <= 0:
        return deviation
    if deviation >= params.maximum_deviation:
        return None
    return math.sqrt(max(deviation * deviation - periods * params.decay_constant**2, 0.0))


def decay(
    deviation: float,
    last_decay_at: float,
    now: float,
    params: GlickoParams = DEFAULT_PARAMS,
) -> tuple[float, float]:
    """Decay up to `now` (epoch seconds): (new deviation, new last_decay_at).

    Only whole periods are applied; the remainder carries over to the next call,
    so decaying in many small steps equals decaying once.
    """
    periods = math.floor((now - last_decay_at) / params.decay_period_seconds)
    if periods <= 0:
        return deviation, last_decay_at
    return (
        decayed_deviation(deviation, periods, params),
        last_decay_at + periods * params.decay_period_seconds,
    )


def game_counts(
    rating_a: float,
    deviation_a: float,
    rating_b: float,
    deviation_b: float,
    a_won: bool,
    params: GlickoParams = DEFAULT_PARAMS,
    offset: float = 0.0,
) -> bool:
    """Whether a game between two eligible players moves ratings
    (docs/rating-model.md#which-games-count).

    Lopsided games between established players teach the system nothing and
    invite farming, so they are stored but do not count.
    """
    p_a = chance(rating_a, deviation_a, rating_b, deviation_b, params, offset)
    p_winner = p_a if a_won else 1.0 - p_a
    margin = params.counting_margin
    if margin < p_winner < 1.0 - margin:
        return True
    rms = math.sqrt((deviation_a * deviation_a + deviation_b * deviation_b) / 2.0)
    return rms >= params.counting_rms_deviation
