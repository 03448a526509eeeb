"""Elo against hand-computed cases."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.ratings.elo import Elo

# E(1600 vs 1400) = 1 / (1 + 10^-0.5) = 0.759747; E(2400 vs 2000) = 1 / 1.1 = 0.909091;
# E(1500 vs 1600) = 1 / (1 + 10^0.25) = 0.359935.
CASES = [
    (1500, 1500, 1.0, 1516.0, 1484.0),
    (1600, 1400, 1.0, 1607.6881, 1392.3119),  # 32 * 0.240253 = 7.6881
    (1600, 1400, 0.0, 1575.6881, 1424.3119),  # 32 * 0.759747 = 24.3119
    (1500, 1600, 0.5, 1504.4821, 1595.5179),  # 32 * 0.140065 = 4.4821
]


@pytest.mark.parametrize(("a", "b", "score", "a_after", "b_after"), CASES)
def test_hand_computed_games(a, b, score, a_after, b_after):
    assert Elo().update(a, b, score, 0.0) == pytest.approx((a_after, b_after), abs=1e-4)


def test_expected_score():
    elo = Elo()
    assert elo.expected_score(1600, 1400, 0.0) == pytest.approx(0.759747, abs=1e-6)
    assert elo.expected_score(1400, 1400, 0.0) == 0.5
    assert elo.expected_score(2000, 1600, 0.0) == pytest.approx(10 / 11)


def test_tiered_k():
    elo = Elo(tiers=((2100, 24), (2400, 16)))
    assert [elo.k_for(r) for r in (1000, 2099.9, 2100, 2399, 2400, 3000)] == [
        32,
        32,
        24,
        24,
        16,
        16,
    ]
    # 2400 (K 16) beats 2000 (K 32): each side moves by its own K * 0.090909.
    assert elo.update(2400, 2000, 1.0, 0.0) == pytest.approx((2401.4545, 1997.0909), abs=1e-4)


def test_tiers_must_ascend():
    with pytest.raises(ValueError, match="ascending"):
        Elo(tiers=((2400, 16), (2100, 24)))


def test_other_k_and_initial_rating():
    elo = Elo(k=10, initial_rating=1200)
    assert elo.initial() == 1200
    assert elo.update(1200, 1200, 1.0, 0.0) == (1205, 1195)
    assert elo.display(1234.5) == 1234.5


@given(st.floats(0, 3000), st.floats(0, 3000), st.sampled_from([0.0, 0.5, 1.0]))
def test_constant_k_is_zero_sum(a, b, score):
    new_a, new_b = Elo().update(a, b, score, 0.0)
    assert new_a + new_b == pytest.approx(a + b)
    assert abs(new_a - a) <= 32
