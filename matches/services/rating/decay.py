"""The periodic decay (docs/rating-model.md#decay): idle ratings grow less certain.

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

import numpy as np
from django.db import transaction
from django.utils import timezone

from matches.dbfunctions import EpochSeconds
from matches.params import glicko_params
from matches.ratings import array_ledger
from matches.ratings.glicko import GlickoParams
from matches.services import bulk
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock
from matches.services.rating.ledger_rows import moment
from matches.services.rating.storage import fetch_columns
from players.models import Rating


def decay_shown(
    deviation: np.ndarray, last_decay_at: np.ndarray, until: float, params: GlickoParams
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decay ratings (arrays of deviations and epoch seconds) up to `until`: the new
    (deviation, last_decay_at), and which of them to write: those whose growth changes
    what pages read, the shown ± (players.formatting.uncertainty_text: two deviations,
    rounded down), the side of the ranking threshold, or reaching the cap. A rating
    already at the cap is left as it is."""
    new_deviation, new_last_decay = array_ledger.decayed(deviation, last_decay_at, until, params)
    low, cap = params.low_deviation, params.maximum_deviation
    shows = (
        (np.floor(2 * deviation) != np.floor(2 * new_deviation))
        | ((deviation < low) != (new_deviation < low))
        | (new_deviation >= cap)
    )
    grew = (new_last_decay != last_decay_at) & (deviation < cap)
    return new_deviation, new_last_decay, shows & grew


def decay_all_ratings(now: datetime | None = None) -> int:
    """Grow the deviation of every idle rating below the cap up to `now`, writing those
    whose growth shows (`decay_shown`); returns how many were written.

    Runs under the rating writer lock, so it never overwrites a batch's fresh ratings.
    """
    params = glicko_params()
    until = (now or timezone.now()).timestamp()
    with transaction.atomic():
        acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
        ids, deviation, last_decay_at = fetch_columns(
            Rating.objects.filter(
                deviation__lt=params.maximum_deviation, last_decay_at__isnull=False
            )
            .annotate(epoch=EpochSeconds("last_decay_at"))
            .values_list("id", "deviation", "epoch"),
            (20, 701, 701),  # bigint, double precision, double precision
        )
        if not len(ids):
            return 0
        deviation, last_decay_at, write = decay_shown(deviation, last_decay_at, until, params)
        if not write.any():
            return 0
        return bulk.update(
            Rating,
            "id",
            ("deviation", "last_decay_at"),
            zip(
                ids[write].tolist(),
                deviation[write].tolist(),
                map(moment, last_decay_at[write].tolist()),
                strict=True,
            ),
        )
