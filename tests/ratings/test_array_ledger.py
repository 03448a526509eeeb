"""The compiled ledger against the pure ledgers: every stored field, on random leagues."""

from __future__ import annotations

import math
from dataclasses import replace

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.ratings import array_ledger
from matches.ratings.array_ledger import RESULT_COLUMNS, ArrayLedger, offset_matrix
from matches.ratings.glicko import GlickoParams, decay
from matches.ratings.ledger import RATING_FIELDS, Game, MatchupLedger, RatingLedger

PLAYERS = [f"1000000000000000{n:02d}" for n in range(6)]
FAST_TRACK = GlickoParams(
    one_chance=True,
    low_deviation=250.0,
    surprise_min_games=2,
    surprise_threshold=0.5,
    surprise_window=8,
    fast_track_deviation=200.0,
    fast_track_margin=0.0,
    fast_track_threshold=0.2,
)
# Deviations fall below the low mark within a few games, and some lopsided games do not
# count: every rule gets exercised in short leagues.
PARAMS = [
    GlickoParams(),
    GlickoParams(low_deviation=250.0, counting_rms_deviation=200.0, counting_margin=0.3),
    GlickoParams(update_damping=0.1, decay_period_seconds=600.0, minimum_deviation=150.0),
    # One chance: flattened, with the matchup offsets below in both the chance and the update.
    GlickoParams(one_chance=True, update_damping=0.2),
    GlickoParams(one_chance=True, low_deviation=250.0, counting_margin=0.3),
    # Few players: confirmation (distinct settled opponents) within reach, and every rule
    # of it exercised (a repeat opponent, oneself, the minimum reached).
    GlickoParams(low_deviation=250.0, counting_margin=0.3, ranked_min_opponents=2),
    GlickoParams(low_deviation=250.0, counting_rms_deviation=200.0, ranked_min_opponents=3),
    GlickoParams(ranked_min_opponents=0),
    # The early-surprise test flagging after two games and the fast track holding the
    # deviation up: settled opponents after a few games, every rule reached.
    FAST_TRACK,
    # The same with the give-back: flagged ratings' opponents get their points back.
    replace(FAST_TRACK, give_back=True),
    # The early stage: a winning start held wide for its first games.
    replace(
        FAST_TRACK,
        early_fast_track_games=5,
        early_fast_track_threshold=0.3,
        early_fast_track_deviation=230.0,
        give_back=True,
    ),
]
# What character x is worth against y (characters 1 to 3; 2 against 3 has no estimate).
OFFSETS = {(1, 2): 35.0, (2, 1): -35.0, (1, 3): -80.0, (3, 1): 80.0}

game_steps = st.tuples(
    st.sampled_from(PLAYERS),
    st.integers(1, 3),
    st.sampled_from(PLAYERS),
    st.integers(1, 3),
    st.booleans(),
    # Seconds since the previous game: often the same moment, sometimes days.
    st.sampled_from([0.0, 1.5, 599.0, 3600.0, 7300.25, 86400.0 * 3]),
)


def _same(left: float | None, right: float) -> bool:
    if left is None:
        return math.isnan(right)
    return right == pytest.approx(left, abs=1e-9)


def _replay(steps, excluded, params, chunk):
    """Both ledgers over the same games; the compiled one in chunks of `chunk` games."""
    games, moment = [], 1.7e9
    for match_id, (pa, ca, pb, cb, a_won, gap) in enumerate(steps, start=1):
        moment += gap
        games.append(Game(match_id, moment, pa, ca, pb, cb, a_won))
    ledger = RatingLedger(params=params, excluded_players=frozenset(excluded), offsets=OFFSETS)
    matchups = MatchupLedger()
    results = []
    for game in games:
        results.append(ledger.apply(game))
        matchups.record(game, results[-1])

    numbers: dict = {}
    array_ledger = ArrayLedger(params, offset_matrix(OFFSETS))
    compiled_results, compiled_counted = [], []
    for start in range(0, len(games), chunk):
        part = games[start : start + chunk]
        new_keys = []
        pairs = []
        for game in part:
            pair = []
            for key in ((game.player_a, game.character_a), (game.player_b, game.character_b)):
                if key not in numbers:
                    numbers[key] = len(numbers)
                    new_keys.append(key)
                pair.append(numbers[key])
            pairs.append(pair)
        array_ledger.add(
            np.array([key[0] in excluded for key in new_keys], dtype=bool),
            np.array([key[1] for key in new_keys], dtype=np.int64),
            np.array([PLAYERS.index(key[0]) for key in new_keys], dtype=np.int64),
        )
        out, counted = array_ledger.apply(
            np.array([game.played_at for game in part]),
            np.array([pair[0] for pair in pairs], dtype=np.int64).reshape(-1),
            np.array([pair[1] for pair in pairs], dtype=np.int64).reshape(-1),
            np.array([game.a_won for game in part], dtype=bool),
        )
        compiled_results += list(out)
        compiled_counted += list(counted)
    return ledger, matchups, results, numbers, array_ledger, compiled_results, compiled_counted


