"""Search (DESIGN.md section 6, `/search`): players by current or past name."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.postgres.search import TrigramSimilarity
from django.db import connection
from django.db.models import Case, F, FloatField, IntegerField, Q, QuerySet, Value, When
from django.db.models.functions import Length

from players.models import Player, PlayerName, Rating

SEARCH_LIMIT = 50
# Past-name rows read per search before merging them with current names (a player may
# have several past names that match).
_SEARCH_CANDIDATES = 4 * SEARCH_LIMIT
# Names containing the query that one search reads at most, of each kind (current, past).
# A short fragment can be in a few percent of a million names: ordering them all by
# similarity reads every matching row, so beyond this many the closest of the first ones
# found are shown (exact names always, by their own index) and the search says so.
CONTAINING_READ = 500


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
    """The players a search found, and whether more names contain the query than it read
    (CONTAINING_READ): the hits are then the closest of the names it read."""

    hits: list[PlayerHit]
    more_match: bool


def _name_matches(
    names: QuerySet, query: str, *, current: bool, rows: int, containing: bool
) -> tuple[list[tuple], bool]:
    """(exact, current, similarity, length, name, player id, player name, platform,
    last seen, supporter, cheater) rows of `names` (players, or past names of visible
    players) that contain `query` (or, unless `containing`, are it), at most `rows` of
    them; and whether more names contain it than were read.

    Exact (case-insensitive) hits come first, then the closest: trigram similarity on
    PostgreSQL, the shortest name elsewhere. `current` tells which of the two `names` is.
    Up to CONTAINING_READ + 1 containing names are read in storage order, so that the read
    stops there, and ordered here; when that many contain it, a second query orders the
    first CONTAINING_READ of them with every exact name (an index lookup).
    """
    similarity = (
        TrigramSimilarity("name", query)
        if connection.vendor == "postgresql"
        else Value(0.0, output_field=FloatField())
    )
    exact = Case(When(name__iexact=query, then=1), default=0, output_field=IntegerField())
    prefix = "" if current else "player__"
    player_id = "id" if current else "player_id"
    columns = names.annotate(exact=exact, similarity=similarity, length=Length("name")).values_list(
        "exact",
        "similarity",
        "length",
        "name",
        player_id,
        *(
            f"{prefix}{column}"
            for column in ("name", "platform", "last_seen", "supporter", "cheater")
        ),
        "pk",
    )
    ordered = ("-exact", "-similarity", "length", "name")
    more = False
    if not containing:
        matches = list(columns.filter(name__iexact=query).order_by(*ordered)[:rows])
    else:
        matches = list(columns.filter(name__icontains=query)[: CONTAINING_READ + 1])
        more = len(matches) > CONTAINING_READ
        if more:
            read = [row[-1] for row in matches[:CONTAINING_READ]]
            matches = list(
                columns.filter(Q(pk__in=read) | Q(name__iexact=query)).order_by(*ordered)[:rows]
            )
        else:
            matches = sorted(matches, key=lambda row: (-row[0], -row[1], row[2], row[3]))[:rows]
    flag = int(current)
    return [(exact, flag, similarity, *rest) for exact, similarity, *rest, _ in matches], more


def search_players(query: str, *, limit: int = SEARCH_LIMIT) -> list[PlayerHit]:
    """The players of `find_players`."""
    return find_players(query, limit=limit).hits


def find_players(query: str, *, limit: int = SEARCH_LIMIT) -> PlayerSearch:
    """Visible players whose current or any past name contains `query`, best match first:
    exact names (current, then past), then current names, then past names, each by
    similarity. Hidden players are never found, by any of their names. Of a query in more
    than CONTAINING_READ names, the first ones found are ordered (see PlayerSearch).

    Three queries when fewer than CONTAINING_READ names contain the query: current names,
    past names, the hits' ratings; one more for each kind of name that more contain. On
    PostgreSQL the name queries are served by trigram indexes (players/migrations/0003)
    and exact names by UPPER(name) indexes (migrations 0006, 0011); past names are read in
    full only when fewer than `limit` current names match, since a past name can
    otherwise only come first by being exact.
    """
    query = query.strip()
    if not query:
        return PlayerSearch([], more_match=False)
    rows, more_current = _name_matches(
        Player.objects.visible(), query, current=True, rows=limit, containing=True
    )
    past_names = PlayerName.objects.filter(player__hidden=False).exclude(name=F("player__name"))
    past, more_past = _name_matches(
        past_names, query, current=False, rows=_SEARCH_CANDIDATES, containing=len(rows) < limit
    )
    rows += past
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
    return PlayerSearch(list(hits.values()), more_match=more_current or more_past)
