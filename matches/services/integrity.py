"""Keep the detectors' suspicions as IntegrityFlag rows for the review queue.

`record_suspicions` is the detectors' write path: a new suspect opens a flag; a suspect
with an open flag gets the fresher evidence; a reviewed flag (dismissed, cheater, linked)
stays as the operator left it, so a dismissed player is not flagged again for the same
thing. The operators' decisions are matches.services.integrity_review's (the flags
service, which a decision may call, itself leads to the rating services that call
this one).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from matches.models import IntegrityFlag
from matches.ratings.integrity import Suspicion


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
