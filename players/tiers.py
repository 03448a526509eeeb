"""Rank tiers for display: a named tier beside a rating is friendlier than a raw number.

The math (`tier_for`, `DEFAULT_TIERS`, `parse_tiers`) is plain Python; `rating_tiers`
and `rank_tier` adapt it to settings.RATING_TIERS, the environment's "minimum:name"
items, ascending, e.g. ``["0:Bronze", "1400:Silver", "1600:Gold"]``; the first tier also
takes every rating below its minimum. Empty means DEFAULT_TIERS, and ``["off"]`` shows
no tiers.

A tier is decided on the value as the site shows it (players.formatting.shown_value):
1799.95 reads "1800", so it is the tier of 1800, never a tier below the number beside it.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from players import rules
from players.formatting import shown_value

Tiers = tuple[tuple[float, str], ...]

DEFAULT_TIERS: Tiers = (
    (-math.inf, "Bronze"),
    (1400.0, "Silver"),
    (1600.0, "Gold"),
    (1800.0, "Platinum"),
    (2000.0, "Diamond"),
    (2200.0, "Master"),
)


def ascending_tiers(tiers: Sequence[tuple[float, str]]) -> Tiers:
    """The tiers as given, once their minimums are checked to be strictly ascending."""
    checked = tuple(tiers)
    minimums = [minimum for minimum, _ in checked]
    if any(low >= high for low, high in pairwise(minimums)):
        raise ValueError(f"thresholds must be strictly ascending, got {minimums}")
    return checked


def tier_for(rating: float, thresholds: Sequence[tuple[float, str]] = DEFAULT_TIERS) -> str:
    """The name of the highest tier whose minimum is at most `rating` as shown (rounded).

    `thresholds` are (minimum rating, name), ascending; the first tier also takes
    every rating below its minimum.
    """
    steps = ascending_tiers(thresholds)
    if not steps:
        raise ValueError("at least one tier is needed")
    return _name_at([minimum for minimum, _ in steps], [name for _, name in steps], rating)


def _name_at(minimums: Sequence[float], names: Sequence[str], rating: float) -> str:
    # bisect: the number of minimums at or below the number shown beside the tier.
    return names[max(bisect.bisect_right(minimums, shown_value(rating)) - 1, 0)]


def tier_ranges(tiers: Sequence[tuple[float, str]]) -> list[tuple[str, float | None, float | None]]:
    """(name, lowest rating or None, the next tier's minimum or None) for each tier,
    lowest first: the first tier has no lower end and the last no upper end."""
    steps = ascending_tiers(tiers)
    if not steps:
        return []
    uppers = [minimum for minimum, _ in steps[1:]] + [None]
    return [
        (name, None if index == 0 else minimum, upper)
        for index, ((minimum, name), upper) in enumerate(zip(steps, uppers, strict=True))
    ]


def parse_tiers(items: Sequence[str]) -> Tiers:
    """Tiers from "minimum:name" items; a malformed item or order fails loudly."""
    if not items:
        return DEFAULT_TIERS
    if list(items) == ["off"]:
        return ()
    tiers = []
    for item in items:
        minimum, separator, name = item.partition(":")
        try:
            if not separator or not name.strip():
                raise ValueError("expected minimum:name")
            tiers.append((float(minimum), name.strip()))
        except ValueError as error:
            raise ImproperlyConfigured(f"RATING_TIERS item {item!r}: {error}") from None
    try:
        return ascending_tiers(tiers)
    except ValueError as error:
        raise ImproperlyConfigured(f"RATING_TIERS: {error}") from None


def rating_tiers() -> Tiers:
    """The configured tiers, lowest first; empty when tiers are off."""
    return parse_tiers(settings.RATING_TIERS)


@lru_cache(maxsize=8)
def _parsed(items: tuple[str, ...]) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """The minimums and names of the tiers `items` configure."""
    tiers = parse_tiers(items)
    return tuple(minimum for minimum, _ in tiers), tuple(name for _, name in tiers)


def rank_tier(value: float) -> str | None:
    """The tier name to show beside a rating value (the tier of the value as shown), or
    None when tiers are off."""
    # Parsed once per setting: lists call this for each of a hundred rows.
    minimums, names = _parsed(tuple(settings.RATING_TIERS))
    return _name_at(minimums, names, value) if names else None


def settled_tier(value: float, deviation: float) -> str | None:
    """`rank_tier` for a rating a page shows with its ±: none beside a rating too
    unsettled to be ranked, whose value may be far from the player's strength."""
    return rank_tier(value) if rules.is_settled(deviation) else None
