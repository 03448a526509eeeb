"""The about page (`/about`): how the ratings work, in plain words."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from matches.params import glicko_params
from matches.ratings.glicko import chance, decayed_deviation
from players.formatting import uncertainty_text
from players.tiers import rating_tiers, tier_ranges
from players.views.rankings import settled_plus_minus_limit


def about(request: HttpRequest) -> HttpResponse:
    """How the ratings work; every number on the page comes from the settings in force,
    each chance by the one model every page shows and every update uses
    (docs/rating-model.md#one-chance)."""
    params = glicko_params()
    periods_per_day = round(86400 / params.decay_period_seconds)
    return render(
        request,
        "matches/about.html",
        {
            "params": params,
            "settled_plus_minus_limit": settled_plus_minus_limit(),
            # Each ± as every page writes one (uncertainty_text).
            "idle_30_days": uncertainty_text(decayed_deviation(50.0, 30 * periods_per_day, params)),
            "idle_1_year": uncertainty_text(decayed_deviation(50.0, 365 * periods_per_day, params)),
            "initial_uncertainty": uncertainty_text(params.initial_deviation),
            "minimum_uncertainty": uncertainty_text(params.minimum_deviation),
            "early_uncertainty": uncertainty_text(params.early_fast_track_deviation),
            "fast_track": params.fast_track_deviation > 0.0,
            "counting_low": 100 * params.counting_margin,
            "counting_high": 100 * (1 - params.counting_margin),
            "counting_uncertainty": 2 * params.counting_rms_deviation,
            "gap_200": 100 * chance(1700, 50, 1500, 50, params),
            "gap_400": 100 * chance(1900, 50, 1500, 50, params),
            "one_chance": params.one_chance,
            "gap_share": 100 * (1 - params.update_damping),
            "tiers": tier_ranges(rating_tiers()),
        },
    )
