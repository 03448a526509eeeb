"""Search (DESIGN.md section 6, `/search`): players by current or past name."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.postgres.search import TrigramSimilarity
from django.db import connection
from django.db.models import Case, F, FloatField, IntegerField, QuerySet, Value, When
from django.db.models.functions import Length

from players.models import Player, PlayerName, Rating

SEARCH_LIMIT = 50
# Past-name rows read per search before merging them with current names (a player may
# have several past names that match).
_SEARCH_CANDIDATES = 4 * SEARCH_LIMIT


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


def _name_matches(names: QuerySet, query: str, *, current: bool, rows: int) -> list[tuple]:
    """(exact, current, similarity, length, name, player id, player name, platform,
    last seen, supporter, cheater) rows
    of `names` (players, or past names of visible players), at most `rows` of them.

    Exact (case-insensitive) hits come first, then the closest: trigram similarity on
    PostgreSQL, the shortest name elsewhere. `current` tells which of the two `names` is.
    """
    similarity = (
        TrigramSimilarity("name", query)
        if connection.vendor == "postgresql"
        else Value(0.0, output_field=FloatField())
    )
    exact = Case(When(name__iexact=query, then=1), default=0, output_field=IntegerField())
    prefix = "" if current else "player__"
    player_id = "id" if current else "player_id"
    matches = (
        names.annotate(exact=exact, similarity=similarity, length=Length("name"))
        .order_by("-exact", "-similarity", "length", "name")
        .values_list(
            "exact",
            "similarity",
            "length",
            "name",
            player_id,
            *(
                f"{prefix}{column}"
                for column in ("name", "platform", "last_seen", "supporter", "cheater")
            ),
        )[:rows]
    )
    flag = int(current)
    return [(exact, flag, similarity, *rest) for exact, similarity, *rest in matches]


def search_players(query: str, *, limit: int = SEARCH_LIMIT) -> list[PlayerHit]:
    """Visible players whose current or any past name contains `query`, best match first:
    exact names (current, then past), then current names, then past names, each by
    similarity. Hidden players are never found, by any of their names.

    Three queries: current names, past names, the hits' ratings. On PostgreSQL the name
    queries are served by trigram indexes (players/migrations/0003); past names are read
    in full only when fewer than `limit` current names match, since a past name can
    otherwise only come first by being exact (an index lookup, migration 0006).
    """
    query = query.strip()
    if not query:
        return []
    rows = _name_matches(
        Player.objects.visible().filter(name__icontains=query), query, current=True, rows=limit
    )
    past_names = PlayerName.objects.filter(player__hidden=False).exclude(name=F("player__name"))
    if len(rows) < limit:
        past_names = past_names.filter(name__icontains=query)
    else:
        past_names = past_names.filter(name__iexact=query)
    rows += _name_matches(past_names, query, current=False, rows=_SEARCH_CANDIDATES)
    rows.sort(key=lambda row: (-row[0], -row[1], -row[2], row[3], row[4]))
    hits: dict[str, PlayerHit] = {}
    for exact, current, _, _, matched, player_id, name, platform, *flags in rows:
        if player_id not in hits:
            last_seen, supporter, cheater = flags
            exact_current_name = bool(exact and current)
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
        if len(hits) == limit:
            break
    for rating in (
        Rating.objects.filter(player_id__in=hits)
        .select_related("character")
        .order_by("-wins", "-losses", "character_id")
    ):
        hits[rating.player_id].ratings.append(rating)
    return list(hits.values())
