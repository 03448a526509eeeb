"""Rivals (docs/pages-and-api.md#pages, `/player/<id>/<char>/vs/<id>`, and the profile's
"Players you meet most"): two players' record against each other over all their
characters, the chance of their next game as the calculator gives it, and the sets of a
rating against the other player, as its match history groups them.

Hidden players and cheaters have no rivals page and are never listed as someone's rival:
a cheater's games count for nobody, so their record and odds would mislead. Every
function does a fixed number of queries, each along the (player, character, played_at)
indexes of matches_match."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count, Q

from matches.models import Match
from matches.selectors.calculator import Contender, Forecast, win_forecast
from matches.selectors.match_history import GameCursor, MatchSetPage, match_sets, newest_games_sql
from players import rules
from players.models import Character, Player, Rating
from players.selectors.ratings import player_ratings, roster_characters

# "Players you meet most" counts the opponents of a rating's newest games only, so that
# the profile costs the same for a rating of ten thousand games as for one of fifty.
MEETINGS_WINDOW = 1000
MEETINGS_SHOWN = 10


@dataclass
class Tally:
    wins: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses


@dataclass
class Record:
    """Wins and losses: the games that moved ratings apart from those that did not and
    from those not rated yet."""

    counted: Tally = field(default_factory=Tally)
    uncounted: Tally = field(default_factory=Tally)
    pending: Tally = field(default_factory=Tally)

    @property
    def parts(self) -> tuple[Tally, Tally, Tally]:
        return self.counted, self.uncounted, self.pending

    @property
    def wins(self) -> int:
        return sum(part.wins for part in self.parts)

    @property
    def losses(self) -> int:
        return sum(part.losses for part in self.parts)

    @property
    def games(self) -> int:
        return self.wins + self.losses

    def add(self, won: bool, counted: bool | None, games: int) -> None:
        """`games` games won or lost, counted, not (False) or not rated yet (None)."""
        part = self.pending if counted is None else self.counted if counted else self.uncounted
        if won:
            part.wins += games
        else:
            part.losses += games


@dataclass(frozen=True)
class CharacterPairRecord:
    """The record of one of the player's characters against one of the opponent's."""

    character: Character
    opponent_character: Character
    record: Record


@dataclass(frozen=True)
class HeadToHead:
    """Two players' games against each other, from the first player's side."""

    rating: Rating  # the first player's rating the page is of, with player and character
    opponent: Player
    opponent_ratings: list[Rating]  # most played first
    opponent_rating: Rating  # the one the next game's chance is for
    total: Record  # every character of both
    by_characters: list[CharacterPairRecord]  # most games first
    forecast: Forecast  # the next game, as the calculator forecasts it
    sets: MatchSetPage  # this rating's sets against the opponent, newest first

    @property
    def player(self) -> Player:
        return self.rating.player


def head_to_head(
    player_id: str,
    character_code: str,
    opponent_id: str,
    *,
    opponent_character_code: str | None = None,
    before: GameCursor | None = None,
    after: GameCursor | None = None,
) -> HeadToHead | None:
    """The head-to-head of a player's rating against another player (None when either is
    hidden, a cheater or has no such rating, or both are one). The next game's chance is
    for the opponent's character `opponent_character_code` (one of theirs), else the one
    they last played against this rating, else their most played; about eight queries (one
    more going back up past the newest page of sets), the calculator's forecast reading the
    chance model and the calibration."""
    if player_id == opponent_id:
        return None
    ratings = player_ratings(player_id)
    code = character_code.upper()
    rating = next((r for r in ratings if r.character.code.upper() == code), None)
    opponent_ratings = player_ratings(opponent_id)
    if rating is None or not opponent_ratings:
        return None
    opponent = opponent_ratings[0].player
    if rating.player.cheater or opponent.cheater:
        return None
    sets = match_sets(rating, before=before, after=after, opponent_id=opponent_id)
    opponent_rating = _opponent_rating(opponent_ratings, opponent_character_code, sets)
    if opponent_rating is None:
        return None
    total, by_characters = _records(player_id, opponent_id)
    return HeadToHead(
        rating=rating,
        opponent=opponent,
        opponent_ratings=opponent_ratings,
        opponent_rating=opponent_rating,
        total=total,
        by_characters=by_characters,
        forecast=win_forecast(Contender.of(rating), Contender.of(opponent_rating)),
        sets=sets,
    )


def _opponent_rating(ratings: list[Rating], code: str | None, sets: MatchSetPage) -> Rating | None:
    """The opponent's rating the next game is forecast for (None: no rating on `code`)."""
    if code is not None:
        return next((r for r in ratings if r.character.code.upper() == code.upper()), None)
    if sets.sets and sets.previous_cursor is None:  # the newest page: its first set is the last
        last = sets.sets[0].opponent_character.id
        return next((r for r in ratings if r.character_id == last), ratings[0])
    return ratings[0]


