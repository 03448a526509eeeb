"""An operator's decision on an integrity flag, from the admin's review queue
(docs/integrity.md): dismissed, marked cheater or linked to another player.

Apart from matches.services.integrity, whose `record_suspicions` the rating services call:
marking a cheater goes through matches.services.flags, which imports those services.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from matches.models import IntegrityFlag
from matches.services.flags import set_player_flags
from players.models import Player


def review_flag(
    flag: IntegrityFlag,
    status: IntegrityFlag.Status,
    *,
    by: str,
    linked_to: Player | None = None,
    now: datetime | None = None,
) -> None:
    """An operator's decision on a flag: dismissed, marked cheater (the player's cheater
    flag set through set_player_flags, which recomputes every rating without their
    games) or linked to `linked_to` as the same person. Who decided and when is kept."""
    if status == IntegrityFlag.Status.OPEN:
        raise ValueError("a review closes a flag")
    if (status == IntegrityFlag.Status.LINKED) != (linked_to is not None):
        raise ValueError("a flag is linked to another player exactly when it is marked linked")
    if linked_to is not None and linked_to.pk == flag.player_id:
        raise ValueError("a player cannot be linked to themselves")
    with transaction.atomic():
        IntegrityFlag.objects.filter(pk=flag.pk).update(
            status=status,
            reviewed_by=by,
            reviewed_at=now or timezone.now(),
            linked_to=linked_to,
        )
        if status == IntegrityFlag.Status.CHEATER:
            set_player_flags(flag.player, cheater=True, by=by)
    flag.refresh_from_db()
