"""Reads of profile ownership: who a browser is signed in as, linked accounts."""

from __future__ import annotations

from players.models import Ownership, Player


def ownership_of(player_id: str) -> Ownership | None:
    return Ownership.objects.filter(player_id=player_id).select_related("player").first()


def also_plays_as(player_id: str) -> list[Player]:
    """The other public accounts linked to this player's by their owner, by name (one
    query: the profile page reads it)."""
    person = Ownership.objects.filter(player_id=player_id, person__isnull=False).values("person")
    return list(
        Player.objects.visible()
        .filter(ownership__person__in=person)
        .exclude(id=player_id)
        .order_by("name", "id")
    )


def linked_accounts(ownership: Ownership) -> list[Player]:
    """Every other account linked to this one, private or not (for its owner)."""
    if ownership.person is None:
        return []
    return list(
        Player.objects.filter(ownership__person=ownership.person)
        .exclude(id=ownership.player_id)
        .order_by("name", "id")
    )
