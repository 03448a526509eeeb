"""Pages that combine ratings with matches and statistics: rankings, profiles, matchups,
the calculator, statistics and the explanation of the ratings.

Each view reads through one selector (matches.selectors) and turns the result into
a page; charts are drawn here from what the selector returned.
"""

from __future__ import annotations

from datetime import date

from django import forms
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from matches import charts
from matches.models import CharacterMatchup
from matches.ratings.glicko import decayed_deviation, win_probability
from matches.selectors import (
    HISTORY_RANGES,
    Contender,
    GameCursor,
    SiteStatistics,
    matchup_matrix,
    ranking_page,
    rating_profile,
    site_statistics,
    win_forecast,
)
from matches.services.rating import glicko_params
from players.roster import ROSTER
from players.selectors import rating_of

NOT_FOUND_CHARACTER = "There is no character with this code."


def _ranked_below() -> float:
    """The ± (two deviations) below which a rating is ranked."""
    return 2 * settings.RATING_LOW_DEVIATION


def top(request: HttpRequest, code: str | None = None) -> HttpResponse:
    page = ranking_page(code, one_per_player=request.GET.get("per") == "player")
    if page is None:
        raise Http404(NOT_FOUND_CHARACTER)
    return render(
        request,
        "matches/top.html",
        {"page": page, "ranked_below": _ranked_below()},
    )


def profile(request: HttpRequest, player_id: str, code: str) -> HttpResponse:
    history_range = request.GET.get("range", "30d")
    if history_range not in HISTORY_RANGES:
        raise Http404("Unknown history range.")
    try:
        before = GameCursor.parse(request.GET["before"]) if "before" in request.GET else None
    except (ValueError, OverflowError, OSError):
        raise Http404("This page of match history does not exist.") from None
    found = rating_profile(player_id, code, history_range=history_range, before=before)
    if found is None:
        raise Http404("We know no rated games of this player with this character.")
    chart = charts.rating_chart(
        "rating-history", found.history, title=f"Rating history ({history_range})"
    )
    return render(
        request,
        "matches/profile.html",
        {
            "profile": found,
            "rating": found.rating,
            "chart": chart,
            "ranges": HISTORY_RANGES,
            "ranked_below": _ranked_below(),
        },
    )


def matchups(request: HttpRequest) -> HttpResponse:
    bracket = request.GET.get("bracket", CharacterMatchup.Bracket.ALL)
    if bracket not in CharacterMatchup.Bracket.values:
        raise Http404("Unknown bracket.")
    return render(
        request,
        "matches/matchups.html",
        {"matrix": matchup_matrix(bracket), "brackets": CharacterMatchup.Bracket.choices},
    )


class ContenderForm(forms.Form):
    """One side of the calculator: a rating and its ±, or a player's character."""

    rating = forms.FloatField(required=False, min_value=0, max_value=5000)
    uncertainty = forms.FloatField(
        label="±",
        required=False,
        min_value=2,
        max_value=700,
        help_text="as shown: twice the deviation",
    )
    player = forms.CharField(label="or player id", required=False, max_length=32)
    character = forms.ChoiceField(
        required=False, choices=[("", "—")] + [(code, name) for _, code, name in ROSTER]
    )

    def clean(self) -> dict:
        data = super().clean()
        if data.get("player"):
            found = rating_of(data["player"], data.get("character") or "")
            if found is None:
                raise forms.ValidationError("No rating for this player and character.")
            data["contender"] = Contender.of(found)
        elif data.get("rating") is not None and data.get("uncertainty") is not None:
            data["contender"] = Contender(data["rating"], data["uncertainty"] / 2)
        elif self.has_changed():
            raise forms.ValidationError("Give a rating and its ±, or a player and character.")
        return data


def calculator(request: HttpRequest) -> HttpResponse:
    sides = [ContenderForm(request.GET or None, prefix=side) for side in ("a", "b")]
    forecast = None
    if all(form.is_valid() for form in sides) and all(
        "contender" in form.cleaned_data for form in sides
    ):
        forecast = win_forecast(*(form.cleaned_data["contender"] for form in sides))
    return render(request, "matches/calculator.html", {"sides": sides, "forecast": forecast})


def _statistics_charts(statistics: SiteStatistics) -> dict[str, str]:
    per_day = [
        charts.Bar(
            date.fromisoformat(row["day"]).strftime("%b %d"),
            row["games"],
            f"{row['day']}: {row['games']:,} games",
        )
        for row in statistics.games_per_day
    ]
    distribution = statistics.rating_distribution or {"bins": []}
    ratings = [
        charts.Bar(
            f"{row['from']:.0f}",
            row["count"],
            f"{row['from']:.0f} to {row['to']:.0f}: {row['count']:,} ratings",
        )
        for row in distribution["bins"]
    ]
    floors = [
        charts.Bar(
            "C" if row["floor"] == 99 else str(row["floor"]),
            row["players"],
            f"{'Celestial' if row['floor'] == 99 else 'Floor ' + str(row['floor'])}: "
            f"{row['players']:,} players",
        )
        for row in statistics.floor_distribution
    ]
    return {
        "games_per_day": charts.bar_chart("games-per-day", per_day, title="Games per day"),
        "ratings": charts.bar_chart(
            "rating-distribution", ratings, title="Ranked ratings by value"
        ),
        "floors": charts.bar_chart(
            "floor-distribution", floors, title="Players by floor", labels=11
        ),
    }


def stats(request: HttpRequest) -> HttpResponse:
    statistics = site_statistics()
    return render(
        request,
        "matches/stats.html",
        {"stats": statistics, "charts": _statistics_charts(statistics)},
    )


def about(request: HttpRequest) -> HttpResponse:
    """How the ratings work; every number on the page comes from the settings in force."""
    params = glicko_params()
    periods_per_day = round(86400 / params.decay_period_seconds)
    return render(
        request,
        "matches/about.html",
        {
            "params": params,
            "ranked_below": _ranked_below(),
            "idle_30_days": 2 * decayed_deviation(50.0, 30 * periods_per_day, params),
            "idle_1_year": 2 * decayed_deviation(50.0, 365 * periods_per_day, params),
            "initial_uncertainty": 2 * params.initial_deviation,
            "minimum_uncertainty": 2 * params.minimum_deviation,
            "counting_low": 100 * params.counting_margin,
            "counting_high": 100 * (1 - params.counting_margin),
            "counting_uncertainty": 2 * params.counting_rms_deviation,
            "gap_200": 100 * win_probability(1700, 50, 1500, 50),
            "gap_400": 100 * win_probability(1900, 50, 1500, 50),
        },
    )
