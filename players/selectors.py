"""Reads about players and their ratings, shared by the pages and the API.

Nothing here writes, and nothing here imports `matches` (dependencies point from
`matches` to `players`): pages that combine ratings with match data compose these
functions in `matches.selectors`. Every function does a fixed number of queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.postgres.search import TrigramSimilarity
from django.db import connection
from django.db.models import (
    Case,
    Exists,
    F,
    FloatField,
    IntegerField,
    Max,
    OuterRef,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Length

from players.models import Character, Player, PlayerMatchup, PlayerName, Rating

SEARCH_LIMIT = 50
# Past-name rows read per search before merging them with current names (a player may
# have several past names that match).
_SEARCH_CANDIDATES = 4 * SEARCH_LIMIT


def characters() -> list[Character]:
    """The roster, in id order."""
    return list(Character.objects.all())


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


def ranked_count() -> int:
    """How many ratings are ranked (ranks are 1..n without gaps)."""
    return Rating.objects.aggregate(n=Max("global_rank"))["n"] or 0


@dataclass(frozen=True)
class PlayerHit:
    """One search result: a player, the name that matched and all their ratings."""

    player_id: str
    name: str
    platform: str
    matched_name: str
    ratings: list[Rating] = field(default_factory=list)

    @property
    def matched_past_name(self) -> bool:
        return self.matched_name != self.name


def _name_matches(names: QuerySet, query: str, *, current: bool, rows: int) -> list[tuple]:
    """(exact, current, similarity, length, name, player id, player name, platform) rows
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
            "exact", "similarity", "length", "name", player_id, f"{prefix}name", f"{prefix}platform"
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
    for *_, matched, player_id, name, platform in rows:
        if player_id not in hits:
            hits[player_id] = PlayerHit(player_id, name, platform, matched)
        if len(hits) == limit:
            break
    for rating in (
        Rating.objects.filter(player_id__in=hits)
        .select_related("character")
        .order_by("-wins", "-losses", "character_id")
    ):
        hits[rating.player_id].ratings.append(rating)
    return list(hits.values())


def best_character_code(player_id: str) -> str | None:
    """The code of a visible player's best character: highest value - 3 * deviation."""
    return (
        Rating.objects.filter(player_id=player_id, player__hidden=False)
        .order_by((F("value") - 3 * F("deviation")).desc(), "character_id")
        .values_list("character__code", flat=True)
        .first()
    )


def rating_of(player_id: str, character_code: str) -> Rating | None:
    """A visible player's rating on a character, with player, character and best win."""
    return (
        Rating.objects.filter(
            player_id=player_id, player__hidden=False, character__code__iexact=character_code
        )
        .select_related("player", "character", "best_win_opponent", "best_win_character")
        .first()
    )


@dataclass(frozen=True)
class RatingOverview:
    """What a profile shows about one rating besides its history."""

    rating: Rating
    ratings: list[Rating]  # all the player's ratings, this one included, most played first
    past_names: list[PlayerName]
    matchups: list[PlayerMatchup]
    ranked: int  # how many ratings are ranked

    @property
    def top_percent(self) -> float | None:
        """The share of ranked ratings at or above this one, in percent ("top 4%")."""
        rank = self.rating.global_rank
        if rank is None or not self.ranked:
            return None
        return 100.0 * rank / self.ranked

    @property
    def best_win_hidden(self) -> bool:
        opponent = self.rating.best_win_opponent
        return opponent is not None and opponent.hidden


def rating_overview(player_id: str, character_code: str) -> RatingOverview | None:
    """A rating with the player's other ratings, past names and matchups (five queries)."""
    rating = rating_of(player_id, character_code)
    if rating is None:
        return None
    ratings = list(
        Rating.objects.filter(player_id=player_id)
        .select_related("character")
        .order_by(-(F("wins") + F("losses")), "character_id")
    )
    past_names = list(rating.player.names.exclude(name=rating.player.name).order_by("-last_seen"))
    matchups = list(
        rating.matchups.select_related("opponent_character").order_by("opponent_character_id")
    )
    return RatingOverview(rating, ratings, past_names, matchups, ranked_count())


# --- API-only reads -------------------------------------------------------------------


def character_by_key(key: str) -> Character | None:
    """A character by its short code (any case) or its integer id, as API URLs give it."""
    return next(
        (c for c in characters() if c.code.upper() == key.upper() or str(c.id) == key), None
    )


@dataclass(frozen=True)
class PlayerDetail:
    """A player with every rating (most played first) and every past name."""

    player: Player
    ratings: list[Rating]
    past_names: list[PlayerName]


def player_detail(player_id: str) -> PlayerDetail | None:
    """A visible player with all their ratings and past names (three queries)."""
    player = Player.objects.visible().filter(id=player_id).first()
    if player is None:
        return None
    ratings = list(
        player.ratings.select_related("character").order_by(
            -(F("wins") + F("losses")), "character_id"
        )
    )
    past_names = list(player.names.exclude(name=player.name).order_by("-last_seen"))
    return PlayerDetail(player, ratings, past_names)
