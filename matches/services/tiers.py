"""Rank tiers for display: a named tier beside a rating is friendlier than a raw number.

settings.RATING_TIERS holds the environment's "minimum:name" items, ascending, e.g.
``["0:Bronze", "1400:Silver", "1600:Gold"]``; the first tier also takes every rating
below its minimum.  Empty means matches.ratings.matchmaking.DEFAULT_TIERS, and
``["off"]`` shows no tiers.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from matches.ratings.base import ascending_steps
from matches.ratings.matchmaking import DEFAULT_TIERS, tier_for

Tiers = tuple[tuple[float, str], ...]


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
        return ascending_steps(tiers)
    except ValueError as error:
        raise ImproperlyConfigured(f"RATING_TIERS: {error}") from None


def rating_tiers() -> Tiers:
    """The configured tiers, lowest first; empty when tiers are off."""
    return parse_tiers(settings.RATING_TIERS)


def rank_tier(value: float) -> str | None:
    """The tier name to show beside a rating value, or None when tiers are off."""
    tiers = rating_tiers()
    return tier_for(value, tiers) if tiers else None
