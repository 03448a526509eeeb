"""Applies games to ratings in memory, with every rule of DESIGN.md sections 4.4 and 4.5.

The rating service loads the states a batch touches, feeds the batch's games through
a `RatingLedger` in (played_at, id) order, hands each game's result to a
`MatchupLedger` and writes back what changed. Keeping this pure (plain objects, epoch
seconds, no Django) makes it fast and testable on its own, and lets the recompute keep
one pair of ledgers for the whole history, each on its own core.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from matches.ratings.glicko import GlickoParams, decay, game_counts, rate_game, update

SECONDS_PER_DAY = 86400
BRACKETS: tuple[tuple[str, int | None], ...] = (("all", None), ("top1000", 1000), ("top100", 100))

PlayerId = str
CharacterId = int
RatingKey = tuple[PlayerId, CharacterId]


class _Decaying:
    """A deviation that grows while idle; subclasses hold `deviation` and `last_decay_at`."""

    __slots__ = ()
    deviation: float
    last_decay_at: float | None

    def decay_to(self, moment: float, params: GlickoParams) -> None:
        last = self.last_decay_at
        if last is None:
            # The decay clock starts at the first game.
            self.last_decay_at = moment
        # Most games fall within a period of the last one: nothing to do.
        elif moment - last >= params.decay_period_seconds:
            self.deviation, self.last_decay_at = decay(self.deviation, last, moment, params)


# A rating's state, in the order storage reads and writes it (the Rating model's columns,
# with `_id` on the two keys).
RATING_FIELDS = (
    "value",
    "deviation",
    "wins",
    "losses",
    "last_played_at",
    "last_decay_at",
    "peak_value",
    "peak_deviation",
    "peak_at",
    "best_win_opponent",
    "best_win_character",
    "best_win_value",
    "best_win_deviation",
    "best_win_at",
)


class RatingState(_Decaying):
    """One (player, character) rating with its records; times are epoch seconds."""

    __slots__ = ("rating_id", *RATING_FIELDS)

    def __init__(
        self,
        value: float,
        deviation: float,
        *,
        rating_id: int | None = None,
        wins: int = 0,
        losses: int = 0,
        last_played_at: float | None = None,
        last_decay_at: float | None = None,
        peak_value: float | None = None,
        peak_deviation: float | None = None,
        peak_at: float | None = None,
        best_win_opponent: PlayerId | None = None,
        best_win_character: CharacterId | None = None,
        best_win_value: float | None = None,
        best_win_deviation: float | None = None,
        best_win_at: float | None = None,
    ) -> None:
        self.rating_id = rating_id
        self.value = value
        self.deviation = deviation
        self.wins = wins
        self.losses = losses
        self.last_played_at = last_played_at
        self.last_decay_at = last_decay_at
        self.peak_value = peak_value
        self.peak_deviation = peak_deviation
        self.peak_at = peak_at
        self.best_win_opponent = best_win_opponent
        self.best_win_character = best_win_character
        self.best_win_value = best_win_value
        self.best_win_deviation = best_win_deviation
        self.best_win_at = best_win_at


class MatchupState(_Decaying):
    """A matchup rating (a player against a character, or a character pair)."""

    __slots__ = ("deviation", "last_decay_at", "losses", "value", "wins")

    def __init__(
        self,
        value: float,
        deviation: float,
        wins: int = 0,
        losses: int = 0,
        last_decay_at: float | None = None,
    ) -> None:
        self.value = value
        self.deviation = deviation
        self.wins = wins
        self.losses = losses
        self.last_decay_at = last_decay_at


class Game(NamedTuple):
    """A stored match as the ledger needs it; side A won when `a_won`.

    Game and GameResult are named tuples, not dataclasses: a recompute builds
    millions of them, and tuples are several times cheaper to create."""

    match_id: int
    played_at: float
    player_a: PlayerId
    character_a: CharacterId
    player_b: PlayerId
    character_b: CharacterId
    a_won: bool


class GameResult(NamedTuple):
    """What one game did to both sides: ratings before and after, and whether it counted.

    A game that did not count leaves both sides as they were (after decay)."""

    match_id: int
    value_a: float
    deviation_a: float
    value_b: float
    deviation_b: float
    new_value_a: float
    new_deviation_a: float
    new_value_b: float
    new_deviation_b: float
    counted: bool

    @property
    def change_a(self) -> float:
        return self.new_value_a - self.value_a

    @property
    def change_b(self) -> float:
        return self.new_value_b - self.value_b


@dataclass
class RatingLedger:
    """Ratings in memory, updated one game at a time (DESIGN 4.2 and 4.4).

    `ratings` holds whatever the caller loaded; a rating a game needs that is missing
    starts fresh. `touched_ratings` records what changed so that only that is written
    back. What follows from the results (matchups, snapshots) is a `MatchupLedger`'s.
    """

    params: GlickoParams
    # Players who never move anyone's rating: hidden (opted out) or cheaters.
    excluded_players: frozenset[PlayerId] = frozenset()
    ratings: dict[RatingKey, RatingState] = field(default_factory=dict)
    touched_ratings: set[RatingKey] = field(default_factory=set)

    def rating(self, key: RatingKey) -> RatingState:
        state = self.ratings.get(key)
        if state is None:
            state = RatingState(self.params.initial_rating, self.params.initial_deviation)
            self.ratings[key] = state
        return state

    def apply(self, game: Game) -> GameResult:
        """Rate one game: decay both sides to its time, then update if it counts."""
        params = self.params
        key_a = (game.player_a, game.character_a)
        key_b = (game.player_b, game.character_b)
        a = self.rating(key_a)
        b = self.rating(key_b)
        moment = game.played_at
        a.decay_to(moment, params)
        b.decay_to(moment, params)
        self.touched_ratings.add(key_a)
        self.touched_ratings.add(key_b)
        value_a, deviation_a, value_b, deviation_b = a.value, a.deviation, b.value, b.deviation

        counted = (
            game.player_a not in self.excluded_players
            and game.player_b not in self.excluded_players
            and game_counts(value_a, deviation_a, value_b, deviation_b, game.a_won, params)
        )
        if not counted:
            return GameResult(
                game.match_id,
                value_a,
                deviation_a,
                value_b,
                deviation_b,
                value_a,
                deviation_a,
                value_b,
                deviation_b,
                False,
            )

        a.value, a.deviation, b.value, b.deviation = rate_game(
            value_a, deviation_a, value_b, deviation_b, 1.0 if game.a_won else 0.0, params
        )
        winner, loser = (a, b) if game.a_won else (b, a)
        winner.wins += 1
        loser.losses += 1
        for state in (a, b):
            state.last_played_at = (
                moment if state.last_played_at is None else max(state.last_played_at, moment)
            )
            if state.deviation < params.low_deviation and (
                state.peak_value is None or state.value > state.peak_value
            ):
                state.peak_value, state.peak_deviation, state.peak_at = (
                    state.value,
                    state.deviation,
                    moment,
                )
        loser_value, loser_deviation = (
            (value_b, deviation_b) if game.a_won else (value_a, deviation_a)
        )
        if loser_deviation < params.low_deviation and (
            winner.best_win_value is None or loser_value > winner.best_win_value
        ):
            loser_key = key_b if game.a_won else key_a
            winner.best_win_opponent, winner.best_win_character = loser_key
            winner.best_win_value, winner.best_win_deviation = loser_value, loser_deviation
            winner.best_win_at = moment
        return GameResult(
            game.match_id,
            value_a,
            deviation_a,
            value_b,
            deviation_b,
            a.value,
            a.deviation,
            b.value,
            b.deviation,
            True,
        )


@dataclass
class MatchupLedger:
    """What counted games add beside the ratings: player matchups (a rating against an
    opponent character), character matchups and daily snapshots (DESIGN 4.5).

    It needs only the games and their `GameResult`s, never the ratings themselves, so
    a recompute can run it in a second process beside the `RatingLedger`.
    """

    params: GlickoParams
    # Character pairs gather thousands of games: a lower deviation floor (DESIGN 4.5).
    character_matchup_params: GlickoParams
    # Character ranks, for the top-N matchup brackets, and which brackets to maintain.
    character_ranks: dict[RatingKey, int] = field(default_factory=dict)
    brackets: tuple[tuple[str, int | None], ...] = BRACKETS
    player_matchups: dict[tuple[RatingKey, CharacterId], MatchupState] = field(default_factory=dict)
    character_matchups: dict[tuple[str, CharacterId, CharacterId], MatchupState] = field(
        default_factory=dict
    )
    snapshots: dict[tuple[RatingKey, int], tuple[float, float]] = field(default_factory=dict)
    touched_player_matchups: set[tuple[RatingKey, CharacterId]] = field(default_factory=set)
    touched_character_matchups: set[tuple[str, CharacterId, CharacterId]] = field(
        default_factory=set
    )

    def record(self, game: Game, result: GameResult) -> None:
        """Follow one rated game; games that did not count leave no trace here."""
        if not result.counted:
            return
        key_a = (game.player_a, game.character_a)
        key_b = (game.player_b, game.character_b)
        moment = game.played_at
        day = int(moment // SECONDS_PER_DAY)
        snapshots = self.snapshots
        snapshots[(key_a, day)] = (result.new_value_a, result.new_deviation_a)
        snapshots[(key_b, day)] = (result.new_value_b, result.new_deviation_b)
        score_a = 1.0 if game.a_won else 0.0
        self._update_player_matchup(
            (key_a, game.character_b),
            result.value_a,
            result.value_b,
            result.deviation_b,
            score_a,
            moment,
        )
        self._update_player_matchup(
            (key_b, game.character_a),
            result.value_b,
            result.value_a,
            result.deviation_a,
            1.0 - score_a,
            moment,
        )
        self.apply_character_matchups(game)

    def _update_player_matchup(
        self,
        matchup_key: tuple[RatingKey, CharacterId],
        own_value: float,
        opponent_value: float,
        opponent_deviation: float,
        score: float,
        moment: float,
    ) -> None:
        """One side against the other's character, updated against the opponent's rating."""
        params = self.params
        matchup = self.player_matchups.get(matchup_key)
        if matchup is None:
            # Starts at the player's rating at the time, fully uncertain.
            matchup = MatchupState(own_value, params.initial_deviation)
            self.player_matchups[matchup_key] = matchup
        matchup.decay_to(moment, params)
        matchup.value, matchup.deviation = update(
            matchup.value, matchup.deviation, opponent_value, opponent_deviation, score, params
        )
        if score:
            matchup.wins += 1
        else:
            matchup.losses += 1
        self.touched_player_matchups.add(matchup_key)

    def apply_character_matchups(self, game: Game) -> None:
        """(X vs Y) wins against (Y vs X) in every bracket both players belong to; mirrors skip."""
        if game.character_a == game.character_b:
            return
        if game.a_won:
            winner_character, loser_character = game.character_a, game.character_b
        else:
            winner_character, loser_character = game.character_b, game.character_a
        ranks = self.character_ranks
        params = self.character_matchup_params
        for bracket, limit in self.brackets:
            if limit is not None:
                rank_a = ranks.get((game.player_a, game.character_a))
                rank_b = ranks.get((game.player_b, game.character_b))
                if rank_a is None or rank_b is None or rank_a > limit or rank_b > limit:
                    continue
            win_key = (bracket, winner_character, loser_character)
            loss_key = (bracket, loser_character, winner_character)
            winning = self._character_matchup(win_key)
            losing = self._character_matchup(loss_key)
            winning_value, winning_deviation = winning.value, winning.deviation
            winning.value, winning.deviation = update(
                winning_value, winning_deviation, losing.value, losing.deviation, 1.0, params
            )
            losing.value, losing.deviation = update(
                losing.value, losing.deviation, winning_value, winning_deviation, 0.0, params
            )
            winning.wins += 1
            losing.losses += 1
            self.touched_character_matchups.add(win_key)
            self.touched_character_matchups.add(loss_key)

    def _character_matchup(self, key: tuple[str, CharacterId, CharacterId]) -> MatchupState:
        state = self.character_matchups.get(key)
        if state is None:
            state = MatchupState(self.params.initial_rating, self.params.initial_deviation)
            self.character_matchups[key] = state
        return state

    def take_snapshots(self) -> dict[tuple[RatingKey, int], tuple[float, float]]:
        """Remove and return the daily snapshots gathered since the last call."""
        taken, self.snapshots = self.snapshots, {}
        return taken
