"""Coordinate search with golden-section steps (the tuner's optimiser)."""

from __future__ import annotations

import math

import pytest

from matches.ratings.coordinate_search import Dimension, coordinate_search, golden_section


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


def test_later_rounds_refine_a_narrow_bracket_around_the_current_value():
    calls = []

    def loss(point) -> float:
        calls.append(dict(point))
        return (point["x"] - 0.37) ** 2 + (point["y"] - 0.62) ** 2 + point["x"] * point["y"]

    result = coordinate_search(
        loss,
        {"x": 0.5, "y": 0.5},
        [Dimension("x", 0.0, 1.0), Dimension("y", 0.0, 1.0)],
        rounds=3,
        line_evaluations=12,
        refine_width=0.2,
        refine_evaluations=8,
        tolerance=0.0,
    )
    first_round, refinements = calls[1:25], calls[25:]
    assert len(refinements) == 2 * 2 * 8
    # The first round brackets the whole range (its first calls at 0.382 and 0.618)...
    assert [c["x"] for c in first_round[:2]] == pytest.approx([0.382, 0.618], abs=1e-3)
    # ...and each later line search stays within a bracket 0.2 wide.
    for line in range(4):
        name = "xy"[line % 2]
        values = [c[name] for c in refinements[8 * line : 8 * line + 8]]
        assert max(values) - min(values) <= 0.2
    # The minimum of this coupled bowl: x = (2 * 0.37 - 0.62) / 1.5, y = 0.62 - x / 2.
    assert result.best["x"] == pytest.approx(0.08, abs=0.01)
    assert result.best["y"] == pytest.approx(0.58, abs=0.01)
    assert result.evaluations == 1 + 2 * 12 + 2 * 2 * 8


def test_a_dimension_that_changes_nothing_is_searched_once():
    result = coordinate_search(
        lambda point: (point["x"] - 0.3) ** 2 + 1e-9 * point["flat"],
        {"x": 0.5, "flat": 0.5},
        [Dimension("x", 0.0, 1.0), Dimension("flat", 0.0, 1.0)],
        rounds=3,
        line_evaluations=10,
        tolerance=1e-6,
    )
    assert result.rounds == 2  # the second round gains less than the tolerance
    assert result.evaluations == 1 + 2 * 10 + 10  # "flat" only in the first round
    assert result.best["x"] == pytest.approx(0.3, abs=0.02)