def _records(player_id: str, opponent_id: str) -> tuple[Record, list[CharacterPairRecord]]:
    """Every visible game between the two players, from the first's side: in total and
    per pair of characters (one query; on a pair, the planner ANDs each side's index)."""
    rows = (
        Match.objects.filter(
            Q(player_a_id=player_id, player_b_id=opponent_id)
            | Q(player_a_id=opponent_id, player_b_id=player_id)
        )
        .values("player_a_id", "character_a_id", "character_b_id", "winner", "rating__counted")
        .annotate(games=Count("id"))
        .order_by()
    )
    roster = roster_characters()
    total = Record()
    pairs: dict[tuple[int, int], Record] = defaultdict(Record)
    for row in rows:
        mine_a = row["player_a_id"] == player_id
        won = row["winner"] == (Match.Winner.A if mine_a else Match.Winner.B)
        characters = (row["character_a_id"], row["character_b_id"])[:: 1 if mine_a else -1]
        for record in (total, pairs[characters]):
            record.add(won, row["rating__counted"], row["games"])
    by_characters = [
        CharacterPairRecord(roster[mine], roster[theirs], record)
        for (mine, theirs), record in sorted(
            pairs.items(), key=lambda item: (-item[1].games, item[0])
        )
    ]
    return total, by_characters


@dataclass(frozen=True)
class Meeting:
    """An opponent a rating met often, with the rating's record against them."""

    id: str  # the opponent's
    name: str
    platform: str
    games: int
    wins: int

    @property
    def losses(self) -> int:
        return self.games - self.wins


# The opponents of a rating's newest games, most met first: the games' ids read along the
# side indexes (as a page of history is), then only those joined to the matches, counted
# per opponent, and only the opponents joined to the players. Raw: the ORM cannot
# aggregate over a limited UNION.
_MEETINGS_SQL = """
WITH recent AS ({newest}),
met AS (
    SELECT CASE WHEN recent.side = 'a' THEN m.player_b_id ELSE m.player_a_id END AS opponent,
        count(*) AS games,
        count(*) FILTER (WHERE m.winner = CASE WHEN recent.side = 'a' THEN '{winner_a}'
            ELSE '{winner_b}' END) AS wins,
        max(recent.played_at) AS last_met
    FROM recent JOIN matches_match m ON m.id = recent.id
    GROUP BY 1
)
SELECT p.id, p.name, p.platform, met.games, met.wins
FROM met JOIN players_player p ON p.id = met.opponent
WHERE NOT ({flagged})
ORDER BY met.games DESC, met.last_met DESC, p.id
LIMIT %(shown)s
"""


def players_met_most(rating: Rating, *, shown: int = MEETINGS_SHOWN) -> list[Meeting]:
    """The players the rating met most in its newest MEETINGS_WINDOW games, most games
    first (ties: the most recently met first), hidden players and cheaters left out;
    one query."""
    sql = _MEETINGS_SQL.format(
        newest=newest_games_sql(),
        flagged=rules.flagged_sql("p"),
        winner_a=Match.Winner.A,
        winner_b=Match.Winner.B,
    )
    params = {
        "player": rating.player_id,
        "character": rating.character_id,
        "limit": MEETINGS_WINDOW,
        "shown": shown,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [Meeting(*row) for row in cursor.fetchall()]
