"""Search (DESIGN.md section 6, `/search`): players by current or past name."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection
from django.db.models import F, Q, Value

from players.models import Player, PlayerName, Rating

SEARCH_LIMIT = 50


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
    ratings: list[Rating] = field(default_factory=list)

    @property
    def matched_past_name(self) -> bool:
        return self.matched_name != self.name

    @property
    def games(self) -> int:
        """The rated games over all the player's characters."""
        return sum(rating.games for rating in self.ratings)


@dataclass(frozen=True)
class PlayerSearch:
    """The players a search found, best match first, and whether more players match
    than it shows."""

    hits: list[PlayerHit]
    more_match: bool


def _tiers(query: str) -> list[Q]:
    """How a name can match `query`, best first, each tier without the ones before it:
    the name itself, a name starting with it, a name containing it further on (all
    ignoring case)."""
    exact = Q(name__iexact=query)
    prefix = Q(name__istartswith=query)
    return [exact, prefix & ~exact, Q(name__icontains=query) & ~prefix]


def _matching_names(matching: Q, found: list[str], rows: int) -> list[tuple]:
    """(player id, matched name, current name, platform, last seen, supporter, cheater,
    current) rows of the current names, then the past names, of visible players that
    match, leaving out the players `found`: the first `rows` of them, in one query."""
    columns = ("name", "platform", "last_seen", "supporter", "cheater")
    current = (
        Player.objects.visible()
        .filter(matching)
        .exclude(id__in=found)
        .annotate(current=Value(True))
        .values_list("id", "name", *columns, "current")
    )
    past = (
        PlayerName.objects.filter(matching, player__hidden=False)
        .exclude(name=F("player__name"))
        .exclude(player_id__in=found)
        .order_by()  # unordered, so that a read stops at its limit
        .annotate(current=Value(False))
        .values_list("player_id", "name", *(f"player__{column}" for column in columns), "current")
    )
    if connection.features.supports_slicing_ordering_in_compound:
        # PostgreSQL plans the parts of a union for reading them whole, not for stopping
        # at the union's limit: each part gets its own.
        current, past = current[:rows], past[:rows]
    return list(current.union(past, all=True)[:rows])


def find_players(query: str, *, limit: int = SEARCH_LIMIT) -> PlayerSearch:
    """Visible players whose current or any past name contains `query` (ignoring case),
    best match first: exact names, then names starting with it, then names containing it
    further on; within each, current names before past ones, then the shortest. Hidden
    players are never found, by any of their names.

    A tier is read only while at most `limit` players are found, and only as many of its
    names as are still wanted: a query in a hundred thousand names reads a few dozen of
    them, where the reading happens to stop. On PostgreSQL exact names and prefixes walk
    the UPPER(name) indexes (players/migrations/0013), names containing the query the
    trigram indexes (0003), or the table when most names contain it. A tier cut short
    shows the shortest of the names it read. One query a tier, and one for the ratings.
    """
    query = query.strip()
    if not query:
        return PlayerSearch([], more_match=False)
    hits: dict[str, PlayerHit] = {}
    for tier, matching in enumerate(_tiers(query)):
        while len(hits) <= limit:
            wanted = limit + 1 - len(hits)
            rows = _matching_names(matching, list(hits), wanted)
            # One player's several past names can share a read: read on till it ends.
            for (
                player_id,
                matched,
                name,
                platform,
                last_seen,
                supporter,
                cheater,
                current,
            ) in sorted(
                rows, key=lambda row: (not row[-1], len(row[1]), row[1].casefold(), row[0])
            ):
                hits.setdefault(
                    player_id,
                    PlayerHit(
                        player_id,
                        name,
                        platform,
                        matched,
                        last_seen,
                        supporter,
                        cheater,
                        exact_current_name=bool(current) and tier == 0,
                    ),
                )
            if len(rows) < wanted:
                break
    shown = list(hits.values())[:limit]
    by_player = {hit.player_id: hit for hit in shown}
    for rating in (
        Rating.objects.filter(player_id__in=by_player)
        .select_related("character")
        .order_by("-wins", "-losses", "character_id")
    ):
        by_player[rating.player_id].ratings.append(rating)
    return PlayerSearch(shown, more_match=len(hits) > limit)


def search_players(query: str, *, limit: int = SEARCH_LIMIT) -> list[PlayerHit]:
    """The players of `find_players`."""
    return find_players(query, limit=limit).hits
