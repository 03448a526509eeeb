"""Coordinate search with golden-section steps (the tuner's optimiser)."""

from __future__ import annotations

import math

import pytest

from matches.ratings.search import Dimension, coordinate_search, golden_section


def test_golden_section_brackets_the_minimum_by_0618_per_call():
    calls = []

    def loss(x: float) -> float:
        calls.append(x)
        return (x - 0.3) ** 2

    x, value = golden_section(loss, 0.0, 1.0, evaluations=20)
    assert len(calls) == 20
    assert x == pytest.approx(0.3, abs=0.618**18)
    assert value == loss(x)


def test_coordinate_search_finds_known_parameters_on_their_scales():
    truth = {"k": 24.0, "tau": 0.06}

    def loss(point) -> float:
        return (math.log(point["k"] / truth["k"])) ** 2 + 50 * (point["tau"] - truth["tau"]) ** 2

    result = coordinate_search(
        loss,
        {"k": 32.0, "tau": 0.5},
        [Dimension("k", 4.0, 96.0, log=True), Dimension("tau", 0.0, 1.0)],
        line_evaluations=30,
    )
    assert result.best["k"] == pytest.approx(24.0, rel=1e-3)
    assert result.best["tau"] == pytest.approx(0.06, abs=1e-3)
    assert result.loss < result.start_loss
    assert result.evaluations == 1 + result.rounds * 2 * 30


def test_the_start_is_kept_when_nothing_beats_it():
    result = coordinate_search(
        lambda point: abs(point["x"] - 0.5), {"x": 0.5}, [Dimension("x", 0.0, 1.0)]
    )
    assert result.best == {"x": 0.5} and result.loss == 0.0 and result.rounds == 1
