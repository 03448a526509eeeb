"""Pages that combine ratings with matches and statistics: rankings, profiles, matchups,
the calculator, statistics, the rating systems lab and the explanation of the ratings.

Each view reads through one selector (matches.selectors) and turns the result into
a page; charts are drawn here from what the selector returned.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from html import escape
from urllib.parse import quote

from django import forms
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from matches import charts
from matches.models import CharacterMatchup
from matches.ratings.glicko import decayed_deviation, win_probability
from matches.selectors import (
    HISTORY_RANGES,
    Contender,
    GameCursor,
    LabReport,
    MatchupMatrix,
    RankingPage,
    SiteStatistics,
    lab_report,
    matchup_matrix,
    ranking_page,
    rating_profile,
    site_statistics,
    win_forecast,
)
from matches.services.rating import glicko_params
from matches.services.tiers import rank_tier
from players.models import Player
from players.roster import ROSTER
from players.selectors import rating_of

NOT_FOUND_CHARACTER = "There is no character with this code."
# What Django's reverse() leaves unquoted in a path (django.urls.resolvers).
_URL_SAFE = "!$&'()*+,;=/~:@"


def _ranked_below() -> float:
    """The ± (two deviations) below which a rating is ranked."""
    return 2 * settings.RATING_LOW_DEVIATION


def _profile_url() -> Callable[[str, str], str]:
    """`profile_url(player_id, code)`, the same as reversing 'profile' for each row
    (quoted alike) at a fraction of the cost: the URL is reversed once."""
    pattern = reverse("profile", args=("PLAYER", "CODE"))
    before, rest = pattern.split("PLAYER")
    middle, after = rest.split("CODE")

    def profile_url(player_id: str, code: str) -> str:
        player_id, code = quote(player_id, safe=_URL_SAFE), quote(code, safe=_URL_SAFE)
        return f"{before}{player_id}{middle}{code}{after}"

    return profile_url


def _tier_badge(tier: str | None) -> str:
    """A rating's rank tier as a small badge (nothing when the site shows no tiers)."""
    return f' <span class="tier">{escape(tier)}</span>' if tier else ""


def _ranking_rows(page: RankingPage) -> SafeString:
    """The ranking table's rows as markup (a hundred rows through the template language
    cost more than everything else on the page)."""
    profile_url, platforms = _profile_url(), dict(Player.Platform.choices)
    overall = page.character is None
    rows = []
    for row in page.rows:
        rank, character = row.rank, row.character
        url = profile_url(row.player_id, character.code)
        platform = platforms.get(row.platform, row.platform)
        value, uncertainty = row.value, 2 * row.deviation
        cells = [
            f'<td class="num rank" data-sort="{rank}">{rank}</td>',
            f'<th scope="row"><a href="{escape(url)}"><bdi>{escape(row.name)}</bdi></a></th>',
            f'<td class="hide-narrow">{escape(platform)}</td>',
        ]
        if overall:
            cells.append(
                f'<td><abbr title="{escape(character.name)}">{escape(character.code)}</abbr></td>'
            )
        cells += [
            f'<td class="num" data-sort="{value}">{value:.0f} ±{uncertainty:.0f}'
            f"{_tier_badge(rank_tier(value))}</td>",
            f'<td class="num" data-sort="{row.wins}">{row.wins}\u2013{row.losses}</td>',
        ]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return mark_safe("\n".join(rows))  # every piece of text in it is escaped above


def top(request: HttpRequest, code: str | None = None) -> HttpResponse:
    page = ranking_page(code, one_per_player=request.GET.get("per") == "player")
    if page is None:
        raise Http404(NOT_FOUND_CHARACTER)
    return render(
        request,
        "matches/top.html",
        {"page": page, "rows": _ranking_rows(page), "ranked_below": _ranked_below()},
    )


def profile(request: HttpRequest, player_id: str, code: str) -> HttpResponse:
    history_range = request.GET.get("range", "30d")
    if history_range not in HISTORY_RANGES:
        raise Http404("Unknown history range.")
    try:
        before, after = (
            GameCursor.parse(request.GET[key]) if key in request.GET else None
            for key in ("before", "after")
        )
    except (ValueError, OverflowError, OSError):
        raise Http404("This page of match history does not exist.") from None
    found = rating_profile(player_id, code, history_range=history_range, before=before, after=after)
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
            "tier": rank_tier(found.rating.value),
            "opponent_days": settings.FAIR_OPPONENT_DAYS,
        },
    )


