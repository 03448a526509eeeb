"""The early-surprise test for alternate accounts and its fast track, in the pure ledger
(docs/integrity.md)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from matches.ratings.glicko import GlickoParams
from matches.ratings.integrity import SuspicionKind, record_probability
from matches.ratings.ledger import Game, RatingLedger, RatingState

PARAMS = GlickoParams(one_chance=True, update_damping=0.3)
FAST = replace(PARAMS, fast_track_deviation=200.0)
GIVING = replace(FAST, give_back=True)
EARLY = replace(FAST, early_fast_track_games=9, early_fast_track_deviation=250.0)
OPPONENTS = [f"opponent{n:02d}" for n in range(30)]


def _ledger(params: GlickoParams) -> RatingLedger:
    """Thirty settled opponents rated 1500 on character 1."""
    ledger = RatingLedger(params=params)
    for player in OPPONENTS:
        ledger.ratings[(player, 1)] = RatingState(1500.0, 60.0)
    return ledger


def _play(ledger: RatingLedger, newcomer: str, wins: list[bool]) -> list:
    """The newcomer meets the opponents in turn, a minute apart."""
    results = []
    for number, won in enumerate(wins):
        opponent = OPPONENTS[number % len(OPPONENTS)]
        game = Game(number, 1.7e9 + 60 * number, newcomer, 1, opponent, 1, won)
        results.append(ledger.apply(game))
    return results


def test_a_newcomer_who_keeps_beating_settled_players_is_flagged_with_evidence():
    ledger = _ledger(PARAMS)
    _play(ledger, "alt", [True] * 30)

    [suspicion] = ledger.take_suspicions()
    assert (suspicion.kind, suspicion.player, suspicion.character) == (
        SuspicionKind.ALTERNATE_ACCOUNT,
        "alt",
        1,
    )
    # Flagged as soon as the record crossed the threshold, well inside the window.
    assert suspicion.wins == suspicion.games < 30
    assert suspicion.expected_wins == pytest.approx(0.5 * suspicion.games, rel=0.1)
    assert suspicion.probability < 1e-4
    assert ledger.take_suspicions() == []  # taken once


def test_an_ordinary_newcomer_is_not_flagged():
    ledger = _ledger(PARAMS)
    outcomes = random.Random(3)
    _play(ledger, "honest", [outcomes.random() < 0.5 for _ in range(30)])
    assert ledger.take_suspicions() == []
    state = ledger.ratings[("honest", 1)]
    assert 0 < state.surprise_games <= 30
    assert (
        record_probability(state.surprise_wins, state.surprise_expected, state.surprise_information)
        > 1e-3
    )


def test_the_test_reads_only_games_within_the_window():
    ledger = _ledger(replace(PARAMS, surprise_window=5))
    _play(ledger, "late", [False] * 5 + [True] * 25)
    assert ledger.take_suspicions() == []
    assert ledger.ratings[("late", 1)].surprise_games == 5


def test_the_fast_track_takes_the_account_up_sooner_and_spares_its_opponents():
    wins = [True] * 40
    slow, fast = _ledger(PARAMS), _ledger(FAST)
    slow_results, fast_results = _play(slow, "alt", wins), _play(fast, "alt", wins)

    assert fast.ratings[("alt", 1)].value > slow.ratings[("alt", 1)].value + 100
    # Held at the floor while it kept surprising, where the plain update had narrowed it.
    assert fast_results[15].new_deviation_a == pytest.approx(200.0)
    assert slow_results[15].new_deviation_a < 150.0

    def lost(results) -> float:
        return -sum(result.change_b for result in results)

    assert lost(fast_results) < 0.7 * lost(slow_results)
    # Before its test stands at the fast track's threshold, the account is rated as
    # any other: the first games are the same with and without.
    assert fast_results[0] == slow_results[0]


def test_the_floor_holds_only_within_the_tests_window():
    # Past the window a rating's recent surprise crosses the margin by chance at its
    # level; a floor put back each time threw the value about. Its opponents are still
    # spared while it keeps surprising.
    ledger = _ledger(replace(FAST, surprise_window=20))
    results = _play(ledger, "alt", [True] * 30)
    state = ledger.ratings[("alt", 1)]

    assert state.fast_tracked(ledger.params)
    assert results[19].new_deviation_a == pytest.approx(200.0)
    deviations = [result.new_deviation_a for result in results[20:]]
    assert deviations == sorted(deviations, reverse=True)
    assert deviations[-1] < 150.0
    assert all(result.change_b == 0.0 for result in results[20:])


def test_the_fast_track_leaves_an_ordinary_newcomer_alone():
    outcomes = random.Random(5)
    wins = [outcomes.random() < 0.5 for _ in range(60)]
    slow, fast = _ledger(PARAMS), _ledger(FAST)
    assert _play(slow, "honest", wins) == _play(fast, "honest", wins)


def test_the_early_stage_keeps_a_winning_start_wide_for_its_first_games():
    wins = [True] * 12
    flagged_only, early = _ledger(FAST), _ledger(EARLY)
    plain_results, early_results = _play(flagged_only, "alt", wins), _play(early, "alt", wins)

    # A win against an even opponent puts the test one standard deviation up at once;
    # held through its first nine counted games, then left to narrow. The plain update
    # narrows from the first game on.
    assert [r.new_deviation_a for r in early_results[:9]] == pytest.approx([250.0] * 9)
    assert early_results[9].new_deviation_a < 240.0
    assert plain_results[2].new_deviation_a < 210.0
    # Each win moved it further: after nine it stands well above the plain climb.
    assert early_results[8].new_value_a > plain_results[8].new_value_a + 80.0


def test_the_early_stage_lets_go_when_the_results_stop_beating_the_start():
    early = _ledger(EARLY)
    results = _play(early, "honest", [True, False, True, False])
    # One win up, then a loss: the record is back at its expectation.
    assert results[0].new_deviation_a == pytest.approx(250.0)
    assert results[1].new_deviation_a < 230.0
    assert not early.ratings[("honest", 1)].early_fast_tracked(early.params)


def test_a_start_that_does_not_beat_its_chances_is_rated_as_without_the_early_stage():
    wins = [False, True, False, True, False, False, True, True, False, True, True]
    flagged_only, early = _ledger(FAST), _ledger(EARLY)
    assert _play(flagged_only, "honest", wins) == _play(early, "honest", wins)


def test_the_early_stage_needs_the_fast_track():
    wins = [True] * 5
    off = replace(EARLY, fast_track_deviation=0.0)
    assert _play(_ledger(off), "alt", wins) == _play(_ledger(PARAMS), "alt", wins)


def test_at_the_flag_the_opponents_get_back_what_its_games_took():
    giving = _ledger(GIVING)
    results = _play(giving, "alt", [True] * 30)  # each opponent met once
    [suspicion] = giving.take_suspicions()
    flagged_at = suspicion.games - 1  # every game so far was read (settled, even start)
    young = results[: flagged_at + 1]
    # Each opponent of the games up to the flag is back where it started.
    for number, result in enumerate(young):
        assert giving.ratings[(OPPONENTS[number], 1)].value == pytest.approx(1500.0)
        assert result.change_b < 0  # the game itself took points, the flag returned them
    assert giving.given_back[("alt", 1)] == pytest.approx(-sum(r.change_b for r in young))
    assert ("alt", 1) not in giving.young_games  # nothing kept once flagged
    # With the fast track alone nothing is given back, nor kept.
    fast = _ledger(FAST)
    _play(fast, "alt", [True] * 30)
    assert fast.given_back == {} and fast.young_games == {}
    assert fast.ratings[(OPPONENTS[0], 1)].value < 1500.0


def test_an_ordinary_newcomers_games_are_dropped_after_the_window():
    giving = _ledger(GIVING)
    outcomes = random.Random(5)
    _play(giving, "honest", [outcomes.random() < 0.5 for _ in range(29)])
    assert len(giving.young_games[("honest", 1)]) == 29
    _play(giving, "honest", [True])  # the thirtieth counted game
    assert ("honest", 1) not in giving.young_games and giving.given_back == {}
