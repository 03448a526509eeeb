"""Search (docs/pages-and-api.md#pages, `/search`): players by current or past name."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import NamedTuple

from django.conf import settings
from django.db.models import (
    BooleanField,
    CharField,
    DateTimeField,
    F,
    FloatField,
    Func,
    Q,
    Value,
)
from django.utils.timezone import localtime

from players import rules
from players.formatting import player_summary, rating_text, search_text
from players.models import Character, Player, PlayerName, Rating
from players.selectors.ratings import roster_characters
from web.timeouts import fetch_within

SEARCH_LIMIT = 50
PLATFORMS = dict(Player.Platform.choices) | {"": ""}


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
    # The query is the matched name, ignoring case, spaces and invisible characters.
    exact_name: bool
    # ... and the matched name is this player's current one.
    exact_current_name: bool
    ratings: list[HitRating] = field(default_factory=list)

    @property
    def matched_past_name(self) -> bool:
        return self.matched_name != self.name

    @property
    def games(self) -> int:
        """The rated games over all the player's characters."""
        return sum(rating.games for rating in self.ratings)

    @property
    def main(self) -> HitRating | None:
        """The most played rating, if any."""
        return max(self.ratings, key=lambda rating: rating.games, default=None)

    @property
    def summary(self) -> str:
        """The main character and its rating, the platform and the day last seen
        (players.formatting.player_summary): what tells this player from others of their
        name."""
        main = self.main
        return player_summary(
            main.character.name if main else "",
            rating_text(main.value, main.deviation) if main else "",
            PLATFORMS.get(self.platform, self.platform),
            localtime(self.last_seen),
        )


@dataclass(frozen=True)
class PlayerSearch:
    """The players a search found, best match first, and whether more names match than
    one search reads (then the hits are the best of those it read)."""

    hits: list[PlayerHit]
    more_match: bool
    # Every hit only like the query (pg_trgm): no name contains it.
    like_only: bool = False


class NameKey(Func):
    """`players_name_key(name)` (players/migrations/0019): a name in upper case without
    whitespace or invisible formatting characters, what search compares. Names have it
    stored (their `name_key`, players.models.NAME_KEY); a query's is computed once, by
    the planner (the function is immutable)."""

    function = "players_name_key"
    output_field = CharField()


class ShownAs(Func):
    """`players_name_shown_as(name)` (players/migrations/0019): what a name with a
    right-to-left override showed as before the site neutralised it."""

    function = "players_name_shown_as"
    output_field = CharField()


class Similar(Func):
    """pg_trgm's `a % b`: the two share enough trigrams (similarity over 0.3)."""

    arg_joiner = " %% "
    template = "(%(expressions)s)"
    output_field = BooleanField()


class Similarity(Func):
    function = "similarity"
    output_field = FloatField()


# The partial indexes of shown-as keys (players/migrations/0019) hold only names with a
# right-to-left override; this condition, spelt as their predicate, lets a query use them.
OVERRIDDEN = Q(name__regex=r"\u202e")
# The tiers of a match, best first. Names containing the query further on, or like it, are
# read only for a query this long: a shorter one is in so many names that reading them
# costs seconds (issue 35); its exact names and prefixes walk a btree, and cost little.
EXACT, SHOWED_AS, PREFIX, CONTAINS, SIMILAR = range(5)
FRAGMENT_MIN_LENGTH = 3
# Names like the query are for a misspelt name: read only when fewer names than this match
# it otherwise. Past that they are noise, and reading them costs the most of any tier and
# grows with the names stored (every name sharing a trigram is rechecked: 600 on 20,000
# players, for 2 of a search's 5 ms in the database).
SIMILAR_BELOW = 10
SHORT_TIERS = (EXACT, SHOWED_AS, PREFIX)
PRECISE_TIERS = (EXACT, SHOWED_AS, PREFIX, CONTAINS)


def _tier_conditions(query: str) -> list[Q]:
    """One condition per tier on names annotated with `key` and `shown_key`, each
    excluding the tiers before it: exact keys, names that showed as the query (behind a
    right-to-left override: `shown_key`), keys starting with the query's key, keys
    containing it further on (both also by `shown_key`), keys similar to it (by trigrams).
    Only the first is an exact name: a search never goes straight to a name that showed
    as another."""
    wanted = NameKey(Value(query))

    def key_or_shown(lookup: str) -> Q:
        return Q(**{f"key__{lookup}": wanted}) | (
            OVERRIDDEN & Q(**{f"shown_key__{lookup}": wanted})
        )

    exact = Q(key=wanted)
    showed_as, prefix, contains = (
        key_or_shown("exact"),
        key_or_shown("startswith"),
        key_or_shown("contains"),
    )
    similar = Q(Similar(F("key"), wanted)) & ~Q(key__contains=wanted)
    return [exact, showed_as & ~exact, prefix & ~showed_as, contains & ~prefix, similar]


# Where the query goes in a search's compiled SQL (`_names_sql`): a parameter value no
# other parameter of it has.
_QUERY = "\x00search query\x00"


