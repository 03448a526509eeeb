"""Rankings (docs/pages-and-api.md#pages, `/` and `/top/<char>`): the top ratings, overall and
per character, ordered by the values of the moment they are read.

A rating is ranked as players.rules says: settled and confirmed, its player not flagged. Ranks are
positions in value order (ties by rating id), never stored: a list walks the partial
index on (value desc, id) or (character, value desc, id) and stops at its page's end;
a rating's rank counts the index entries ahead of it, less the ratings of flagged
players (few, and indexed).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from django.db import connection
from django.db.models import (
    Count,
    Exists,
    Expression,
    F,
    Func,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from players import rules
from players.formatting import shown_name, uncertainty_text
from players.models import Character, Player, Rating
from players.selectors.ratings import characters, roster_characters

RANKING_SIZE = 100
# The pager links to this many pages past the one shown, when they hold rows.
PAGES_AHEAD = 4
# The `?active=` choices: only ratings played within this many days.
ACTIVE_DAYS = (30,)


def ranked_ratings(
    character: Character | None = None,
    *,
    one_per_player: bool = False,
    active_since: datetime | None = None,
) -> QuerySet[Rating]:
    """Ranked ratings, best first (value, then id): overall or of one character.

    `one_per_player` keeps each player's best ranked rating only (overall rankings);
    `active_since` keeps ratings played since then.
    """
    # Flagged players are few and indexed: excluding their ids lets a page walk the ranked
    # index alone and stop at its end, where filtering on the joined player row has the
    # planner join every ranked rating to its player first (a deep page read them all).
    ratings = (
        Rating.objects.filter(rules.rankable())
        .exclude(player_id__in=Player.objects.flagged())
        .select_related("player", "character")
        .order_by("-value", "id")
    )
    if character is not None:
        ratings = ratings.filter(character=character)
    if active_since is not None:
        ratings = ratings.filter(last_played_at__gte=active_since)
    if one_per_player and character is None:
        better_of_same_player = Rating.objects.filter(
            rules.rankable(),
            Q(value__gt=OuterRef("value")) | Q(value=OuterRef("value"), id__lt=OuterRef("id")),
            player_id=OuterRef("player_id"),
        )
        if active_since is not None:
            better_of_same_player = better_of_same_player.filter(last_played_at__gte=active_since)
        ratings = ratings.filter(~Exists(better_of_same_player))
    return ratings


def _count(ratings: QuerySet[Rating]) -> Subquery:
    # COUNT as a plain function: an aggregate here would group the outer query.
    number = Func(F("id"), function="COUNT", output_field=IntegerField())
    return Subquery(ratings.order_by().annotate(n=number).values("n"))


def _one_row(**columns: Expression) -> tuple[int, ...]:
    """Expressions computed in one query (over one row of the small roster table)."""
    return tuple(Character.objects.annotate(**columns).values_list(*columns)[:1].get())


def _counts(*sets: QuerySet[Rating]) -> tuple[int, ...]:
    """How many of each set (already cut to low deviations) are ranked, in one query: each
    set counted whole on its index, less its ratings of flagged players, which are looked
    up player by player (they are few: hashing them would read every rating's row)."""
    flagged = Player.objects.flagged()

    def of_flagged(ratings: QuerySet[Rating]) -> Coalesce:
        each = flagged.annotate(n=_count(ratings.filter(player_id=OuterRef("id"))))
        total = Func(F("n"), function="SUM", output_field=IntegerField())
        return Coalesce(Subquery(each.order_by().values(total=total)), 0)

    return _one_row(
        **{f"c{n}": _count(ratings) - of_flagged(ratings) for n, ratings in enumerate(sets)}
    )


def ranked_count(character: Character | None = None) -> int:
    """How many ratings are ranked, overall or of one character."""
    ratings = Rating.objects.filter(rules.rankable())
    if character is not None:
        ratings = ratings.filter(character=character)
    return _counts(ratings)[0]


# A profile counts the ranked ratings (for "top 4%") up to this many times its overall
# rank: past that, its share is below 0.1%, which `top_percent` shows as "top 0.1%" either
# way, so the rest of the index need not be read.
RANKED_COUNTED_PER_RANK = 1000


@dataclass(frozen=True)
class RatingRanks:
    """Where a ranked rating stands now, as the rankings list it."""

    overall: int
    character: int
    ranked: int  # how many ratings are ranked overall, or counted (see `more_ranked`)
    more_ranked: bool = False  # more than `ranked` ratings are ranked: counting stopped

    @property
    def top_percent(self) -> float:
        """The share of ranked ratings at or above this one, in percent ("top 4%"); at
        most this when `more_ranked`."""
        return 100.0 * self.overall / self.ranked


# A rating's ranks in one query, as the rankings order (value desc, then id): the ranked
# ratings ahead of it counted on each index (value >= v bounds the walk; the few ties at v
# from its id on are dropped); the flagged players' ranked-width ratings, few, read once
# by player (left out in the counts instead, the counts would read every counted row) and
# taken off; and the first `counted` + flagged + 1 entries of the ranked index, from the
# index alone: when they are all of them, the ranked ones are exactly these less the
# flagged, else more than `counted` are ranked. Raw: the ORM writes no CTE, and without
# one each count reads the flagged ratings again.
_AHEAD = "value >= %(value)s AND NOT (value = %(value)s AND id >= %(id)s)"
_RANKS_SQL = f"""
WITH flagged AS MATERIALIZED (
    SELECT value, id, character_id FROM players_rating
    WHERE {{rankable}} AND player_id IN ({{flagged_ids}})
), counts AS (
    SELECT
        (SELECT COUNT(*) FROM players_rating WHERE {{rankable}} AND {_AHEAD})
        - (SELECT COUNT(*) FROM flagged WHERE {_AHEAD}) AS overall,
        (SELECT COUNT(*) FROM players_rating
            WHERE {{rankable}} AND {_AHEAD} AND character_id = %(character)s)
        - (SELECT COUNT(*) FROM flagged WHERE {_AHEAD} AND character_id = %(character)s)
        AS within,
        (SELECT COUNT(*) FROM flagged) AS flagged
)
SELECT overall, within, flagged, (SELECT COUNT(*) FROM (
    SELECT id FROM players_rating WHERE {{rankable}} ORDER BY value DESC, id
    LIMIT (SELECT %(per_rank)s * (1 + overall) + flagged + 1 FROM counts)
) walked)
FROM counts
"""


def rating_ranks(rating: Rating) -> RatingRanks | None:
    """The overall and character rank of a rating (None when unranked): one more than
    the ranked ratings ahead of it in the rankings' order; and how many are ranked, counted
    up to RANKED_COUNTED_PER_RANK times its rank. One query (`_RANKS_SQL`)."""
    if unranked_reason(rating) is not None:
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            _RANKS_SQL.format(rankable=rules.rankable_sql(), flagged_ids=rules.flagged_ids_sql()),
            {
                **rules.sql_params(),
                "value": rating.value,
                "id": rating.id,
                "character": rating.character_id,
                "per_rank": RANKED_COUNTED_PER_RANK,
            },
        )
        overall, character, flagged, walked = cursor.fetchone()
    counted = RANKED_COUNTED_PER_RANK * (1 + overall)
    ranked = walked - flagged
    return RatingRanks(
        overall=1 + overall,
        character=1 + character,
        ranked=min(ranked, counted),
        more_ranked=ranked > counted,
    )


