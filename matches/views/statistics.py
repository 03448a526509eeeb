"""The statistics page (`/stats`): totals, games per day, distributions, popularity."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from matches import charts
from matches.selectors.statistics import SiteStatistics, site_statistics
from matches.views.patches import chosen_patch, patch_texts
from players.formatting import change_class, count_text, signed_text
from players.selectors.roster import current_roster


def _distribution_bars(distribution: dict[str, Any] | None) -> list[charts.Bar]:
    return [
        charts.Bar(
            f"{row['from']:.0f}",
            row["count"],
            f"{row['from']:.0f} to {row['to']:.0f}: {count_text(row['count'], 'rating')}",
        )
        for row in (distribution or {"bins": []})["bins"]
    ]


def _statistics_charts(statistics: SiteStatistics, patch: str) -> dict[str, str]:
    per_day = [
        charts.Bar(
            date.fromisoformat(row["day"]).strftime("%b %d"),
            row["games"],
            f"{row['day']}: {count_text(row['games'], 'game')}",
        )
        for row in statistics.games_per_day
    ]
    ratings = _distribution_bars(statistics.rating_distribution)
    floors = [
        charts.Bar(
            "C" if row["floor"] == 99 else str(row["floor"]),
            row["players"],
            f"{'Celestial' if row['floor'] == 99 else 'Floor ' + str(row['floor'])}: "
            f"{count_text(row['players'], 'player')}",
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
        "patch_ratings": charts.bar_chart(
            "patch-rating-distribution",
            _distribution_bars(statistics.patch_rating_distribution),
            title=f"Settled ratings of patch {patch} by value",
        ),
    }


INFLATION_WEEKS_SHOWN = 26


def every(seconds: float) -> str:
    """An interval as people say it: 'every hour', 'every 15 minutes', 'every 2 days'."""
    for unit, length in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= length and seconds % length == 0:
            count = int(seconds // length)
            return f"every {unit}" if count == 1 else f"every {count} {unit}s"
    return f"every {seconds:g} seconds"


def _listed_name(code: str, stored_name: str) -> str:
    """A stored row's character as listed now: a retired one says so, a renamed one
    shows its new name."""
    character = current_roster().by_code.get(code)
    return stored_name if character is None else character.listed_name


def _popularity_rows(popularity: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The popularity table's rows: per bracket, the share and its change in percentage
    points from the period before, with the direction that colours it."""
    if not popularity:
        return []
    rows = []
    for row in popularity["rows"]:
        cells = []
        for bracket in popularity["brackets"]:
            change = row.get("changes", {}).get(bracket["key"])
            points = None if change is None else round(100 * change, 1)
            direction = "" if not points else "up" if points > 0 else "down"
            cells.append(
                {"share": row["shares"][bracket["key"]], "points": points, "direction": direction}
            )
        rows.append(
            {
                "character": row["character"],
                "name": _listed_name(row["character"], row["name"]),
                "cells": cells,
            }
        )
    return rows


def _fraud_index_rows(fraud_index: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The fraud index table's rows: per bracket, the mean offset and its player count,
    in the brackets' order."""
    if not fraud_index:
        return []
    return [
        {
            "character": row["character"],
            "name": _listed_name(row["character"], row["name"]),
            "cells": [row["cells"][bracket["key"]] for bracket in fraud_index["brackets"]],
        }
        for row in fraud_index["rows"]
    ]


def stats(request: HttpRequest) -> HttpResponse:
    choice = chosen_patch(request)
    statistics = site_statistics(choice)
    by_patch = statistics.patch_popularity
    # What beat really runs (settings.CELERY_BEAT_SCHEDULE), not a number in the template.
    refresh_seconds = settings.CELERY_BEAT_SCHEDULE["refresh_statistics"]["schedule"]
    return render(
        request,
        "matches/statistics.html",
        {
            "stats": statistics,
            "charts": _statistics_charts(statistics, choice.key),
            "refreshed": every(refresh_seconds),
            "popularity_rows": _popularity_rows(statistics.popularity),
            "patch": choice,
            "patches": patch_texts(choice),
            "by_patch": by_patch,
            "by_patch_changes": [
                (row, text, change_class(text))
                for row in by_patch.rows
                for text in [signed_text(None if row.change is None else 100 * row.change)]
            ],
            "fraud_index_rows": _fraud_index_rows(statistics.fraud_index),
            # The latest weeks, newest first; the API has every week.
            "inflation": statistics.inflation[::-1][:INFLATION_WEEKS_SHOWN],
            "inflation_more": len(statistics.inflation) > INFLATION_WEEKS_SHOWN,
        },
    )