def _matrix_cells(matrix: MatchupMatrix) -> list[SafeString]:
    """Each row's cells as markup, drawn here rather than in the template: a full matrix
    has 729 cells, and the template language spent about 0.1 ms on each filled one."""
    names = {character.id: escape(character.name) for character in matrix.columns}
    rows = []
    for row in matrix.rows:
        name, cells = names[row.character.id], []
        for cell in row.cells:
            versus = f"{name} vs {names[cell.opponent.id]}"
            probability = cell.probability
            if probability is None:
                cells.append(
                    f'<td class="num heat-none" data-sort="-1" title="{versus}: no games">·</td>'
                )
                continue
            games, percent = cell.games, 100 * probability
            cells.append(
                f'<td class="num heat-{round(probability * 10)}" data-sort="{probability}" '
                f'title="{versus}: {percent:.1f}% ({games} game{"" if games == 1 else "s"}, '
                f'{cell.wins}\u2013{cell.losses})">{percent:.0f}</td>'
            )
        rows.append(mark_safe("".join(cells)))  # every name in it is escaped above
    return rows


def matchups(request: HttpRequest) -> HttpResponse:
    bracket = request.GET.get("bracket", CharacterMatchup.Bracket.ALL)
    if bracket not in CharacterMatchup.Bracket.values:
        raise Http404("Unknown bracket.")
    matrix = matchup_matrix(bracket)
    return render(
        request,
        "matches/matchups.html",
        {
            "matrix": matrix,
            "rows": list(zip(matrix.rows, _matrix_cells(matrix), strict=True)),
            "brackets": CharacterMatchup.Bracket.choices,
        },
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


# The lab's headline scores: (key, heading, True when a lower score is better).
LAB_SCORES = (
    ("log_loss", "Log loss", True),
    ("brier", "Brier", True),
    ("accuracy", "Accuracy", False),
)
LAB_SCOPES = (("overall", "All games"), ("established", "Established"))


def _best_systems(report: LabReport) -> dict[str, dict[str, set[str]]]:
    """{scope: {score: names of the systems with the best value}} (ties share it)."""
    best: dict[str, dict[str, set[str]]] = {}
    for scope, _ in LAB_SCOPES:
        best[scope] = {}
        for key, _, lower in LAB_SCORES:
            values = {
                s.name: getattr(s, scope)[key]
                for s in report.systems
                if getattr(s, scope)[key] is not None
            }
            if values:
                target = (min if lower else max)(values.values())
                best[scope][key] = {
                    name for name, v in values.items() if round(v, 4) == round(target, 4)
                }
    return best


def _score_text(key: str, value: float | None) -> str:
    if value is None:
        return "—"
    return f"{100 * value:.1f}%" if key == "accuracy" else f"{value:.4f}"


def _lab_tables(report: LabReport, best: dict[str, dict[str, set[str]]]) -> list[dict[str, object]]:
    """Per system: the system, a row per score with a cell per scope (the best of the
    systems marked), and its calibration bins for both scopes."""
    tables = []
    for system in report.systems:
        scopes = [getattr(system, scope) for scope, _ in LAB_SCOPES]
        rows = [
            {
                "heading": heading,
                "lower": lower,
                "cells": [
                    {
                        "text": _score_text(key, metrics[key]),
                        "best": system.name in best[scope].get(key, ()),
                    }
                    for (scope, _), metrics in zip(LAB_SCOPES, scopes, strict=True)
                ],
            }
            for key, heading, lower in LAB_SCORES
        ]
        games = [metrics["games"] for metrics in scopes]
        bins = [
            {
                "range": f"{100 * overall['low']:.0f}\u2013{100 * overall['high']:.0f}%",
                "scopes": [
                    (
                        row["games"],
                        "—" if row["observed"] is None else f"{100 * row['observed']:.1f}%",
                    )
                    for row in (overall, established)
                ],
            }
            for overall, established in zip(
                system.overall["calibration"], system.established["calibration"], strict=True
            )
        ]
        tables.append({"system": system, "rows": rows, "games": games, "bins": bins})
    return tables


def _calibration_charts(report: LabReport) -> dict[str, SafeString]:
    charts_by_scope = {}
    for scope, heading in LAB_SCOPES:
        series = [
            charts.CalibrationSeries(
                system.label,
                [
                    charts.CalibrationPoint(row["predicted"], row["observed"], row["games"])
                    for row in getattr(system, scope)["calibration"]
                    if row["games"] and row["predicted"] is not None and row["observed"] is not None
                ],
            )
            for system in report.systems
        ]
        charts_by_scope[scope] = charts.calibration_chart(
            f"calibration-{scope}", series, title=f"Calibration: {heading.lower()}"
        )
    return charts_by_scope


def lab(request: HttpRequest) -> HttpResponse:
    """The rating systems lab: how well each system predicted the stored games."""
    report = lab_report()
    context: dict[str, object] = {"report": report, "scopes": LAB_SCOPES}
    if report is not None:
        best = _best_systems(report)
        labels = {system.name: system.label for system in report.systems}
        context |= {
            "tables": _lab_tables(report, best),
            "charts": _calibration_charts(report),
            "best_overall": sorted(labels[n] for n in best["overall"].get("log_loss", ())),
            "best_established": sorted(labels[n] for n in best["established"].get("log_loss", ())),
        }
    return render(request, "matches/lab.html", context)


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
