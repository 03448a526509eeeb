"""Match quality, opponent suggestions and league pairing."""

import random
import statistics
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings import glicko
from matches.ratings.base import GlickoState
from matches.ratings.matchmaking import (
    fairest_opponents,
    match_quality_glicko,
    match_quality_trueskill,
    pair_round,
)
from matches.ratings.trueskill import TrueSkillState

glicko_states = st.builds(GlickoState, st.floats(800, 2600), st.floats(25, 350))


def test_glicko_quality():
    even = GlickoState(1500, 100)
    assert match_quality_glicko(even, GlickoState(1500, 300)) == 1.0
    p = glicko.win_probability(1700, 80, 1500, 200)
    assert match_quality_glicko(GlickoState(1700, 80), GlickoState(1500, 200)) == pytest.approx(
        1 - 2 * (p - 0.5)
    )
    assert match_quality_glicko(GlickoState(2600, 30), GlickoState(1000, 30)) < 1e-3


@given(glicko_states, glicko_states)
def test_glicko_quality_is_symmetric_and_bounded(a, b):
    quality = match_quality_glicko(a, b)
    assert 0 <= quality <= 1
    assert quality == pytest.approx(match_quality_glicko(b, a))


def test_trueskill_quality_is_the_draw_probability_quality():
    new = TrueSkillState(25, 25 / 3)
    assert match_quality_trueskill(new, new) == pytest.approx(0.447, abs=1e-3)
    assert match_quality_trueskill(new, TrueSkillState(50, 12.5)) == pytest.approx(0.110, abs=1e-3)


def test_fairest_opponents_prefers_even_games_then_known_ratings():
    target = GlickoState(1600, 60)
    same_rating_unsure = GlickoState(1600, 300)
    same_rating_sure = GlickoState(1600, 40)
    close = GlickoState(1620, 50)
    far = GlickoState(2100, 50)
    candidates = [far, same_rating_unsure, target, close, same_rating_sure]
    assert fairest_opponents(target, candidates, 3) == [
        same_rating_sure,
        same_rating_unsure,
        close,
    ]
    assert fairest_opponents(target, candidates, 10)[-1] == far
    assert fairest_opponents(target, [], 3) == []


def test_fairest_opponents_weigh_both_deviations():
    target = GlickoState(1600, 50)
    # 150 points below with a huge deviation is nearer a coin flip than 120 with a small one.
    unsure = GlickoState(1450, 350)
    sure = GlickoState(1480, 25)
    assert fairest_opponents(target, [sure, unsure], 1) == [unsure]


def league(size, rounds, seed):
    rng = random.Random(seed)
    players = [GlickoState(rng.gauss(1500, 250), rng.uniform(40, 120)) for _ in range(size)]
    games = Counter()
    paired_quality = []
    random_quality = []
    for _ in range(rounds):
        pairs = pair_round(players, games, match_quality_glicko, rng)
        assert len(pairs) == size // 2
        in_round = [player for pair in pairs for player in pair]
        assert len(set(map(id, in_round))) == len(in_round)
        for a, b in pairs:
            games[a] += 1
            games[b] += 1
            paired_quality.append(match_quality_glicko(a, b))
        shuffled = players[:]
        rng.shuffle(shuffled)
        random_quality.extend(
            match_quality_glicko(a, b) for a, b in zip(shuffled[::2], shuffled[1::2], strict=False)
        )
    return players, games, statistics.mean(paired_quality), statistics.mean(random_quality)


@pytest.mark.parametrize("size", [2, 9, 20, 31])
def test_pairing_keeps_game_counts_level(size):
    players, games, _, _ = league(size, rounds=300, seed=size)
    counts = [games[player] for player in players]
    assert max(counts) - min(counts) <= 2
    assert sum(counts) == 300 * (size // 2) * 2


def test_pairing_beats_random_pairing_on_quality():
    _, _, paired, random_pairs = league(31, rounds=300, seed=1)
    assert paired > random_pairs + 0.1


def test_pairing_with_zero_quality_is_uniform():
    rng = random.Random(3)
    players = list("abcd")
    partners = Counter()
    for _ in range(2000):
        pairs = pair_round(players, {"a": 0, "b": 5, "c": 5, "d": 5}, lambda a, b: 0.0, rng)
        assert pairs[0][0] == "a"
        partners[pairs[0][1]] += 1
    assert set(partners) == {"b", "c", "d"}
    assert min(partners.values()) > 550


def test_pairing_draws_in_proportion_to_quality():
    rng = random.Random(4)
    quality = {"b": 3.0, "c": 1.0}
    partners = Counter(
        pair_round(["a", "b", "c"], {"b": 1, "c": 1}, lambda a, b: quality[b], rng)[0][1]
        for _ in range(4000)
    )
    assert partners["b"] / 4000 == pytest.approx(0.75, abs=0.03)
