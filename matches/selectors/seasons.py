"""Seasons and their ladders (README.md#seasons), as the refresh wrote them
(matches.services.seasons): a page is one range of ranks of one ladder, read along the
(season, ladder, rank) index, as cheap on the last page as on the first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import Q

from matches.models import Season, SeasonStanding
from players.models import Character

PAGE_SIZE = 100
# SeasonStanding.ladder of the overall ladder (character ids start at 0).
OVERALL = -1


def season_state(season: Season, today: date) -> str:
    """'archived' (final standings kept), 'ended' (kept at the next refresh), 'live' or
    'upcoming'."""
    if season.archived_at is not None:
        return "archived"
    if season.end < today:
        return "ended"
    return "live" if season.start <= today else "upcoming"


def all_seasons() -> list[Season]:
    """Every season, the latest first."""
    return list(Season.objects.all())


def find_season(name: str) -> Season | None:
    return Season.objects.filter(name=name).first()


@dataclass(frozen=True)
class SeasonPage:
    season: Season
    character: Character | None  # None: the overall ladder
    number: int
    standings: list[SeasonStanding]
    more: bool  # another page follows


def season_page(season: Season, character: Character | None, number: int) -> SeasonPage:
    """Page `number` (from 1) of the season's overall ladder, or of `character`'s."""
    first = (number - 1) * PAGE_SIZE + 1
    ladder = OVERALL if character is None else character.id
    rows = list(
        SeasonStanding.objects.filter(
            Q(season=season, ladder=ladder, rank__gte=first, rank__lte=first + PAGE_SIZE)
        )
        .select_related("character")
        .order_by("rank")
    )
    return SeasonPage(season, character, number, rows[:PAGE_SIZE], len(rows) > PAGE_SIZE)
