"""On a simulated league, ratings recover the hidden skills (issue 2: Spearman >= 0.9)."""

from __future__ import annotations

import pytest

from matches.ratings.glicko import DEFAULT_PARAMS
from matches.ratings.ledger import RatingLedger
from matches.simulation.league import LeagueSimulator, as_game


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        result = [0.0] * len(values)
        start = 0
        while start < len(order):
            end = start
            while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
                end += 1
            for position in range(start, end + 1):
                result[order[position]] = (start + end) / 2
            start = end + 1
        return result

    rx, ry = ranks(xs), ranks(ys)
    mean = (len(xs) - 1) / 2
    covariance = sum((a - mean) * (b - mean) for a, b in zip(rx, ry, strict=True))
    spread_x = sum((a - mean) ** 2 for a in rx) ** 0.5
    spread_y = sum((b - mean) ** 2 for b in ry) ** 0.5
    return covariance / (spread_x * spread_y)


def test_spearman_helper_on_known_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)


@pytest.mark.slow
def test_ratings_rank_players_like_their_hidden_skills_on_200k_games():
    league = LeagueSimulator(players=2000, seed=11)
    ledger = RatingLedger(params=DEFAULT_PARAMS)
    for number, replay in enumerate(league.games(200_000)):
        ledger.apply(as_game(number, replay))
    skills = league.true_skills()
    pairs = [
        (state.value, skills[key])
        for key, state in ledger.ratings.items()
        if state.deviation < DEFAULT_PARAMS.low_deviation
    ]
    assert len(pairs) > 1500
    correlation = spearman([value for value, _ in pairs], [skill for _, skill in pairs])
    assert correlation >= 0.9, correlation