@settings(max_examples=150, deadline=None)
@given(
    steps=st.lists(game_steps, min_size=1, max_size=60),
    excluded=st.sets(st.sampled_from(PLAYERS), max_size=2),
    params=st.sampled_from(PARAMS),
    chunk=st.integers(1, 25),
)
def test_the_compiled_ledger_gives_the_ledgers_numbers(steps, excluded, params, chunk):
    ledger, matchups, results, numbers, arrays, compiled_results, compiled_counted = _replay(
        steps, excluded, params, chunk
    )
    # Results per game.
    for result, row, counted in zip(results, compiled_results, compiled_counted, strict=True):
        assert result.counted == counted
        for name, value in zip(RESULT_COLUMNS, row, strict=True):
            assert _same(getattr(result, name), value), name
    # Ratings, numbered in order of first game like the ledger's dict.
    assert list(numbers) == list(ledger.ratings)
    by_number = list(numbers)
    confirming = arrays.confirming_players()
    for key, number in numbers.items():
        state = ledger.ratings[key]
        for name in RATING_FIELDS:
            expected = getattr(state, name)
            if name in ("best_win_opponent", "best_win_character"):
                beaten = int(arrays.best_win[number])
                got = None if beaten < 0 else by_number[beaten][name == "best_win_character"]
                assert got == expected, name
            elif name == "confirming_players":
                assert tuple(PLAYERS[n] for n in confirming[number]) == expected
            else:
                assert _same(expected, float(arrays.column(name)[number])), name
    # Snapshots and player matchup sums.
    snapshots = {
        (by_number[r], int(day)): (value, deviation)
        for r, day, value, deviation in zip(*arrays.snapshots(), strict=True)
    }
    assert snapshots.keys() == matchups.snapshots.keys()
    for key, pair in matchups.snapshots.items():
        assert snapshots[key] == pytest.approx(pair, abs=1e-9)
    sums = arrays.player_matchups()
    got = {
        ((by_number[r]), int(opponent)): (int(w), int(lost), e, i)
        for r, opponent, w, lost, e, i in zip(*sums, strict=True)
    }
    assert got.keys() == matchups.player_matchups.keys()
    for key, m in matchups.player_matchups.items():
        w, lost, e, i = got[key]
        assert (w, lost) == (m.wins, m.losses)
        assert e == pytest.approx(m.expected_wins, abs=1e-9)
        assert i == pytest.approx(m.information, abs=1e-9)


def test_the_array_ledger_is_compiled():
    assert isinstance(array_ledger._apply, numba.core.registry.CPUDispatcher)


@given(
    deviation=st.floats(20, 400),
    idle_seconds=st.floats(0, 3e7),
    params=st.sampled_from(PARAMS),
)
def test_decaying_arrays_is_glicko_decay(deviation, idle_seconds, params):
    last = 1.7e9
    got_deviation, got_last = array_ledger.decayed(
        np.array([deviation, deviation]), np.array([last, np.nan]), last + idle_seconds, params
    )
    assert (got_deviation[0], got_last[0]) == decay(deviation, last, last + idle_seconds, params)
    assert got_deviation[1] == deviation and math.isnan(got_last[1])  # never played: no decay


def test_the_compiled_ledger_follows_a_flagged_and_fast_tracked_rating():
    """One player beats everyone: the early-surprise test flags it and the fast track
    holds it, in both ledgers alike (the random leagues above may not reach that)."""
    params = PARAMS[-1]
    others = PLAYERS[1:]
    steps = [
        (PLAYERS[0], 1, others[n % len(others)], 1 + n % 3, n % 9 != 0, 60.0) for n in range(80)
    ] + [(others[n % 5], 2, others[(n + 1) % 5], 2, n % 2 == 0, 60.0) for n in range(40)]
    steps = steps[80:100] + steps[:80] + steps[100:]  # the others settle first
    ledger, _, results, numbers, arrays, compiled_results, _ = _replay(steps, set(), params, 7)
    strong = ledger.ratings[(PLAYERS[0], 1)]
    assert strong.surprise_flagged(params)
    assert any(r.new_deviation_a == params.fast_track_deviation for r in results)
    for result, row in zip(results, compiled_results, strict=True):
        for name, value in zip(RESULT_COLUMNS, row, strict=True):
            assert _same(getattr(result, name), value), name
    for key, number in numbers.items():
        for name in RATING_FIELDS:
            if name not in ("best_win_opponent", "best_win_character", "confirming_players"):
                expected = getattr(ledger.ratings[key], name)
                assert _same(expected, float(arrays.column(name)[number])), name
    assert arrays.surprise_flagged()[numbers[(PLAYERS[0], 1)]]
