"""Rank tiers: the pure math, and the tiers from settings with the defaults."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from hypothesis import given
from hypothesis import strategies as st

from players.formatting import rating_text
from players.tiers import (
    DEFAULT_TIERS,
    parse_tiers,
    rank_tier,
    rating_tiers,
    tier_for,
    tier_ranges,
)


def test_the_default_tiers_apply_when_none_are_configured(settings):
    settings.RATING_TIERS = []
    assert rating_tiers() == DEFAULT_TIERS
    assert rank_tier(900) == "Bronze"
    assert rank_tier(1399.4) == "Bronze"
    assert rank_tier(1399.9) == "Silver"  # shown as 1400
    assert rank_tier(1400) == "Silver"
    assert rank_tier(1650) == "Gold"
    assert rank_tier(2600) == "Master"


def test_configured_tiers_replace_the_defaults(settings):
    settings.RATING_TIERS = ["0:Rookie", "1500: Pro ", "1800:Legend"]
    assert rating_tiers() == ((0.0, "Rookie"), (1500.0, "Pro"), (1800.0, "Legend"))
    assert rank_tier(-50) == "Rookie"  # the lowest tier takes every lower rating
    assert rank_tier(1499) == "Rookie"
    assert rank_tier(1500) == "Pro"
    assert rank_tier(1900) == "Legend"


def test_rank_tier_follows_a_change_of_the_setting(settings):
    settings.RATING_TIERS = ["0:Low", "1500:High"]
    assert rank_tier(1600) == "High"
    settings.RATING_TIERS = ["0:Low", "1700:High"]
    assert rank_tier(1600) == "Low"
    settings.RATING_TIERS = ["1700:High", "0:Low"]
    with pytest.raises(ImproperlyConfigured, match="strictly ascending"):
        rank_tier(1600)


def test_tiers_can_be_switched_off(settings):
    settings.RATING_TIERS = ["off"]
    assert rating_tiers() == ()
    assert rank_tier(1500) is None


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["1400"], "expected minimum:name"),
        (["1400:"], "expected minimum:name"),
        (["gold:Gold"], "could not convert"),
        (["1600:Gold", "1400:Silver"], "strictly ascending"),
    ],
)
def test_malformed_tiers_fail_loudly(items, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        parse_tiers(items)


def test_tiers():
    assert tier_for(900) == "Bronze"
    assert tier_for(1400) == "Silver"
    assert tier_for(1599.4) == "Silver"
    assert tier_for(1599.9) == "Gold"  # shown as 1600
    assert tier_for(2500) == "Master"
    assert DEFAULT_TIERS[0] == (float("-inf"), "Bronze")
    custom = ((1000.0, "Low"), (1500.0, "High"))
    assert tier_for(500, custom) == "Low"
    assert tier_for(1500, custom) == "High"
    with pytest.raises(ValueError, match="ascending"):
        tier_for(1500, ((1500.0, "High"), (1000.0, "Low")))
    with pytest.raises(ValueError, match="tier"):
        tier_for(1500, ())


def test_tier_ranges_give_each_tier_its_span():
    tiers = ((0.0, "Rookie"), (1500.0, "Pro"), (1800.0, "Legend"))
    assert tier_ranges(tiers) == [
        ("Rookie", None, 1500.0),
        ("Pro", 1500.0, 1800.0),
        ("Legend", 1800.0, None),
    ]
    assert tier_ranges(((1000.0, "All"),)) == [("All", None, None)]
    assert tier_ranges(()) == []


@given(
    boundary=st.sampled_from([minimum for minimum, _ in DEFAULT_TIERS[1:]]),
    offset=st.floats(-1.5, 1.5, allow_nan=False),
)
def test_the_tier_is_the_tier_of_the_number_shown_beside_it(boundary, offset):
    """Rankings row #19 read "1800 ±123 Gold": 1799.95 is shown as 1800, which is Platinum."""
    value = boundary + offset
    shown = float(rating_text(value, 60.0).split()[0])
    assert rank_tier(value) == tier_for(shown)
    assert tier_for(value) == tier_for(shown)  # the pure function decides alike
    assert rank_tier(1799.95) == "Platinum" and rank_tier(1799.49) == "Gold"
