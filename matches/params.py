"""The rating constants from settings (docs/rating-model.md#constants-and-settings): the one
adapter between settings and the pure rating math, read by services, selectors and views
alike."""

from __future__ import annotations

from django.conf import settings

from matches.ratings.glicko import GlickoParams
from players import rules


def glicko_params() -> GlickoParams:
    """The site's Glicko constants, from settings."""
    return GlickoParams(
        initial_rating=settings.RATING_INITIAL,
        initial_deviation=settings.RATING_INITIAL_DEVIATION,
        minimum_deviation=settings.RATING_MINIMUM_DEVIATION,
        decay_constant=settings.RATING_DECAY_CONSTANT,
        decay_period_seconds=settings.RATING_DECAY_PERIOD_SECONDS,
        maximum_deviation=settings.RATING_MAXIMUM_DEVIATION,
        low_deviation=rules.low_deviation(),
        ranked_min_opponents=rules.min_opponents(),
        update_damping=settings.RATING_UPDATE_DAMPING,
        one_chance=settings.RATING_ONE_CHANCE,
        counting_margin=settings.RATING_COUNTING_MARGIN,
        counting_rms_deviation=settings.RATING_COUNTING_RMS_DEVIATION,
        surprise_window=settings.INTEGRITY_ALT_WINDOW,
        surprise_min_games=settings.INTEGRITY_ALT_MIN_GAMES,
        surprise_threshold=settings.INTEGRITY_ALT_THRESHOLD,
        surprise_memory=settings.INTEGRITY_SURPRISE_MEMORY,
        fast_track_deviation=(
            settings.INTEGRITY_FAST_TRACK_DEVIATION if settings.INTEGRITY_FAST_TRACK else 0.0
        ),
        fast_track_margin=settings.INTEGRITY_FAST_TRACK_MARGIN,
        fast_track_threshold=settings.INTEGRITY_FAST_TRACK_THRESHOLD,
        early_fast_track_games=settings.INTEGRITY_FAST_TRACK_EARLY_GAMES,
        early_fast_track_threshold=settings.INTEGRITY_FAST_TRACK_EARLY_THRESHOLD,
        early_fast_track_deviation=settings.INTEGRITY_FAST_TRACK_EARLY_DEVIATION,
        give_back=settings.INTEGRITY_GIVE_BACK,
    )
