"""A rating's games (docs/pages-and-api.md#pages, `/player/<id>/<char>`, and its API's
`matches/`): each game seen from the rating's side, a page of them newest first with
cursor pagination, and the profile's history grouped in sets. Each function does a fixed
number of queries whatever the size of the data, on indexed columns only."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import NamedTuple

from django.db import connection

from matches.models import Match
from matches.ratings.glicko import win_probability
from players import rules
from players.models import Character, Rating
from players.selectors.ratings import roster_characters

GAMES_PER_PAGE = 50


@dataclass(frozen=True)
class GameCursor:
    """Where a page of match history ends: games strictly older than this one follow."""

    played_at: datetime
    match_id: int

    def __str__(self) -> str:
        seconds = self.played_at.timestamp()
        return f"{round(seconds * 1_000_000)}-{self.match_id}"

    @classmethod
    def parse(cls, text: str) -> GameCursor:
        """The cursor `str()` wrote; ValueError for anything else."""
        micros, _, match_id = text.partition("-")
        moment = datetime.fromtimestamp(int(micros) / 1_000_000, UTC)
        return cls(moment, int(match_id))


class GamePlayer(NamedTuple):
    """A player as a game's row shows them."""

    id: str
    name: str
    platform: str
    cheater: bool


# A private opponent (players.rules) as every history shows them: no name, no id, no link.
PRIVATE_PLAYER = GamePlayer("", "a private player", "", False)


@dataclass(frozen=True, slots=True)
class RatedGame:
    """One game seen from one rating's side."""

    match_id: int
    played_at: datetime
    floor: int | None
    won: bool
    value: float | None  # this side's rating before the game (None until rated)
    deviation: float | None
    change: float | None
    opponent: GamePlayer
    opponent_character: Character
    opponent_value: float | None
    opponent_deviation: float | None
    # P(this side wins) as shown before the game and stored with it: the expected score
    # its update used (docs/rating-model.md#one-chance). None until rated.
    win_probability: float | None = None
    counted: bool = False
    flagged: bool = False  # a player of the game is flagged for cheating now

    @property
    def model_win_probability(self) -> float | None:
        """P(this side wins) from both sides' ratings before the game alone (§4.2)."""
        if self.value is None or self.opponent_value is None or self.flagged:
            return None
        return win_probability(
            self.value, self.deviation, self.opponent_value, self.opponent_deviation
        )

    @property
    def uncertain(self) -> bool:
        """This side's rating was unsettled (shown ± of twice the low deviation or more)."""
        return _unsettled(self.deviation)

    @property
    def opponent_uncertain(self) -> bool:
        return _unsettled(self.opponent_deviation)

    @property
    def uncounted(self) -> bool:
        """Rated, but moved no rating (docs/rating-model.md#which-games-count)."""
        return self.change is not None and not self.counted

    @property
    def spared(self) -> bool:
        """Counted, yet this rating did not move: its opponent was on the fast track
        (docs/integrity.md#the-fast-track), whose counted games leave their opponents as
        they were. An update always moves a rating that takes it."""
        return self.counted and self.change == 0.0

    @property
    def uncounted_reason(self) -> str:
        """Why the game did not count, as far as the flags shown today tell."""
        if self.flagged:
            return "a player is flagged for cheating"
        return "a lopsided game between established players teaches the ratings nothing"


def _unsettled(deviation: float | None) -> bool:
    return deviation is not None and not rules.is_settled(deviation)


def _rated_game(row: tuple, rating: Rating) -> RatedGame:
    """A page row as a game. A game with a player flagged for cheating moves nobody: it has
    no chance, and a cheater's rating before it is not shown (theirs is shown nowhere)."""
    match_id, played_at, floor, winner, counted, *opponent, private, character_id = row[:11]
    value, deviation, change, opponent_value, opponent_deviation, my_winner, chance = row[11:]
    opponent_cheater = bool(opponent[3])
    flagged = opponent_cheater or rating.player.cheater
    if opponent_cheater:
        opponent_value = opponent_deviation = None
    return RatedGame(
        match_id,
        from_utc_wall_time(played_at),
        floor,
        winner == my_winner,
        value,
        deviation,
        change,
        PRIVATE_PLAYER if private else GamePlayer(*opponent[:3], opponent_cheater),
        roster_characters()[character_id],
        opponent_value,
        opponent_deviation,
        None if flagged else chance,
        counted=bool(counted),
        flagged=flagged,
    )


class GameCondition(NamedTuple):
    """A condition on a rating's games: SQL over matches_match's columns, its parameters
    named (distinct names for distinct conditions, as they are joined with AND)."""

    sql: str
    params: dict[str, object]


