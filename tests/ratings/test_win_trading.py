"""The ring test's math (matches.ratings.win_trading) against independent computations."""

from __future__ import annotations

import itertools
import math

import pytest

from matches.ratings.win_trading import (
    PairGame,
    PairRecord,
    PairSide,
    RingTest,
    delifted_chances,
    expected_meetings,
    is_candidate,
    pair_side,
    record_probability,
    ring_suspicions,
)


@pytest.mark.parametrize(("games", "wins", "chance"), [(20, 14, 0.5), (30, 29, 0.7), (5, 0, 0.3)])
def test_record_probability_is_the_binomial_tail_when_chances_are_equal(games, wins, chance):
    tail = sum(
        math.comb(games, k) * chance**k * (1 - chance) ** (games - k)
        for k in range(wins, games + 1)
    )
    assert record_probability([chance] * games, wins) == pytest.approx(tail, rel=1e-12)


def test_record_probability_with_unequal_chances_counts_every_way_to_win():
    chances = [0.2, 0.5, 0.9, 0.35]
    for wins in range(6):
        exact = sum(
            math.prod(c if won else 1 - c for c, won in zip(chances, outcome, strict=True))
            for outcome in itertools.product((False, True), repeat=len(chances))
            if sum(outcome) >= wins
        )
        assert record_probability(chances, wins) == pytest.approx(exact, abs=1e-15)


def game(n: int, change: float = 10.0, days: float = 0.0, chance: float = 0.5) -> PairGame:
    return PairGame(n, days * 86400, True, chance, change, -change)


def test_the_pairs_earlier_games_are_taken_out_of_the_chances_and_fade():
    # Three games at the same moment, A lifted 20 points (10 each side) by each.
    chances = delifted_chances([game(1), game(2), game(3)], half_life_days=15)
    shift = math.log(10) / 400
    assert chances[0] == pytest.approx(0.5)
    assert chances[1] == pytest.approx(1 / (1 + math.exp(20 * shift)))
    assert chances[2] == pytest.approx(1 / (1 + math.exp(40 * shift)))
    # Fifteen days later half the lift is left.
    later = delifted_chances([game(1), game(2, days=15)], half_life_days=15)
    assert later[1] == pytest.approx(1 / (1 + math.exp(10 * shift)))


def test_an_unsettled_ratings_big_change_counts_as_lift_only_up_to_a_settled_games():
    # Two fresh accounts' first meeting moves each 160 points: the rating finding its
    # level, not a lift; it counts as at most what a game moves a settled rating.
    most = math.log(10) / 400 * 75**2
    first = PairGame(1, 0.0, True, 0.5, 250.0, -160.0)
    chances = delifted_chances([first, game(2)], half_life_days=15, settled_deviation=75)
    assert chances[1] == pytest.approx(1 / (1 + math.exp(2 * most * math.log(10) / 400)))
    # A settled game's change is taken out whole.
    assert delifted_chances([game(1), game(2)], 15, 75)[1] == pytest.approx(
        1 / (1 + math.exp(20 * math.log(10) / 400))
    )


# An honest pair of a simulated league (seed 3 of bench/integrity_rings.py): hours since
# the first game, the chance shown to A, both changes. Both accounts were new at their
# first meeting; A, far stronger, won all 29 games at about the chances its rating gave.
HONEST_PAIR = [
    (0.0, 0.500, 162.2, -162.2), (19.0, 0.820, 26.9, -14.8), (23.0, 0.838, 71.9, -10.0),
    (36.6, 0.799, 18.8, -13.1), (36.6, 0.818, 15.9, -11.3), (48.7, 0.859, 11.0, -6.4),
    (48.8, 0.868, 9.8, -5.9), (48.9, 0.875, 8.9, -5.5), (144.2, 0.876, 5.8, -1.9),
    (188.0, 0.882, 5.5, -1.3), (188.1, 0.885, 5.2, -1.3), (188.2, 0.887, 5.0, -1.2),
    (188.4, 0.890, 4.7, -1.2), (188.5, 0.892, 4.5, -1.2), (333.9, 0.875, 23.9, -0.9),
    (902.9, 0.910, 3.5, -1.0), (903.0, 0.912, 3.3, -1.0), (903.1, 0.913, 3.2, -1.0),
    (903.1, 0.914, 3.1, -1.0), (903.2, 0.916, 3.0, -1.0), (1027.5, 0.912, 2.6, -1.0),
    (1721.9, 0.798, 18.9, -2.6), (1722.0, 0.812, 16.3, -2.5), (1722.1, 0.823, 14.3, -2.3),
    (1722.2, 0.833, 12.7, -2.2), (1978.0, 0.937, 0.9, -0.7), (2010.6, 0.937, 0.9, -0.7),
    (2010.7, 0.937, 0.9, -0.7), (2010.7, 0.937, 0.8, -0.7),
]  # fmt: skip