UNSETTLED = "unsettled"  # unranked_reason of a rating whose ± is too wide
UNCONFIRMED = "unconfirmed"  # unranked_reason of one too few settled opponents have met


def unranked_reason(rating: Rating) -> str | None:
    """Why a rating is not ranked (None when it is): "hidden", "private", "cheater",
    "unsettled" (its ± too wide; matches.selectors.profile tells idle from too few games)
    or "unconfirmed" (too few distinct settled opponents: `opponents_to_confirm`). Reads
    the rating's loaded player."""
    player = rating.player
    if player.hidden:
        return "hidden"
    if player.private:  # seen only by its signed-in owner (players.views.ownership)
        return "private"
    if player.cheater:
        return "cheater"
    if not rules.is_settled(rating.deviation):
        return UNSETTLED
    if not rules.is_confirmed(rating.confirmations):
        return UNCONFIRMED
    return None


def opponents_to_confirm(rating: Rating) -> int:
    """How many more different opponents, each settled when they play it, a rating must
    meet in counted games to be confirmed (players.rules.confirmed); 0 once it is."""
    return max(0, rules.min_opponents() - rating.confirmations)


def top_rated_keys(limit: int) -> dict[tuple[str, int], int]:
    """The top `limit` ranked ratings of every character as {(player id, character id):
    rank within the character}, for the top-N matchup brackets (each batch the rating
    service rates asks). One ordered walk of the character index per character, read
    from the index alone: the few flagged players are skipped here rather than joined."""
    flagged = set(Player.objects.flagged().values_list("id", flat=True))
    keys: dict[tuple[str, int], int] = {}
    for character in characters():
        best = (
            Rating.objects.filter(rules.rankable(), character=character)
            .order_by("-value", "id")
            .values_list("player_id", flat=True)
        )
        ranked = (
            player_id for player_id in best[: limit + len(flagged)] if player_id not in flagged
        )
        for rank, player_id in zip(range(1, limit + 1), ranked, strict=False):
            keys[(player_id, character.id)] = rank
    return keys


