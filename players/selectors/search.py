"""Search (DESIGN.md section 6, `/search`): players by current or past name."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection
from django.db.models import Case, F, Q, Value, When

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
    """The players a search found, best match first, and whether more names match than
    one search reads (then the hits are the best of those it read)."""

    hits: list[PlayerHit]
    more_match: bool


def _matching_names(matching: Q, tier: Case, rows: int) -> list[tuple]:
    """(tier, current, matched name, player id, current name, platform, last seen,
    supporter, cheater) rows of the current names, then the past names, of visible
    players that match: the first `rows` of them, in one query."""
    columns = ("name", "platform", "last_seen", "supporter", "cheater")
    current = (
        Player.objects.visible()
        .filter(matching)
        .annotate(tier=tier, current=Value(True))
        .values_list("tier", "current", "name", "id", *columns)
    )
    past = (
        PlayerName.objects.filter(matching, player__hidden=False)
        .exclude(name=F("player__name"))
        .order_by()  # unordered, so that a read stops at its limit
        .annotate(tier=tier, current=Value(False))
        .values_list(
            "tier", "current", "name", "player_id", *(f"player__{column}" for column in columns)
        )
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

    One read of up to `limit` + 1 names containing the query, which stops there: when
    fewer match, it holds them all. Otherwise exact names and then prefixes are read by
    themselves, each walking an UPPER(name) index (players/migrations/0013) as far as the
    page needs, and what the first read found stands for the names containing the query
    further on: a fragment in a hundred thousand names reads a few dozen (on PostgreSQL
    through the trigram indexes of 0003, or the table when most names contain it). Two
    queries when few names match, four when many, the last for the hits' ratings.
    """
    query = query.strip()
    if not query:
        return PlayerSearch([], more_match=False)
    exact, prefix = Q(name__iexact=query), Q(name__istartswith=query)
    tier = Case(When(exact, then=0), When(prefix, then=1), default=2)
    rows = _matching_names(Q(name__icontains=query), tier, limit + 1)
    more_match = len(rows) > limit
    if more_match:
        rows += _matching_names(exact, tier, limit + 1)
        rows += _matching_names(prefix & ~exact, tier, limit + 1)
    # Best first, so that each player is shown by their best matching name.
    rows.sort(key=lambda row: (row[0], not row[1], len(row[2]), row[2].casefold(), row[3]))
    hits: dict[str, PlayerHit] = {}
    for tier_of, current, matched, player_id, name, platform, last_seen, supporter, cheater in rows:
        if player_id not in hits and len(hits) < limit:
            exact_current_name = tier_of == 0 and bool(current)
            hits[player_id] = PlayerHit(
                player_id,
                name,
                platform,
                matched,
                last_seen,
                supporter,
                cheater,
                exact_current_name,
            )
    for rating in (
        Rating.objects.filter(player_id__in=hits)
        .select_related("character")
        .order_by("-wins", "-losses", "character_id")
    ):
        hits[rating.player_id].ratings.append(rating)
    return PlayerSearch(list(hits.values()), more_match=more_match)


def search_players(query: str, *, limit: int = SEARCH_LIMIT) -> list[PlayerHit]:
    """The players of `find_players`."""
    return find_players(query, limit=limit).hits
