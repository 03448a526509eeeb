"""Keep the detectors' suspicions as IntegrityFlag rows for the review queue.

`record_suspicions` is the detectors' write path: a new suspect opens a flag; a suspect
with an open flag gets the fresher evidence; a reviewed flag (dismissed, cheater, linked)
stays as the operator left it, so a dismissed player is not flagged again for the same
thing. `review_flag` is the operators' (the admin's review queue).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from matches.models import IntegrityFlag
from matches.ratings.integrity import Suspicion
from matches.services.flags import set_player_flags
from players.models import Player


def record_suspicions(suspicions: Iterable[Suspicion], now: datetime | None = None) -> int:
    """Open or refresh a flag per suspicion; return how many flags were opened."""
    now = now or timezone.now()
    opened = 0
    with transaction.atomic():
        for suspicion in suspicions:
            evidence = {
                "games": suspicion.games,
                "wins": suspicion.wins,
                "expected_wins": suspicion.expected_wins,
                "probability": suspicion.probability,
                "partners": list(suspicion.partners),
                "match_ids": list(suspicion.match_ids),
                "updated_at": now,
            }
            flag, created = IntegrityFlag.objects.select_for_update().get_or_create(
                kind=suspicion.kind.value,
                player_id=suspicion.player,
                character_id=suspicion.character,
                defaults={**evidence, "first_flagged_at": now},
            )
            if created:
                opened += 1
            elif flag.status == IntegrityFlag.Status.OPEN:
                IntegrityFlag.objects.filter(pk=flag.pk).update(**evidence)
    return opened


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
