"""Refitting the calibration: how often the site's shown chances came true
(docs/rating-model.md#calibration), a measurement applied to no chance.

At every refresh the temperature is fitted again on the site's own latest predictions:
each stored game's MatchRating holds the chance it was shown before it was played. The
database sums them by logit (matches.ratings.calibration's bins of 0.01), so the fit
reads a few thousand rows whatever the size of the site.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, F, Q, Sum
from django.db.models.functions import Round
from django.utils import timezone

from matches.dbfunctions import chance_logit
from matches.models import Match, MatchRating
from matches.ratings.calibration import (
    BIN_WIDTH,
    MAX_LOGIT,
    MIN_FIT_GAMES,
    LogitBin,
    fit_temperature,
    recent_games,
    reliability,
)
from matches.ratings.metrics import calibration_rows
from matches.selectors.calibration import CALIBRATION_STATISTIC
from matches.services.site_statistic import store_statistic
from players.models import Player


def recent_predictions() -> list[LogitBin]:
    """The chances shown for the latest rated games (recent_games of them, by
    arrival), by logit; games of hidden or cheating players are left out, as the lab
    leaves them out."""
    rated = MatchRating.objects.count()
    window = recent_games(rated)
    if not window:
        return []
    first = MatchRating.objects.order_by("-match_id").values_list("match_id", flat=True)[window - 1]
    unrated = Player.objects.unrated().values("id")
    logit = chance_logit("rating__chance_a")
    # The window on both tables' ids: PostgreSQL carries only equalities across a join,
    # and without its bound one side is read whole (ten million rows for a million).
    rows = (
        Match.objects.filter(id__gte=first, rating__match_id__gte=first)
        .exclude(player_a__in=unrated)
        .exclude(player_b__in=unrated)
        .annotate(logit=logit)
        .values(cell=Round(F("logit") / BIN_WIDTH))
        .annotate(
            games=Count("id"),
            wins=Count("id", filter=Q(winner=Match.Winner.A)),
            total=Sum("logit"),
        )
        .values_list("games", "wins", "total")
    )
    return [
        LogitBin(max(-MAX_LOGIT, min(MAX_LOGIT, total / games)), games, float(wins))
        for games, wins, total in rows
    ]


def refit_calibration(bins: list[LogitBin] | None = None) -> dict[str, Any] | None:
    """Fit the temperature on the latest predictions (`recent_predictions`, unless a
    recompute that has just made them gives their bins) and store it with its
    reliability before and after; with fewer than MIN_FIT_GAMES predictions, keep what
    is stored."""
    if bins is None:
        bins = recent_predictions()
    fit = fit_temperature(bins)
    if fit.games < MIN_FIT_GAMES:
        return None
    calibration = {
        "temperature": fit.temperature,
        "games": fit.games,
        "log_loss_before": fit.log_loss_before,
        "log_loss_after": fit.log_loss_after,
        "fitted_at": timezone.now().isoformat(),
        "before": calibration_rows(reliability(bins)),
        "after": calibration_rows(reliability(bins, fit.temperature)),
    }
    store_statistic(CALIBRATION_STATISTIC, calibration)
    return calibration
