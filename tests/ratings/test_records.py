"""Records keep their rule: a peak or best win is only ever set by a rankable rating (its ±
below the ranking's threshold, confirmed by enough distinct settled opponents), in the
live ledger and in the compiled recompute alike
(docs/rating-model.md#wins-peaks-and-best-wins)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings.array_ledger import ArrayLedger
from matches.ratings.glicko import GlickoParams
from matches.ratings.ledger import Game, RatingLedger
from tests.ratings.test_array_ledger import PARAMS, PLAYERS, game_steps

START = 1.7e9
# With the threshold at 280, a rating settles on its second game (350 → 290 → 250): a
# newcomer's first win over a settled rating, the case the rule is for, comes up often.
RECORD_PARAMS = [*PARAMS, GlickoParams(low_deviation=280.0, ranked_min_opponents=2)]


def _games(steps) -> list[Game]:
    games, moment = [], START
    for match_id, (pa, ca, pb, cb, a_won, gap) in enumerate(steps, start=1):
        moment += gap
        games.append(Game(match_id, moment, pa, ca, pb, cb, a_won))
    return games


@given(steps=st.lists(game_steps, min_size=1, max_size=60), params=st.sampled_from(RECORD_PARAMS))
def test_the_live_ledger_sets_records_only_on_settled_ratings(steps, params):
    ledger = RatingLedger(params=params)
    for game in _games(steps):
        key_a = (game.player_a, game.character_a)
        key_b = (game.player_b, game.character_b)
        before = {
            key: (state.peak_value, state.best_win_value)
            for key in (key_a, key_b)
            if (state := ledger.ratings.get(key)) is not None
        }
        result = ledger.apply(game)
        loser_deviation = result.deviation_b if game.a_won else result.deviation_a
        winner = key_a if game.a_won else key_b
        for key in (key_a, key_b):
            state = ledger.ratings[key]
            peak_before, best_before = before.get(key, (None, None))
            if state.peak_value != peak_before:
                assert state.deviation < params.low_deviation
                assert state.peak_deviation < params.low_deviation
                assert state.confirmations >= params.ranked_min_opponents
            if state.best_win_value != best_before:
                assert key == winner
                assert state.deviation < params.low_deviation
                assert state.confirmations >= params.ranked_min_opponents
                assert loser_deviation < params.low_deviation


@given(steps=st.lists(game_steps, min_size=1, max_size=60), params=st.sampled_from(RECORD_PARAMS))
def test_the_compiled_recompute_sets_records_only_on_settled_ratings(steps, params):
    ledger = ArrayLedger(params)
    numbers: dict[tuple[str, int], int] = {}
    for game in _games(steps):
        pair = []
        for key in ((game.player_a, game.character_a), (game.player_b, game.character_b)):
            if key not in numbers:
                numbers[key] = len(numbers)
                ledger.add(
                    np.array([False]),
                    np.array([key[1]], dtype=np.int64),
                    np.array([PLAYERS.index(key[0])], dtype=np.int64),
                )
            pair.append(numbers[key])
        peaks = ledger.column("peak_value").copy()
        bests = ledger.column("best_win_value").copy()
        out, _ = ledger.apply(
            np.array([game.played_at]),
            np.array([pair[0]], dtype=np.int64),
            np.array([pair[1]], dtype=np.int64),
            np.array([game.a_won]),
        )
        deviations = ledger.column("deviation")
        loser_deviation = out[0][3] if game.a_won else out[0][1]
        for number in set(pair):
            confirmed = ledger.column("confirmations")[number] >= params.ranked_min_opponents
            if not _unchanged(peaks[number], ledger.column("peak_value")[number]):
                assert deviations[number] < params.low_deviation
                assert confirmed
            if not _unchanged(bests[number], ledger.column("best_win_value")[number]):
                assert deviations[number] < params.low_deviation
                assert confirmed
                assert loser_deviation < params.low_deviation


def _unchanged(before: float, after: float) -> bool:
    return (math.isnan(before) and math.isnan(after)) or before == after


def test_a_newcomers_first_win_over_a_settled_player_is_not_its_best_win():
    """The case a player found: "best win 1465 ±100" on a 1-0 record at ±498."""
    params = GlickoParams()
    veteran, newcomer = PLAYERS[0], PLAYERS[1]
    ledger = RatingLedger(params=params)
    moment = START
    # The veteran settles against a third player, then loses once to the newcomer.
    for match_id in range(1, 40):
        moment += 60.0
        ledger.apply(Game(match_id, moment, veteran, 1, PLAYERS[2], 1, match_id % 2 == 0))
    assert ledger.ratings[(veteran, 1)].deviation < params.low_deviation
    ledger.apply(Game(100, moment + 60.0, newcomer, 1, veteran, 1, True))

    state = ledger.ratings[(newcomer, 1)]
    assert (state.wins, state.losses) == (1, 0)
    assert state.deviation >= params.low_deviation
    assert state.best_win_value is None
    assert state.best_win_opponent is None
