"""Operator edits that change what pages show invalidate the cached pages.

Hiding a player (who asked to opt out) or flagging a cheater happens in the admin,
through Model.save; ingestion writes players with bulk SQL and fires nothing here.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from players.models import Player
from web.generation import bump_generation


@receiver(post_save, sender=Player, dispatch_uid="player-saved-bumps-generation")
def player_saved(sender: type[Player], instance: Player, **kwargs: Any) -> None:
    transaction.on_commit(bump_generation)
