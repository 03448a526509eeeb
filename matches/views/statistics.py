"""The statistics page (`/stats`): totals, games per day, distributions, popularity."""

from __future__ import annotations

from datetime import date

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from matches import charts
from matches.selectors.statistics import SiteStatistics, site_statistics


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
        "matches/statistics.html",
        {"stats": statistics, "charts": _statistics_charts(statistics)},
    )
