"""Operator edits that change what pages show invalidate the cached pages.

Hiding a player (who asked to opt out) or flagging a cheater happens in the admin,
through Model.save; ingestion writes players with bulk SQL and fires nothing here.
A flag that changes also rebuilds the character matchups, which leave out the games
of flagged players, so the next request no longer counts that player's games.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from matches.services.character_matchups import rebuild_character_matchups
from players.models import Player
from web.generation import bump_generation

_FLAGS = ("hidden", "cheater")


@receiver(pre_save, sender=Player, dispatch_uid="player-flags-before-save")
def remember_flags(sender: type[Player], instance: Player, **kwargs: Any) -> None:
    instance._flags_before = (
        Player.objects.filter(pk=instance.pk).values_list(*_FLAGS).first()
        if instance.pk and not kwargs.get("raw")
        else None
    )


def _rebuild_matchups_and_bump() -> None:
    rebuild_character_matchups()
    bump_generation()


@receiver(post_save, sender=Player, dispatch_uid="player-saved-bumps-generation")
def player_saved(sender: type[Player], instance: Player, **kwargs: Any) -> None:
    before = getattr(instance, "_flags_before", None)
    flags_changed = before is not None and before != tuple(getattr(instance, f) for f in _FLAGS)
    transaction.on_commit(_rebuild_matchups_and_bump if flags_changed else bump_generation)
