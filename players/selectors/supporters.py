"""Supporters (`/supporters`): the players who support the site, by name."""

from __future__ import annotations

from django.db.models.functions import Lower

from players.models import Player


def supporters() -> list[Player]:
    """Visible players with the supporter flag, by name (case-insensitive), in one query."""
    return list(
        Player.objects.visible()
        .filter(supporter=True)
        .only("id", "name", "platform")
        .order_by(Lower("name"), "id")
    )
