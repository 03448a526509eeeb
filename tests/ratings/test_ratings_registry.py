"""Every registered system honours the lab interface the same way."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings.base import ContinuousGlicko, logistic, step_value
from matches.ratings.elo import Elo
from matches.ratings.registry import FACTORIES, create, create_many

NAMES = ["glicko", "glicko2", "elo", "trueskill", "moonstone"]
DAY = 86400.0


def test_registry_names():
    assert list(FACTORIES) == NAMES
    for name in NAMES:
        assert create(name).name == name


def test_create_passes_options_and_rejects_unknown_names():
    assert create("elo", k=16).k == 16
    assert create("glicko", apply_counting_rule=True).apply_counting_rule
    with pytest.raises(ValueError, match="glicko, glicko2"):
        create("chess")


def test_create_many():
    systems = create_many("glicko, elo,,moonstone")
    assert [system.name for system in systems] == ["glicko", "elo", "moonstone"]
    assert isinstance(systems[0], ContinuousGlicko) and isinstance(systems[1], Elo)
    assert [system.name for system in create_many(["trueskill"])] == ["trueskill"]


@pytest.mark.parametrize("name", NAMES)
def test_a_short_history(name):
    system = create(name)
    a = b = system.initial()
    assert system.expected_score(a, b, 0.0) == pytest.approx(0.5)
    for day in range(20):
        at = day * DAY
        p = system.expected_score(a, b, at)
        assert 0 < p < 1
        assert system.expected_score(b, a, at) == pytest.approx(1 - p)
        a, b = system.update(a, b, 1.0 if day % 4 else 0.0, at)
        assert type(a) is type(b) is type(system.initial())
    # A won three games in four: every system now favours A and ranks it higher.
    assert system.expected_score(a, b, 20 * DAY) > 0.5
    assert system.display(a) > system.display(b)


@given(st.floats(-5000, 5000), st.sampled_from([400.0, 200.0]))
def test_logistic(difference, scale):
    assert logistic(difference, scale) + logistic(-difference, scale) == pytest.approx(1.0)
    assert 0 <= logistic(difference, scale) <= 1


def test_logistic_never_overflows():
    assert logistic(1e9) == 1.0 and logistic(-1e9) == 0.0


def test_step_value():
    steps = ((10.0, "a"), (20.0, "b"))
    assert [step_value(x, steps, "-") for x in (5, 10, 15, 20, 99)] == ["-", "a", "a", "b", "b"]