@cache
def _names_sql(tiers: tuple[int, ...], rows: int) -> tuple[str, tuple, tuple[int, ...]]:
    """The SQL reading `tiers` for `_matching_names`, `rows` at most, compiled once per
    process: its parameters, and the positions among them that are the query (the rest
    are constants). A search's SQL differs from another's only there, and the querysets
    of its union cost more to build and compile than the database takes to read them
    (issue 35: 150-280 ms under load on 1.5M players, every search)."""
    columns = ("name", "platform", "last_seen", "supporter", "cheater")
    current = Player.objects.visible().values_list("id", *columns)
    past = (
        PlayerName.objects.filter(~rules.hidden("player__"))
        .exclude(name=F("player__name"))
        .order_by()  # unordered, so that a read stops at its limit
        .values_list("player_id", *(f"player__{column}" for column in columns))
    )
    kinds = [
        names.alias(key=F("name_key"), shown_key=NameKey(ShownAs("name"))).annotate(
            current=Value(is_current), matched=F("name")
        )
        for is_current, names in ((True, current), (False, past))
    ]
    parts = []
    conditions = _tier_conditions(_QUERY)
    for tier in tiers:
        matching = conditions[tier]
        for names in kinds:
            part = names.filter(matching).annotate(tier=Value(tier))
            if tier == SIMILAR:
                closeness = Similarity(F("key"), NameKey(Value(_QUERY)))
                part = part.annotate(closeness=closeness).order_by("-closeness")
            else:
                part = part.annotate(closeness=Value(1.0))
            # PostgreSQL plans each part of a union for reading it whole unless the part has
            # a limit of its own.
            parts.append(part[:rows])
    # The parts are read in order until `rows` are found: the tiers after are not read.
    union = parts[0].union(*parts[1:], all=True)[:rows]
    sql, params = union.query.sql_with_params()
    return sql, params, tuple(n for n, param in enumerate(params) if param == _QUERY)


def _matching_names(query: str, rows: int) -> list[tuple]:
    """(player id, current name, platform, last seen, supporter, cheater, current,
    matched name, tier, closeness) rows of visible players' names that match `query`, best
    tier first (_tier_conditions; in each, current names then past ones; the similar tier
    most similar first), `rows` at most. One query reads the tiers up to names containing
    the query and stops after `rows` of them; a second reads names like it, when the first
    found fewer than SIMILAR_BELOW."""
    short = len(query) < FRAGMENT_MIN_LENGTH
    found = _read_tiers(SHORT_TIERS if short else PRECISE_TIERS, query, rows)
    if not short and len(found) < SIMILAR_BELOW:
        found += _read_tiers((SIMILAR,), query, rows)[: rows - len(found)]
    return found


def _read_tiers(tiers: tuple[int, ...], query: str, rows: int) -> list[tuple]:
    """`_names_sql`'s rows for `query`, within SEARCH_TIMEOUT_MS (web.timeouts: a 503
    after it)."""
    sql, constants, at = _names_sql(tiers, rows)
    params = list(constants)
    for position in at:
        params[position] = query
    return fetch_within(settings.SEARCH_TIMEOUT_MS, sql, params)


def find_players(
    query: str, *, limit: int = SEARCH_LIMIT, last_played: bool = True
) -> PlayerSearch:
    """Visible players whose current or any past name contains `query` (ignoring case),
    best match first: exact names, then names starting with it, then names containing it
    further on (from three characters: FRAGMENT_MIN_LENGTH); within each, current names
    before past ones, then the shortest; then, when fewer than SIMILAR_BELOW names match
    so far, names like it (pg_trgm similarity, most similar first). Hidden players are
    never found, by any of their names.

    One query reads the names tier by tier and stops after `limit` + 1 of them (see
    PlayerSearch), a second names like the query when it must, another the hits'
    ratings. The names' queries have SEARCH_TIMEOUT_MS each to answer
    (web.timeouts: a 503 after it). On PostgreSQL exact names and prefixes walk the
    btree indexes of the stored name keys (players/migrations/0024), names containing the
    query their trigram indexes, or the table when most names contain it, each as far as the
    page needs: a fragment in a hundred thousand names reads a few dozen. A tier cut short
    shows the shortest of the names it read.

    `last_played=False` leaves every rating's `last_played_at` None, for a page that does not
    show it: reading a time costs as much as placing the rest of the rating.
    """
    query = search_text(query)
    if not query:
        return PlayerSearch([], more_match=False)
    rows = _matching_names(query, limit + 1)
    # Best first, so that each player is shown by their best matching name.
    rows.sort(key=lambda row: (row[8], -row[9], not row[6], len(row[7]), row[7].casefold(), row[0]))
    hits: dict[str, PlayerHit] = {}
    for player_id, name, platform, last_seen, supporter, cheater, current, matched, tier, _ in rows:
        if player_id not in hits and len(hits) < limit:
            hits[player_id] = PlayerHit(
                player_id,
                name,
                platform,
                matched,
                last_seen,
                supporter,
                cheater,
                exact_name=tier == EXACT,
                exact_current_name=tier == EXACT and bool(current),
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
    return PlayerSearch(
        list(hits.values()),
        more_match=len(rows) > limit,
        like_only=bool(rows) and all(row[8] == SIMILAR for row in rows),
    )


def search_players(query: str, *, limit: int = SEARCH_LIMIT) -> list[PlayerHit]:
    """The players of `find_players`."""
    return find_players(query, limit=limit).hits
