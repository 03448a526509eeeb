"""The periodic decay (DESIGN.md section 4.6, step 3): idle ratings grow less certain.

A rating is written only when its decay changes what a page reads: the shown ± (two
deviations, rounded down), which side of the ranking threshold it is on, or reaching the
cap. An hour of decay adds about 0.02 to a deviation of 60, so an hourly refresh that
wrote every idle rating rewrote most of the table for nothing a player could see (1.5
million rows and two minutes at ten million games). Skipping is exact: decay over k
periods and then m more equals decay over k + m periods (the squares add), so a rating
left unwritten reaches the same deviation at its next write or game.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from matches.params import glicko_params
from matches.ratings.glicko import GlickoParams, decay
from matches.services import bulk
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock
from matches.services.rating_rows import moment
from players.formatting import uncertainty_text
from players.models import Rating


def shows_differently(old: float, new: float, params: GlickoParams) -> bool:
    """Whether a deviation grown from `old` to `new` changes anything pages read."""
    return (
        uncertainty_text(old) != uncertainty_text(new)
        or (old < params.low_deviation) != (new < params.low_deviation)
        or new >= params.maximum_deviation
    )


def decay_all_ratings(now: datetime | None = None) -> int:
    """Grow the deviation of every idle rating below the cap up to `now`, writing those
    whose growth shows (`shows_differently`); returns how many were written.

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
            if new_last_decay != last_decay_at.timestamp() and shows_differently(
                deviation, new_deviation, params
            ):
                rows.append((rating_id, new_deviation, moment(new_last_decay)))
        return bulk.update(Rating, "id", ("deviation", "last_decay_at"), rows) if rows else 0