def suspects(record: PairRecord, games: list[PairGame], test: RingTest) -> list:
    """The ring test of one pair, as find_rings runs it."""
    side = pair_side(record, games, test)
    return ring_suspicions([side] if side else [], test)


def test_an_honest_pair_that_met_first_as_new_accounts_is_not_suspect():
    games = [
        PairGame(n, hours * 3600, True, chance, change_a, change_b)
        for n, (hours, chance, change_a, change_b) in enumerate(HONEST_PAIR)
    ]
    test = RingTest(min_games=15, min_share=0.7, frequency=60, probability=1e-6)
    assert suspects(record(29, 29), games, test) == []
    # Its first games' changes taken out whole (hundreds of points of lift) flagged it.
    whole = RingTest(min_games=15, min_share=0.7, frequency=60, settled_deviation=1e9)
    assert len(suspects(record(29, 29), games, whole)) == 1


def record(games: int, a_wins: int, activity: int = 100, everyone: int = 100_000) -> PairRecord:
    return PairRecord("1", "2", games, a_wins, activity, activity, everyone)


def test_a_candidate_meets_often_for_its_activity_with_one_sided_results():
    test = RingTest(min_games=15, min_share=0.7, frequency=60)
    assert expected_meetings(record(20, 18)) == pytest.approx(0.05)
    assert is_candidate(record(20, 18), test)
    assert is_candidate(record(20, 2), test)  # B's side won
    assert not is_candidate(record(14, 14), test)  # too few
    assert not is_candidate(record(20, 13), test)  # mixed results
    assert not is_candidate(record(20, 18, everyone=1_000), test)  # as often as activity says


def test_the_beneficiary_is_the_side_lifted_and_a_ring_gathers_its_pairs():
    test = RingTest(min_games=15, min_share=0.7, frequency=60, probability=1e-6)
    thrown = [PairGame(n, n * 3600.0, False, 0.5, -8.0, 8.0) for n in range(30)]
    side = pair_side(record(30, 0), thrown, test)
    assert side is not None and (side.beneficiary, side.partner) == ("2", "1")
    assert side.wins == 30 and sum(side.chances) < 15
    honest = [PairGame(n, n * 3600.0, n % 10 < 8, 0.8, 3.0, -3.0) for n in range(30)]
    assert suspects(record(30, 24), honest, test) == []  # won as often as rated
    assert pair_side(record(14, 14), thrown[:14], test) is None  # no candidate

    other = PairSide("2", "3", 2, (0.5, 0.5), (100, 101))
    (ring,) = ring_suspicions([side, other], test)
    assert (ring.player, ring.partners) == ("2", ("1", "3"))
    assert (ring.games, ring.wins) == (32, 32)
    assert ring.expected_wins == pytest.approx(sum(side.chances) + 1.0)
    assert ring.probability == pytest.approx(math.prod(side.chances) * 0.25)
    assert ring.match_ids == tuple(sorted([*range(30), 100, 101]))


def test_a_ring_is_read_as_one_record_over_its_pairs():
    # Two partners each throw 16 of 20 games at even chances: neither pair is improbable
    # enough alone (about 6e-3), the ring's 32 of 40 is (about 9e-5, under this threshold).
    test = RingTest(min_games=15, min_share=0.7, frequency=60, probability=1e-4)
    sides = [
        PairSide("1", partner, 16, (0.5,) * 20, tuple(range(n * 20, n * 20 + 20)))
        for n, partner in enumerate(("2", "3"))
    ]
    binomial_tail = sum(math.comb(20, k) for k in range(16, 21)) / 2**20
    assert binomial_tail > test.probability
    assert all(ring_suspicions([side], test) == [] for side in sides)
    (ring,) = ring_suspicions(sides, test)
    pooled = sum(math.comb(40, k) for k in range(32, 41)) / 2**40
    assert ring.probability == pytest.approx(pooled) and pooled < test.probability
    assert (ring.player, set(ring.partners), ring.wins, ring.games) == ("1", {"2", "3"}, 32, 40)
    # A frequent partner beaten as often as rated would dilute the record: it stays out.
    honest = PairSide("1", "4", 12, (0.6,) * 20, tuple(range(40, 60)))
    (same,) = ring_suspicions([honest, *sides], test)
    assert (set(same.partners), same.games, same.probability) == ({"2", "3"}, 40, ring.probability)