class RankedRow(NamedTuple):
    """One line of a ranking: what the table shows of a ranked rating."""

    rank: int  # the position in the list shown
    player_id: str
    name: str
    platform: str
    supporter: bool
    character: Character
    value: float
    deviation: float
    wins: int
    losses: int

    @property
    def player(self) -> dict[str, str]:
        """The player's id, name and platform (what the API summarises of one)."""
        return {"id": self.player_id, "name": shown_name(self.name), "platform": self.platform}


def _rows_sql(
    ratings: QuerySet[Rating], start: int, stop: int, column: str = "", column_params: tuple = ()
) -> tuple[str, list[object]]:
    """SQL of rows `start` to `stop` of a ranking with their players' columns, in order,
    and one more `column` when given (its SQL, with `column_params`).

    The page's ratings are read in one ordered walk of the ranked index, which holds every
    column a row shows (from the index alone while the table is vacuumed), past the
    earlier rows; only then are players joined, to these rows only, by their key. The
    cut walk stays a derived table (a LIMIT is never flattened into the outer query):
    a join the planner saw whole would join every ranked rating of a deep page first.
    """
    columns = ("id", "player_id", "character_id", "value", "deviation", "wins", "losses")
    page, params = ratings.values_list(*columns)[start:stop].query.sql_with_params()
    sql = (
        "SELECT r.player_id, p.name, p.platform, p.supporter, r.character_id, r.value, "
        f"r.deviation, r.wins, r.losses{column} "
        f"FROM ({page}) r INNER JOIN {Player._meta.db_table} p ON p.id = r.player_id "
        "ORDER BY r.value DESC, r.id"
    )
    return sql, [*column_params, *params]


def _numbered(rows: list[tuple], start: int) -> list[RankedRow]:
    roster = roster_characters()
    return [
        RankedRow(rank, player_id, name, platform, supporter, roster[character_id], *numbers)
        for rank, (player_id, name, platform, supporter, character_id, *numbers) in enumerate(
            rows, start=start + 1
        )
    ]


def _fetched(sql: str, params: list[object]) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def ranked_rows(ratings: QuerySet[Rating], start: int, stop: int) -> list[RankedRow]:
    """Rows `start` to `stop` of a ranking (of `ranked_ratings`) in its order, numbered
    from `start` + 1, as plain values, each character the roster's (no join): a hundred
    rating and player objects cost more than the rest of a page. One query (`_rows_sql`).
    """
    return _numbered(_fetched(*_rows_sql(ratings, start, stop)), start)


def ranked_rows_counted(
    ratings: QuerySet[Rating], start: int, stop: int, bound: int
) -> tuple[list[RankedRow], int]:
    """`ranked_rows`, and how many ratings the ranking has, counted up to `bound` + 1
    only: in the same query when the page has rows (the count is computed once, not per
    row), else in a second one. A count and a page cost one round trip and one plan.
    When the count ends where the page does (`bound` == `stop`: a deep API page), the
    page's walk reads one row more and counts itself: a count of its own walked every
    entry before the page a second time."""
    counting = ratings.order_by().values("id")[: bound + 1]
    if bound == stop:
        rows = _fetched(*_rows_sql(ratings, start, stop + 1))
        if not rows:
            return [], counting.count()
        return _numbered(rows[: stop - start], start), start + len(rows)
    count_sql, count_params = counting.query.sql_with_params()
    rows = _fetched(
        *_rows_sql(
            ratings, start, stop, f", (SELECT COUNT(*) FROM ({count_sql}) counted)", count_params
        )
    )
    if not rows:
        return [], counting.count()
    return _numbered([row[:-1] for row in rows], start), rows[0][-1]


@dataclass(frozen=True)
class RankingPage:
    character: Character | None  # None: overall
    characters: list[Character]
    rows: list[RankedRow]
    one_per_player: bool
    active_days: int | None  # None: every ranked rating
    number: int  # the page, from 1
    has_next: bool
    empty_reason: str  # why nothing is ranked ("" when some rating is)
    last_page_seen: int = 1  # the last page known to hold rows (at most PAGES_AHEAD on)
    more_pages: bool = False  # pages past `last_page_seen` hold rows too


