"""Site statistics (docs/pages-and-api.md#pages, `/stats`): what the periodic refresh precomputed
(matches.services.statistics)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from matches.models import SiteStatistic


@dataclass(frozen=True)
class SiteStatistics:
    """The precomputed statistics (matches.services.statistics); empty before the first
    refresh."""

    totals: dict[str, int] | None
    games_per_day: list[dict[str, Any]]
    rating_distribution: dict[str, Any] | None
    floor_distribution: list[dict[str, int]]
    popularity: dict[str, Any] | None
    # [{top: percent, rank, value}], best first
    percentiles: list[dict[str, Any]]
    # {hour|day|week: {players, games}}
    activity: dict[str, dict[str, int]] | None
    # [{week: Monday, ratings, p10, median, p90}], oldest first (matches.services.statistics)
    inflation: list[dict[str, Any]]
    computed_at: datetime | None


STATISTIC_KEYS = (
    "totals",
    "games_per_day",
    "rating_distribution",
    "floor_distribution",
    "popularity",
    "percentiles",
    "activity",
    "inflation",
)


def site_statistics() -> SiteStatistics:
    """Every statistic the stats page shows, in one query."""
    rows = {row.key: row for row in SiteStatistic.objects.filter(key__in=STATISTIC_KEYS)}
    data = {key: rows[key].data if key in rows else None for key in STATISTIC_KEYS}
    return SiteStatistics(
        totals=data["totals"],
        games_per_day=data["games_per_day"] or [],
        rating_distribution=data["rating_distribution"],
        floor_distribution=data["floor_distribution"] or [],
        popularity=data["popularity"],
        percentiles=data["percentiles"] or [],
        activity=data["activity"],
        inflation=data["inflation"] or [],
        computed_at=max((row.computed_at for row in rows.values()), default=None),
    )
