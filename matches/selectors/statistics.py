"""Site statistics (docs/pages-and-api.md#pages, `/stats`): what the periodic refresh precomputed
(matches.services.statistics)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from matches.models import SiteStatistic
from matches.selectors.patches import PatchChoice
from players.selectors.ratings import characters


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
    # {minimum_games, brackets: [{key, label, floor}], rows: [{character, name,
    # cells: {key: {players, offset}}}]}, highest offset first
    fraud_index: dict[str, Any] | None
    # [{week: Monday, ratings, p10, median, p90}], oldest first (matches.services.statistics)
    inflation: list[dict[str, Any]]
    computed_at: datetime | None
    patch_popularity: PatchPopularity
    # The chosen patch's settled ratings as its time left them ({bin_width, bins}); of all
    # time, the ranked ratings of now (rating_distribution). None: none yet.
    patch_rating_distribution: dict[str, Any] | None = None


STATISTIC_KEYS = (
    "totals",
    "games_per_day",
    "rating_distribution",
    "floor_distribution",
    "popularity",
    "percentiles",
    "activity",
    "patch_popularity",
    "patch_rating_distribution",
    "fraud_index",
    "inflation",
)


def site_statistics(choice: PatchChoice | None = None) -> SiteStatistics:
    """Every statistic the stats page shows, the popularity and rating distribution of
    the chosen patch (default: all time) among them, in two queries."""
    rows = {row.key: row for row in SiteStatistic.objects.filter(key__in=STATISTIC_KEYS)}
    data = {key: rows[key].data if key in rows else None for key in STATISTIC_KEYS}
    choice = choice or PatchChoice(None, None, [])
    by_patch = (data["patch_rating_distribution"] or {}).get(choice.key)
    return SiteStatistics(
        totals=data["totals"],
        games_per_day=data["games_per_day"] or [],
        rating_distribution=data["rating_distribution"],
        floor_distribution=data["floor_distribution"] or [],
        popularity=data["popularity"],
        percentiles=data["percentiles"] or [],
        activity=data["activity"],
        patch_popularity=patch_popularity(data["patch_popularity"] or {}, choice),
        patch_rating_distribution=data["rating_distribution"] if choice.patch is None else by_patch,
        fraud_index=data["fraud_index"],
        inflation=data["inflation"] or [],
        computed_at=max((row.computed_at for row in rows.values()), default=None),
    )


@dataclass(frozen=True)
class PatchShare:
    code: str
    name: str
    share: float
    change: float | None  # since the previous patch; None for all time or the first patch


@dataclass(frozen=True)
class PatchPopularity:
    """Each character's share of the games of one patch (or of all time), with its change
    in share since the previous patch; most played first."""

    patch: str  # a patch's name, or "all"
    previous_patch: str | None
    games: int
    rows: list[PatchShare]


def patch_popularity(stored: dict[str, dict[str, Any]], choice: PatchChoice) -> PatchPopularity:
    """The popularity of the chosen patch from the refresh's shares ({patch name or "all":
    {games, shares: {code: share}}}, matches.services.statistics; none yet: no games)."""
    empty = {"games": 0, "shares": {}}
    shares = stored.get(choice.key, empty)["shares"]
    previous = None if choice.previous is None else stored.get(choice.previous.name)
    rows = [
        PatchShare(
            character.code,
            character.listed_name,
            shares.get(character.code, 0.0),
            None
            if previous is None or not shares
            else shares.get(character.code, 0.0) - previous["shares"].get(character.code, 0.0),
        )
        for character in characters()
    ]
    rows.sort(key=lambda row: (-row.share, row.code))
    return PatchPopularity(
        choice.key,
        None if previous is None else choice.previous.name,
        stored.get(choice.key, empty)["games"],
        rows,
    )