def ranking_page(
    character_code: str | None,
    *,
    one_per_player: bool = False,
    active_days: int | None = None,
    number: int = 1,
    now: datetime | None = None,
) -> RankingPage | None:
    """A page of 100 of the rankings, overall or of one character (None for an unknown
    code); two queries, a few more when the first page is empty.

    Overall, each player can appear once (their best ranked rating) or with every ranked
    character. Ranks are positions in the list shown (`ranked_rows`).
    """
    now = now or timezone.now()
    roster = characters()
    character = None
    if character_code is not None:
        character = next((c for c in roster if c.code.upper() == character_code.upper()), None)
        if character is None:
            return None
    one_per_player = one_per_player and character is None
    active_since = now - timedelta(days=active_days) if active_days else None
    start = (number - 1) * RANKING_SIZE
    ranked = ranked_ratings(character, one_per_player=one_per_player, active_since=active_since)
    # The ratings are counted only as far as the pages the pager offers, a few past this
    # one: a count of the whole ranking would cost as much as the ranking is long.
    bound = (number + PAGES_AHEAD) * RANKING_SIZE
    rows, counted = ranked_rows_counted(ranked, start, start + RANKING_SIZE, bound)
    empty_reason = ""
    if not rows and number == 1:
        empty_reason = why_nothing_is_ranked(character, active_days, now)
    return RankingPage(
        character,
        roster,
        rows,
        one_per_player,
        active_days,
        number,
        has_next=counted > start + RANKING_SIZE,
        empty_reason=empty_reason,
        last_page_seen=max(1, -(-min(counted, bound) // RANKING_SIZE)),
        more_pages=counted > bound,
    )


def ranking_position(
    player: str,
    character: Character | None,
    *,
    one_per_player: bool = False,
    active_days: int | None = None,
    bound: int,
    now: datetime | None = None,
) -> RankedRow | None:
    """Where a player stands in a ranking ("find me"): the row of their best ranked rating
    in it, its rank the position from 1, counted up to `bound` + 1 (a position past
    `bound` reads as `bound` + 1). `player` is a current name (any case) or a player id;
    among several players of one name, the best placed. None when none is ranked in it."""
    now = now or timezone.now()
    active_since = now - timedelta(days=active_days) if active_days else None
    ranked = ranked_ratings(character, one_per_player=one_per_player, active_since=active_since)
    named = Player.objects.visible().filter(Q(name__iexact=player) | Q(id=player))
    best = ranked.filter(player_id__in=named.values("id")).first()
    if best is None:
        return None
    ahead = ranked.filter(Q(value__gt=best.value) | Q(value=best.value, id__lt=best.id))
    return RankedRow(
        1 + ahead.order_by().values("id")[:bound].count(),
        best.player_id,
        best.player.name,
        best.player.platform,
        best.player.supporter,
        best.character,
        best.value,
        best.deviation,
        best.wins,
        best.losses,
    )


def why_nothing_is_ranked(
    character: Character | None, active_days: int | None, now: datetime
) -> str:
    """Why a ranking is empty, from the data: no games, every ± grown wide since the
    newest game, no narrow one confirmed yet, every ranked rating flagged, or none played
    lately."""
    ratings = Rating.objects.all() if character is None else character.ratings.all()
    seen = ratings.aggregate(
        count=Count("id"), newest=Max("last_played_at"), narrowest=Min("deviation")
    )
    low = rules.low_deviation()
    if not seen["count"]:
        return "No rating is ranked yet: no games yet."
    if seen["narrowest"] >= low:
        wide = f"the ± of every rating has grown past {2 * low:.0f}"
        if seen["newest"] is not None and now - seen["newest"] >= timedelta(days=1):
            days = (now - seen["newest"]).days
            return f"No rating is ranked yet: the newest game is {days} days old, so {wide}."
        return (
            f"No rating is ranked yet: the narrowest ± is {uncertainty_text(seen['narrowest'])}, "
            f"ranks need ± below {2 * low:.0f}, which comes with more games."
        )
    if not ratings.filter(rules.rankable()).exists():
        return (
            "No rating is ranked yet: a rating with a narrow ± is ranked once it has met "
            f"{rules.min_opponents()} different opponents who were settled when they played it."
        )
    if not ranked_count(character):
        return (
            "No rating is ranked: every rating with a narrow ± belongs to a hidden player "
            "or a cheater."
        )
    if active_days:
        return f"No ranked rating was played in the last {active_days} days."
    return ""  # a rating became ranked between the two reads
