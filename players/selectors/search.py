"""Search (docs/pages-and-api.md#pages, `/search`): players by current or past name."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from django.db import connection
from django.db.models import DateTimeField, F, Q, Value

from players import rules
from players.models import Character, Player, PlayerName, Rating
from players.selectors.ratings import roster_characters

SEARCH_LIMIT = 50


class HitRating(NamedTuple):
    """What a search hit shows of one of its ratings (search, API, calculator)."""

    id: int
    player_id: str
    character: Character
    value: float
    deviation: float
    wins: int
    losses: int
    last_played_at: datetime | None

    @property
    def games(self) -> int:
        return self.wins + self.losses

    @classmethod
    def of(cls, rating: Rating) -> HitRating:
        return cls(
            rating.id,
            rating.player_id,
            rating.character,
            rating.value,
            rating.deviation,
            rating.wins,
            rating.losses,
            rating.last_played_at,
        )


@dataclass(frozen=True)
class PlayerHit:
    """One search result: a player, the name that matched and all their ratings."""

    player_id: str
    name: str
    platform: str
    matched_name: str
    last_seen: datetime
    supporter: bool
    cheater: bool  # found, but marked
    # The query is this player's current name, ignoring case.
    exact_current_name: bool
    ratings: list[HitRating] = field(default_factory=list)

    @property
    def matched_past_name(self) -> bool:
        return self.matched_name != self.name

    @property
    def games(self) -> int:
        """The rated games over all the player's characters."""
        return sum(rating.games for rating in self.ratings)


@dataclass(frozen=True)
class PlayerSearch:
    """The players a search found, best match first, and whether more names match than
    one search reads (then the hits are the best of those it read)."""

    hits: list[PlayerHit]
    more_match: bool


def _matching_names(query: str, rows: int) -> list[tuple]:
    """(player id, current name, platform, last seen, supporter, cheater, current,
    matched name, tier) rows of visible players' names that match `query`, best tier first
    (exact, then starting with it, then containing it further on; in each, current names
    then past ones), read in one query that stops after `rows` of them."""
    exact, prefix = Q(name__iexact=query), Q(name__istartswith=query)
    tiers = (exact, prefix & ~exact, Q(name__icontains=query) & ~prefix)
    columns = ("name", "platform", "last_seen", "supporter", "cheater")
    current = Player.objects.visible().values_list("id", *columns)
    past = (
        PlayerName.objects.filter(~rules.hidden("player__"))
        .exclude(name=F("player__name"))
        .order_by()  # unordered, so that a read stops at its limit
        .values_list("player_id", *(f"player__{column}" for column in columns))
    )
    kinds = [
        names.annotate(current=Value(is_current), matched=F("name"))
        for is_current, names in ((True, current), (False, past))
    ]
    parts = []
    for tier, matching in enumerate(tiers):
        for names in kinds:
            part = names.filter(matching).annotate(tier=Value(tier))
            if connection.features.supports_slicing_ordering_in_compound:
                # PostgreSQL plans each part of a union for reading it whole unless the
                # part has a limit of its own.
                part = part[:rows]
            parts.append(part)
    # The parts are read in order until `rows` are found: the tiers after are not read.
    return list(parts[0].union(*parts[1:], all=True)[:rows])


def find_players(
    query: str, *, limit: int = SEARCH_LIMIT, last_played: bool = True
) -> PlayerSearch:
    """Visible players whose current or any past name contains `query` (ignoring case),
    best match first: exact names, then names starting with it, then names containing it
    further on; within each, current names before past ones, then the shortest. Hidden
    players are never found, by any of their names.

    One query reads the names tier by tier and stops after `limit` + 1 of them (see
    PlayerSearch), another the hits' ratings. On PostgreSQL exact names and prefixes walk
    the UPPER(name) indexes (players/migrations/0013), names containing the query the
    trigram indexes (0003), or the table when most names contain it, each as far as the
    page needs: a fragment in a hundred thousand names reads a few dozen. A tier cut short
    shows the shortest of the names it read.

    `last_played=False` leaves every rating's `last_played_at` None, for a page that does not
    show it: reading a time costs as much as placing the rest of the rating.
    """
    query = query.strip()
    if not query:
        return PlayerSearch([], more_match=False)
    rows = _matching_names(query, limit + 1)
    # Best first, so that each player is shown by their best matching name.
    rows.sort(key=lambda row: (row[8], not row[6], len(row[7]), row[7].casefold(), row[0]))
    hits: dict[str, PlayerHit] = {}
    for player_id, name, platform, last_seen, supporter, cheater, current, matched, tier in rows:
        if player_id not in hits and len(hits) < limit:
            hits[player_id] = PlayerHit(
                player_id,
                name,
                platform,
                matched,
                last_seen,
                supporter,
                cheater,
                exact_current_name=tier == 0 and bool(current),
            )
    # Plain values, each character the roster's (no join): fifty players' rating objects
    # cost more than the rest of a search.
    played = F("last_played_at") if last_played else Value(None, DateTimeField())
    shown = (
        Rating.objects.filter(player_id__in=hits)
        .order_by("-wins", "-losses", "character_id")
        .values_list(
            "id", "player_id", "character_id", "value", "deviation", "wins", "losses", played,
        )
    )  # fmt: skip
    roster = roster_characters()
    for rating_id, player_id, character_id, *numbers in shown:
        hits[player_id].ratings.append(
            HitRating(rating_id, player_id, roster[character_id], *numbers)
        )
    return PlayerSearch(list(hits.values()), more_match=len(rows) > limit)


def search_players(query: str, *, limit: int = SEARCH_LIMIT) -> list[PlayerHit]:
    """The players of `find_players`."""
    return find_players(query, limit=limit).hits