def _older_than(cursor: GameCursor) -> GameCondition:
    """Games strictly older than the cursor's, newest-first order being (played_at, id).

    The bound on played_at alone comes first so that it is a range condition on the
    (player, character, played_at) indexes: an index scan from the cursor on stops
    after a page, where `played_at < t OR (played_at = t AND id < n)` alone made
    PostgreSQL read every older game of the rating and sort them.
    """
    return GameCondition(
        "played_at <= %(cursor_at)s AND (played_at < %(cursor_at)s OR id < %(cursor_id)s)",
        _cursor_params(cursor),
    )


def _newer_than(cursor: GameCursor) -> GameCondition:
    """Games strictly newer than the cursor's (the mirror of `_older_than`)."""
    return GameCondition(
        "played_at >= %(cursor_at)s AND (played_at > %(cursor_at)s OR id > %(cursor_id)s)",
        _cursor_params(cursor),
    )


def _against(opponent_id: str) -> GameCondition:
    """Games against one opponent."""
    return GameCondition(
        "player_a_id = %(opponent)s OR player_b_id = %(opponent)s", {"opponent": opponent_id}
    )


def _cursor_params(cursor: GameCursor) -> dict[str, object]:
    at = connection.ops.adapt_datetimefield_value(cursor.played_at)
    return {"cursor_at": at, "cursor_id": cursor.match_id}


# A page of a rating's visible games: each side's ids picked along the side's own
# (player, character, played_at) index, the page's of both kept from the index alone
# (each with its side), and only those joined to the opponent and the results, each
# row's columns read from its side: the planner, which expects a rating to have a handful
# of games, otherwise joined every game of a busy rating before sorting and keeping a
# page of them; one join, not one a side, is half the planning. Hidden players are few:
# hashed, not joined. Raw: the ORM cannot join a limited UNION (the page, a CTE) to the
# games, and its plain query has the plan above that reads every game of the rating.
_PAGE_GAMES_SQL = """
WITH page AS ({side_a} UNION ALL {side_b}
    ORDER BY played_at {order}, id {order} LIMIT %(limit)s)
SELECT m.id, {played_at}, m.floor, m.winner, r.counted,
    p.id, p.name, p.platform, p.cheater, p.private, {theirs[character]},
    {mine[value]}, {mine[deviation]}, {mine[change]}, {theirs[value]}, {theirs[deviation]},
    CASE WHEN page.side = 'a' THEN '{winner_a}' ELSE '{winner_b}' END,
    CASE WHEN page.side = 'a' THEN r.chance_a ELSE 1.0 - r.chance_a END
FROM page JOIN matches_match m ON m.id = page.id
LEFT OUTER JOIN matches_matchrating r ON r.match_id = m.id
JOIN players_player p ON p.id = {theirs[player]}
ORDER BY 2 {order}, 1 {order}
"""
_SIDE_IDS_SQL = """SELECT id, played_at, '{mine}' AS side FROM (
    SELECT id, played_at FROM matches_match
    WHERE player_{mine}_id = %(player)s AND character_{mine}_id = %(character)s
        AND player_a_id NOT IN ({withdrawn_ids}) AND player_b_id NOT IN ({withdrawn_ids})
        {conditions}
    ORDER BY played_at {order}, id {order} LIMIT %(limit)s
) side_{mine}"""


def newest_games_sql() -> str:
    """SQL of a rating's newest visible games, newest first, at most %(limit)s (its other
    parameters: %(player)s, %(character)s): each game's id, played_at and the rating's
    side ('a' or 'b'), read along the side indexes as a page of history is."""
    ids = partial(
        _SIDE_IDS_SQL.format, conditions="", order="DESC", withdrawn_ids=rules.withdrawn_ids_sql()
    )
    return (
        f"{ids(mine='a')} UNION ALL {ids(mine='b')} "
        "ORDER BY played_at DESC, id DESC LIMIT %(limit)s"
    )


def _side_column(column: str, mine: bool) -> str:
    """The rating's (`mine`) or the opponent's column of a page row, `column` naming the
    two with {} for the side ("r.value_{}": value_a or value_b, as the row's side says)."""
    a, b = (column.format("a"), column.format("b"))[:: 1 if mine else -1]
    return f"CASE WHEN page.side = 'a' THEN {a} ELSE {b} END"


_MINE = {name: _side_column(f"r.{name}_{{}}", True) for name in ("value", "deviation", "change")}
_THEIRS = {
    **{name: _side_column(f"r.{name}_{{}}", False) for name in ("value", "deviation")},
    "character": _side_column("m.character_{}_id", False),
    "player": _side_column("m.player_{}_id", False),
}


