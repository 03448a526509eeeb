"""Rankings (DESIGN.md section 6, `/` and `/top/<char>`): the top ratings, overall and
per character."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from django.db.models import Exists, OuterRef, QuerySet

from players.models import Character, Rating
from players.selectors.ratings import characters

RANKING_SIZE = 100


def ranked_ratings(
    character: Character | None = None, *, one_per_player: bool = False
) -> QuerySet[Rating]:
    """Ranked ratings, best first: overall (by global rank) or of one character.

    `one_per_player` keeps each player's best-ranked rating only (overall rankings).
    Players hidden since the last rank refresh are left out at once.
    """
    ratings = Rating.objects.filter(player__hidden=False).select_related("player", "character")
    if character is not None:
        return ratings.filter(character=character, character_rank__isnull=False).order_by(
            "character_rank"
        )
    ratings = ratings.filter(global_rank__isnull=False)
    if one_per_player:
        better_of_same_player = Rating.objects.filter(
            player_id=OuterRef("player_id"), global_rank__lt=OuterRef("global_rank")
        )
        ratings = ratings.filter(~Exists(better_of_same_player))
    return ratings.order_by("global_rank")


class RankedRow(NamedTuple):
    """One line of a ranking: what the table shows of a ranked rating."""

    rank: int  # as shown: global or character rank, or the position in a one-per-player list
    player_id: str
    name: str
    platform: str
    character: Character
    value: float
    deviation: float
    wins: int
    losses: int


@dataclass(frozen=True)
class RankingPage:
    character: Character | None  # None: overall
    characters: list[Character]
    rows: list[RankedRow]
    one_per_player: bool
    refreshed_at: datetime | None


def ranking_page(
    character_code: str | None,
    *,
    one_per_player: bool = False,
    refreshed_at: datetime | None = None,
) -> RankingPage | None:
    """The top 100 overall or of one character (None for an unknown code); two queries.
    `refreshed_at` is when ranks were last computed, which the page shows.

    Overall, each player can appear once (their best-ranked rating, numbered by
    position) or with every ranked character (numbered by global rank). Rows are read
    as plain values, characters taken from the roster: a hundred rating and player
    objects cost more than the rest of the page.
    """
    roster = characters()
    character = None
    if character_code is not None:
        character = next((c for c in roster if c.code.upper() == character_code.upper()), None)
        if character is None:
            return None
    one_per_player = one_per_player and character is None
    by_id = {c.id: c for c in roster}
    values = ranked_ratings(character, one_per_player=one_per_player).values_list(
        "character_rank" if character is not None else "global_rank",
        "player_id", "player__name", "player__platform", "character_id",
        "value", "deviation", "wins", "losses",
    )[:RANKING_SIZE]  # fmt: skip
    rows = [
        RankedRow(rank, player_id, name, platform, by_id[character_id], *rest)
        for rank, player_id, name, platform, character_id, *rest in values
    ]
    if one_per_player:
        rows = [row._replace(rank=position) for position, row in enumerate(rows, start=1)]
    return RankingPage(character, roster, rows, one_per_player, refreshed_at)
