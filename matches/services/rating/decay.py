"""The periodic decay (DESIGN.md section 4.6, step 3): idle ratings grow less certain."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from matches.params import glicko_params
from matches.ratings.glicko import decay
from matches.services import bulk
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock
from matches.services.rating_rows import moment
from players.models import Rating


def decay_all_ratings(now: datetime | None = None) -> int:
    """Grow the deviation of every idle rating below the cap up to `now`; returns how many changed.

    Runs under the rating writer lock, so it never overwrites a batch's fresh ratings.
    """
    params = glicko_params()
    until = (now or timezone.now()).timestamp()
    with transaction.atomic():
        acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
        rows = []
        for rating_id, deviation, last_decay_at in Rating.objects.filter(
            deviation__lt=params.maximum_deviation, last_decay_at__isnull=False
        ).values_list("id", "deviation", "last_decay_at"):
            new_deviation, new_last_decay = decay(
                deviation, last_decay_at.timestamp(), until, params
            )
            if new_last_decay != last_decay_at.timestamp():
                rows.append((rating_id, new_deviation, moment(new_last_decay)))
        return bulk.update(Rating, "id", ("deviation", "last_decay_at"), rows) if rows else 0
