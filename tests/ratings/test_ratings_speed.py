"""The ratings benchmark times the loops that rate its schedule, and divides right."""

from __future__ import annotations

import itertools

import pytest

from bench import ratings_speed

SYSTEMS = [
    "glicko",
    "glicko2",
    "elo",
    "trueskill",
    "moonstone",
    "glicko2 (PyPI)",
    "trueskill (PyPI)",
]


def test_every_loop_rates_the_games_of_its_schedule():
    # Player 0 always beats 1; player 2 always loses to 3 (scores from the first side).
    schedule = [(0, 1, 1.0, 1.7e9 + 60.0 * n) for n in range(20)]
    schedule += [(2, 3, 0.0, 1.7e9 + 60.0 * n) for n in range(20)]
    loops = ratings_speed.loops(schedule, players=4)
    assert list(loops) == SYSTEMS
    for name, loop in loops.items():
        shown = loop()
        assert shown[0] > shown[1], name
        assert shown[3] > shown[2], name


def test_a_rate_is_the_games_over_the_seconds_its_loop_took(monkeypatch):
    ticks = itertools.count(step=0.25)  # every reading of the clock is a quarter second later
    monkeypatch.setattr(ratings_speed.time, "perf_counter", lambda: next(ticks))
    rates = ratings_speed.measure(300, players=20)
    assert list(rates) == SYSTEMS
    assert all(rate == pytest.approx(300 / 0.25) for rate in rates.values())
