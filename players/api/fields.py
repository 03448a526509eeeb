"""Serializer fields for ratings and rank tiers, shared by every API view that shows a rating
(matches.api uses them too: matches may import players)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from players.formatting import rating_text, shown_name
from players.tiers import DEFAULT_TIERS, settled_tier


class ShownNameField(serializers.CharField):
    """A player's name as the site shows it (players.formatting.shown_name): without the
    invisible characters that could make it read as another."""

    def to_representation(self, value: str) -> str:
        return shown_name(value)


class RatingNumbersSerializer(serializers.Serializer):
    """Documents the shape RatingField writes."""

    value = serializers.FloatField(help_text="The rating (Glicko scale, 1500 to start).")
    deviation = serializers.FloatField(
        help_text="The rating deviation: how uncertain the value is (350 to start)."
    )
    display = serializers.CharField(
        help_text="The value and twice the deviation (a 95% interval), rounded, as shown on the "
        'site: "1834 ±142".'
    )


def _read(instance: Any, name: str) -> Any:
    return instance[name] if isinstance(instance, Mapping) else getattr(instance, name)


@extend_schema_field(RatingNumbersSerializer)
class RatingField(serializers.Field):
    """A rating read from two attributes or keys (`{prefix}value`, `{prefix}deviation`) of the
    instance or of its `source`, written as {"value", "deviation", "display"}; null when the
    value is."""

    def __init__(self, prefix: str = "", source: str = "*", **kwargs: Any) -> None:
        self.prefix = prefix
        super().__init__(source=source, read_only=True, **kwargs)

    def to_representation(self, instance: Any) -> dict[str, Any] | None:
        value = _read(instance, f"{self.prefix}value")
        if value is None:
            return None
        return rating_numbers(value, _read(instance, f"{self.prefix}deviation"))


def rating_numbers(value: float, deviation: float) -> dict[str, Any]:
    """What RatingField writes of a rating that has a value."""
    return {"value": value, "deviation": deviation, "display": rating_text(value, deviation)}


def _default_tiers() -> str:
    (_, lowest), *higher = DEFAULT_TIERS
    steps = ", ".join(f"{name} from {minimum:.0f}" for minimum, name in higher)
    return f"{lowest} below {higher[0][0]:.0f}, {steps}" if higher else lowest


@extend_schema_field(OpenApiTypes.STR)
class TierField(serializers.Field):
    """The rank tier (players.tiers.settled_tier) of the rating read as RatingField reads
    it (`{prefix}value`, `{prefix}deviation` of the instance or of its `source`): null
    beside a rating too unsettled to be ranked, as the pages show none there, and when
    the site shows no tiers."""

    def __init__(self, prefix: str = "", source: str = "*", **kwargs: Any) -> None:
        self.prefix = prefix
        kwargs.setdefault(
            "help_text",
            "The rating's rank tier, a name to show beside it, decided on the value as "
            "`display` shows it (rounded: 1799.95 shows as 1800, the tier of 1800). By default "
            f"{_default_tiers()}; a site may configure its own tiers, or none. Null when "
            "the site shows no tiers, and while the deviation is too wide for the rating "
            "to be ranked (the site's pages show no tier beside such a rating either).",
        )
        super().__init__(source=source, read_only=True, allow_null=True, **kwargs)

    def to_representation(self, instance: Any) -> str | None:
        value = _read(instance, f"{self.prefix}value")
        if value is None:
            return None
        return settled_tier(value, _read(instance, f"{self.prefix}deviation"))