def _rating_games(
    rating: Rating,
    conditions: Iterable[GameCondition],
    limit: int,
    *,
    newest_first: bool = True,
) -> list[RatedGame]:
    """The rating's visible games meeting all `conditions`, at most `limit`, newest first
    (or the oldest ones, oldest first); one query (`_PAGE_GAMES_SQL`): each side's page
    of ids, the page of both, and its games."""
    conditions = list(conditions)
    order = "DESC" if newest_first else "ASC"
    params: dict[str, object] = {
        "player": rating.player_id, "character": rating.character_id, "limit": limit
    }  # fmt: skip
    for condition in conditions:
        params.update(condition.params)
    where = "".join(f" AND ({condition.sql})" for condition in conditions)
    ids = partial(
        _SIDE_IDS_SQL.format, conditions=where, order=order, withdrawn_ids=rules.withdrawn_ids_sql()
    )
    sql = _PAGE_GAMES_SQL.format(
        side_a=ids(mine="a"),
        side_b=ids(mine="b"),
        order=order,
        played_at=utc_wall_time("m.played_at"),
        mine=_MINE,
        theirs=_THEIRS,
        winner_a=Match.Winner.A,
        winner_b=Match.Winner.B,
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [_rated_game(row, rating) for row in rows]


def utc_wall_time(column: str) -> str:
    """A moment column read as its wall time in UTC, which `from_utc_wall_time` makes a
    moment again: psycopg reads such a plain timestamp in C, several times faster than
    Django's loader reads an aware one in Python (a page's two hundred games' moments cost
    a millisecond)."""
    return f"{column} AT TIME ZONE 'UTC'"


def from_utc_wall_time(moment: datetime) -> datetime:
    """A moment read as its wall time in UTC (`utc_wall_time`), which comes back naive."""
    return moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class GameSet:
    """Consecutive games against the same opponent and characters; games newest first."""

    games: list[RatedGame]

    @property
    def first(self) -> RatedGame:
        return self.games[-1]

    @property
    def last(self) -> RatedGame:
        return self.games[0]

    @property
    def opponent(self) -> GamePlayer:
        return self.last.opponent

    @property
    def opponent_character(self) -> Character:
        return self.last.opponent_character

    @property
    def wins(self) -> int:
        return sum(game.won for game in self.games)

    @property
    def losses(self) -> int:
        return len(self.games) - self.wins

    @property
    def change(self) -> float | None:
        """The set's total rating change (None while a game is still unrated)."""
        changes = [game.change for game in self.games]
        return None if None in changes else sum(changes)

    @property
    def uncounted(self) -> int:
        return sum(game.uncounted for game in self.games)

    @property
    def spared(self) -> int:
        return sum(game.spared for game in self.games)

    @property
    def expected_wins(self) -> float | None:
        """The wins its games' shown chances add up to (None while a game is unrated)."""
        chances = [game.win_probability for game in self.games]
        return None if None in chances else sum(chances)

    @property
    def win_probability(self) -> float | None:
        """The odds of the set: P(win) before its first game, as shown."""
        return self.first.win_probability

    @property
    def games_oldest_first(self) -> list[RatedGame]:
        return self.games[::-1]


# Whether two games, newer then older, follow each other in the rating's history.
Adjacent = Callable[[RatedGame, RatedGame], bool]


def _group_sets(games: Iterable[RatedGame], adjacent: Adjacent | None = None) -> list[GameSet]:
    """`games` (newest first) in sets: games in a row against the same opponent and
    character. The games are the rating's whole history unless `adjacent` says which
    of them follow each other there."""
    sets: list[GameSet] = []
    for game in games:
        previous = sets[-1].games[-1] if sets else None
        if (
            previous is not None
            and previous.opponent.id == game.opponent.id
            and previous.opponent_character.id == game.opponent_character.id
            and (adjacent is None or adjacent(previous, game))
        ):
            sets[-1].games.append(game)
        else:
            sets.append(GameSet([game]))
    return sets


# For each of some games of a rating, the id of the rating's visible game just before
# it: each side's newest older game along the side's index (as a page reads them), the
# newer of the two. Raw: the ORM cannot join a list of (moment, id) pairs LATERALly.
_PREVIOUS_GAMES_SQL = """
SELECT g.id, (SELECT prior.id FROM ({side_a} UNION ALL {side_b}) prior
    ORDER BY prior.played_at DESC, prior.id DESC LIMIT 1)
FROM unnest(%(ids)s::bigint[], %(moments)s::timestamptz[]) AS g(id, played_at)
"""


def _history_neighbours(rating: Rating, games: list[RatedGame]) -> Adjacent:
    """Which of `games` (some of the rating's, newest first) follow each other in the
    rating's whole history: one query, two index probes a game."""
    ids = partial(
        _SIDE_IDS_SQL.format,
        conditions=" AND played_at <= g.played_at AND (played_at < g.played_at OR id < g.id)",
        order="DESC",
        withdrawn_ids=rules.withdrawn_ids_sql(),
    )
    params = {
        "player": rating.player_id,
        "character": rating.character_id,
        "limit": 1,
        "ids": [game.match_id for game in games],
        "moments": [game.played_at for game in games],
    }
    with connection.cursor() as cursor:
        cursor.execute(
            _PREVIOUS_GAMES_SQL.format(side_a=ids(mine="a"), side_b=ids(mine="b")), params
        )
        previous = dict(cursor.fetchall())
    return lambda newer, older: previous[newer.match_id] == older.match_id


def _sets(rating: Rating, games: list[RatedGame], opponent_id: str | None) -> list[GameSet]:
    """A page's games in sets, as the rating's whole history groups them (games against
    one opponent only may have had others between them)."""
    if opponent_id is None or not games:
        return _group_sets(games)
    return _group_sets(games, _history_neighbours(rating, games))


@dataclass(frozen=True)
class MatchSetPage:
    sets: list[GameSet]
    next_cursor: GameCursor | None  # older games: None on the last (oldest) page
    previous_cursor: GameCursor | None = None  # newer games: None on the newest page


def _cursor(game: RatedGame) -> GameCursor:
    return GameCursor(game.played_at, game.match_id)


def match_sets(
    rating: Rating,
    *,
    before: GameCursor | None = None,
    after: GameCursor | None = None,
    games: int = GAMES_PER_PAGE,
    opponent_id: str | None = None,
) -> MatchSetPage:
    """A page of the rating's match history grouped in sets, newest first; one query (two
    going back up past the newest page).

    The page holds about `games` games older than `before` (the newest games without a
    cursor) or, going back up, newer than `after`. It never cuts a set in two (unless
    one set alone is longer than a page); the next page (older) starts after its last
    game, the previous one (newer) before its first.

    With `opponent_id`, only the games against that player: the sets the whole history
    has against them (one more query finds which games follow each other there).
    """
    against = [] if opponent_id is None else [_against(opponent_id)]
    if after is not None and before is None:
        return _newer_sets(rating, after, games, opponent_id)
    conditions = [*against] if before is None else [_older_than(before), *against]
    rows = _rating_games(rating, conditions, games + 1)
    sets = _sets(rating, rows, opponent_id)
    newer = _cursor(rows[0]) if before is not None and rows else None
    if len(rows) <= games:
        return MatchSetPage(sets, None, newer)
    if len(sets) > 1:
        sets.pop()  # holds the extra game: it may go on past this page
    else:
        sets[0].games.pop()
    return MatchSetPage(sets, _cursor(sets[-1].games[-1]), newer)


def _newer_sets(
    rating: Rating, after: GameCursor, games: int, opponent_id: str | None
) -> MatchSetPage:
    """The page of sets just newer than `after` (the mirror of a page older than a cursor)."""
    conditions = [_newer_than(after)] + ([] if opponent_id is None else [_against(opponent_id)])
    rows = _rating_games(rating, conditions, games + 1, newest_first=False)
    if not rows:  # nothing newer (any more): the newest page
        return match_sets(rating, games=games, opponent_id=opponent_id)
    rows.reverse()
    sets = _sets(rating, rows, opponent_id)
    if len(rows) > games:
        if len(sets) > 1:
            sets.pop(0)  # holds the extra game: it may go on past this page
        else:
            sets[0].games.pop(0)
        newer = _cursor(sets[0].games[0])
    else:
        newer = None
    return MatchSetPage(sets, _cursor(sets[-1].games[-1]), newer)


@dataclass(frozen=True)
class GamePage:
    games: list[RatedGame]  # newest first
    next_cursor: GameCursor | None  # None on the last page


def rating_games(
    rating: Rating,
    *,
    before: GameCursor | None = None,
    opponent_id: str | None = None,
    since: datetime | None = None,
    games: int = GAMES_PER_PAGE,
) -> GamePage:
    """A page of the rating's visible games, newest first, optionally only against one
    opponent or from a moment on; one query. The next page starts after its last game."""
    if opponent_id == rating.player_id:
        return GamePage([], None)  # nobody plays themself
    conditions = [] if before is None else [_older_than(before)]
    if opponent_id is not None:
        conditions.append(_against(opponent_id))
    if since is not None:
        since_param = connection.ops.adapt_datetimefield_value(since)
        conditions.append(GameCondition("played_at >= %(since)s", {"since": since_param}))
    rows = _rating_games(rating, conditions, games + 1)
    if len(rows) <= games:
        return GamePage(rows, None)
    last = rows[games - 1]
    return GamePage(rows[:games], GameCursor(last.played_at, last.match_id))
