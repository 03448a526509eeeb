"""Applies games to ratings in memory, with every rule of docs/rating-model.md#which-games-count.

The rating service loads the states a batch touches, feeds the batch's games through
a `RatingLedger` in (played_at, id) order, hands each game's result to a
`MatchupLedger` and writes back what changed. Keeping this pure (plain objects, epoch
seconds, no Django) makes it fast and testable on its own, and lets the recompute keep
one pair of ledgers for the whole history, each on its own core.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from matches.ratings.glicko import (
    GlickoParams,
    chance,
    decay,
    game_counts,
    lasting_share,
    rate_game,
)
from matches.ratings.integrity import (
    TESTED_OPPONENT_DEVIATION,
    TESTED_START_CHANCE,
    Suspicion,
    alternate_account,
    surprise_beats,
    surprise_flagged,
)
from matches.ratings.matchup_offset import expected

SECONDS_PER_DAY = 86400

PlayerId = str
CharacterId = int
RatingKey = tuple[PlayerId, CharacterId]
# What character X is worth against character Y in rating points, per (X, Y); a pair
# missing (a mirror, or no estimate) is worth 0.
MatchupOffsets = Mapping[tuple[CharacterId, CharacterId], float]


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
    # The early-surprise test (docs/integrity.md): the games it read, their wins, the
    # sum of their chances and of p(1 - p); and the fast track's recent surprise.
    "surprise_games",
    "surprise_wins",
    "surprise_expected",
    "surprise_information",
    "recent_surprise",
    "confirmations",
    "confirming_players",
)


class RatingState:
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
        surprise_games: int = 0,
        surprise_wins: int = 0,
        surprise_expected: float = 0.0,
        surprise_information: float = 0.0,
        recent_surprise: float = 0.0,
        confirmations: int = 0,
        confirming_players: tuple[PlayerId, ...] = (),
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
        self.surprise_games = surprise_games
        self.surprise_wins = surprise_wins
        self.surprise_expected = surprise_expected
        self.surprise_information = surprise_information
        self.recent_surprise = recent_surprise
        # The distinct opponents, settled when they played it, of its counted games
        # (rules.confirmed), counted up to params.ranked_min_opponents; the players
        # counted, in the order met, only until then: memory stays bounded.
        self.confirmations = confirmations
        self.confirming_players = confirming_players

    def surprise_flagged(self, params: GlickoParams) -> bool:
        """Whether the early-surprise test has flagged this rating (it then reads no more)."""
        return surprise_flagged(
            self.surprise_games,
            self.surprise_wins,
            self.surprise_expected,
            self.surprise_information,
            params,
        )

    def fast_tracked(self, params: GlickoParams) -> bool:
        """Whether the fast track holds this rating (docs/integrity.md#the-fast-track):
        its test at the fast track's threshold, and its recent results still beating
        their chances by the margin."""
        return (
            params.fast_track_deviation > 0.0
            and self.recent_surprise >= params.fast_track_margin
            and surprise_flagged(
                self.surprise_games,
                self.surprise_wins,
                self.surprise_expected,
                self.surprise_information,
                params,
                params.fast_track_threshold,
            )
        )

    def observe_surprise(
        self,
        chance: float,
        start_chance: float,
        won: bool,
        opponent_deviation: float,
        params: GlickoParams,
    ) -> bool:
        """Follow one counted game with the early-surprise test and the fast track, after
        the update and before the game's win or loss is added: `chance` is this side's
        shown chance, `start_chance` the one a fresh rating (the initial value and
        deviation) would have had against the same opponent. Returns whether the test
        flags the rating with this game. Only games against settled opponents tell
        anything: an unsettled opponent's rating may be as wrong as this one's."""
        newly = False
        if opponent_deviation < TESTED_OPPONENT_DEVIATION * params.low_deviation:
            newly = self._read_surprise(chance, start_chance, won, params)
        # The early stage: a new rating whose first results beat what its start would have
        # done keeps a wide deviation for a few games, whatever the opponent.
        if self.early_fast_tracked(params):
            self.deviation = max(self.deviation, params.early_fast_track_deviation)
        return newly

    def early_fast_tracked(self, params: GlickoParams) -> bool:
        """Whether the fast track's early stage holds this rating
        (docs/integrity.md#the-early-stage): among its first games, its test's wins at
        least the early threshold's standard deviations above expectation."""
        return (
            params.fast_track_deviation > 0.0
            and self.wins + self.losses < params.early_fast_track_games
            and surprise_beats(
                self.surprise_wins,
                self.surprise_expected,
                self.surprise_information,
                params.early_fast_track_threshold,
            )
        )

    def _read_surprise(
        self, chance: float, start_chance: float, won: bool, params: GlickoParams
    ) -> bool:
        """A game against a (nearly) settled opponent: the recent surprise, the test's
        sums and the floor; whether the test flags the rating with it."""
        surprise = (1.0 if won else 0.0) - chance
        self.recent_surprise = params.surprise_memory * self.recent_surprise + surprise
        flagged = self.surprise_flagged(params)
        young = self.wins + self.losses < params.surprise_window
        newly = False
        # The test asks whether a fresh account keeps beating opponents a fresh account
        # should not beat so often: the games in which its start would have been about
        # even or favoured. A strong newcomer matched with strong players is not read;
        # one farming weaker players is, however fast its rating climbs.
        if not flagged and start_chance >= TESTED_START_CHANCE and young:
            self.surprise_games += 1
            self.surprise_wins += won
            self.surprise_expected += start_chance
            self.surprise_information += start_chance * (1.0 - start_chance)
            newly = flagged = self.surprise_flagged(params)
        # The floor is for a young account climbing to its level. Past the test's window
        # a rating's recent surprise still crosses the margin by chance at its level, and
        # the floor put back each time threw its value about (140 to 190 points a result).
        if young and self.fast_tracked(params):
            self.deviation = max(self.deviation, params.fast_track_deviation)
        return newly

    def confirmed(self, params: GlickoParams) -> bool:
        return self.confirmations >= params.ranked_min_opponents

    def confirm_by(self, own: PlayerId, opponent: PlayerId, params: GlickoParams) -> None:
        """Count an opponent, settled before a counted game against this rating, once."""
        if (
            self.confirmations >= params.ranked_min_opponents
            or opponent == own
            or opponent in self.confirming_players
        ):
            return
        self.confirmations += 1
        if self.confirmations >= params.ranked_min_opponents:
            self.confirming_players = ()
        else:
            self.confirming_players = (*self.confirming_players, opponent)

    def decay_to(self, moment: float, params: GlickoParams) -> None:
        """Grow the deviation for the idle time up to `moment`."""
        last = self.last_decay_at
        if last is None:
            # The decay clock starts at the first game.
            self.last_decay_at = moment
        # Most games fall within a period of the last one: nothing to do.
        elif moment - last >= params.decay_period_seconds:
            self.deviation, self.last_decay_at = decay(self.deviation, last, moment, params)


class MatchupSums:
    """A rating's running sums against one opposing character (docs/rating-model.md#matchups): what
    `OffsetEvidence` holds, kept mutable because every counted game adds to two of them."""

    __slots__ = ("expected_wins", "information", "losses", "wins")

    def __init__(
        self, wins: int = 0, losses: int = 0, expected_wins: float = 0.0, information: float = 0.0
    ) -> None:
        self.wins = wins
        self.losses = losses
        self.expected_wins = expected_wins
        self.information = information


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
    """What one game did to both sides: ratings before and after, whether it counted, and
    the chance of side A the site showed before it (`glicko.chance`).

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
    chance_a: float

    @property
    def change_a(self) -> float:
        return self.new_value_a - self.value_a

    @property
    def change_b(self) -> float:
        return self.new_value_b - self.value_b


# A young rating's counted game as the give-back reads it: the opponent, its change, and
# its counted games up to and with this one.
YoungGame = tuple[RatingKey, float, int]


@dataclass
class RatingLedger:
    """Ratings in memory, updated one game at a time (docs/rating-model.md#the-update and
    #which-games-count).

    `ratings` holds whatever the caller loaded; a rating a game needs that is missing
    starts fresh. `touched_ratings` records what changed so that only that is written
    back. What follows from the results (matchup sums, snapshots) is a `MatchupLedger`'s.
    """

    params: GlickoParams
    # Players who never move anyone's rating: hidden (opted out) or cheaters.
    excluded_players: frozenset[PlayerId] = frozenset()
    # The matchup offsets in force (one chance only); empty: ratings alone.
    offsets: MatchupOffsets = field(default_factory=dict)
    ratings: dict[RatingKey, RatingState] = field(default_factory=dict)
    touched_ratings: set[RatingKey] = field(default_factory=set)
    # Ratings the early-surprise test flagged since the caller last emptied this.
    suspects: set[RatingKey] = field(default_factory=set)
    # With the give-back on, a young rating's counted games (docs/integrity.md#giving-points-back):
    # per game its opponent, what the game changed the opponent's value by and the
    # opponent's counted games with it, kept while the rating is under the test's window
    # and unflagged, given back at its flag.
    young_games: dict[RatingKey, list[YoungGame]] = field(default_factory=dict)
    # The young games of a rating that are not in `young_games` (incremental rating: the
    # stored ones, before this ledger's first game; it also loads those opponents' states
    # into `ratings`). None: this ledger has seen every game from the start.
    stored_young_games: Callable[[RatingKey], list[YoungGame]] | None = None
    # Per rating flagged with the give-back on, the points its opponents were given back
    # (net: what its games had taken from them).
    given_back: dict[RatingKey, float] = field(default_factory=dict)

    def rating(self, key: RatingKey) -> RatingState:
        state = self.ratings.get(key)
        if state is None:
            state = RatingState(self.params.initial_rating, self.params.initial_deviation)
            self.ratings[key] = state
        return state

    def take_suspicions(self) -> list[Suspicion]:
        """The suspected alternate accounts flagged since the last call, with their
        evidence; `suspects` starts empty again."""
        suspicions = []
        for key in sorted(self.suspects):
            state = self.ratings[key]
            suspicions.append(
                alternate_account(
                    *key,
                    state.surprise_games,
                    state.surprise_wins,
                    state.surprise_expected,
                    state.surprise_information,
                )
            )
        self.suspects.clear()
        return suspicions

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
        offset = self.offsets.get((game.character_a, game.character_b), 0.0)
        chance_a = chance(value_a, deviation_a, value_b, deviation_b, params, offset)

        counted = (
            game.player_a not in self.excluded_players
            and game.player_b not in self.excluded_players
            and game_counts(value_a, deviation_a, value_b, deviation_b, game.a_won, params, offset)
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
                chance_a,
            )

        # A fast-tracked side's opponent keeps its rating: losing to an account rated far
        # below its play says nothing about the opponent (docs/integrity.md#the-fast-track).
        shield_a, shield_b = b.fast_tracked(params), a.fast_tracked(params)
        a.value, a.deviation, b.value, b.deviation = rate_game(
            value_a, deviation_a, value_b, deviation_b, 1.0 if game.a_won else 0.0, params, offset
        )
        if shield_a:
            a.value, a.deviation = value_a, deviation_a
        if shield_b:
            b.value, b.deviation = value_b, deviation_b
        if params.gives_back:
            self._follow_young(key_a, a, key_b, b.value - value_b)
            self._follow_young(key_b, b, key_a, a.value - value_a)
        start = params.initial_rating, params.initial_deviation
        start_chance_a = chance(*start, value_b, deviation_b, params, offset)
        start_chance_b = 1.0 - chance(value_a, deviation_a, *start, params, offset)
        flagged = []
        if a.observe_surprise(chance_a, start_chance_a, game.a_won, deviation_b, params):
            self.suspects.add(key_a)
            flagged.append(key_a)
        if b.observe_surprise(1.0 - chance_a, start_chance_b, not game.a_won, deviation_a, params):
            self.suspects.add(key_b)
            flagged.append(key_b)
        winner, loser = (a, b) if game.a_won else (b, a)
        loser_was_confirmed = loser.confirmed(params)
        # Each side is confirmed by an opponent settled before the game (one per player,
        # however often met): fresh spare accounts that only lose never are.
        if deviation_b < params.low_deviation:
            a.confirm_by(game.player_a, game.player_b, params)
        if deviation_a < params.low_deviation:
            b.confirm_by(game.player_b, game.player_a, params)
        winner.wins += 1
        loser.losses += 1
        for state in (a, b):
            state.last_played_at = (
                moment if state.last_played_at is None else max(state.last_played_at, moment)
            )
            if (
                state.deviation < params.low_deviation
                and state.confirmed(params)
                and (state.peak_value is None or state.value > state.peak_value)
            ):
                state.peak_value, state.peak_deviation, state.peak_at = (
                    state.value,
                    state.deviation,
                    moment,
                )
        loser_value, loser_deviation = (
            (value_b, deviation_b) if game.a_won else (value_a, deviation_a)
        )
        # A record counts only between rankable ratings: the winner's own ± after the game
        # (as for its peak) and the loser's before it, both below the ranking's threshold,
        # and both confirmed (the loser before the game).
        if (
            winner.deviation < params.low_deviation
            and winner.confirmed(params)
            and loser_deviation < params.low_deviation
            and loser_was_confirmed
            and (winner.best_win_value is None or loser_value > winner.best_win_value)
        ):
            loser_key = key_b if game.a_won else key_a
            winner.best_win_opponent, winner.best_win_character = loser_key
            winner.best_win_value, winner.best_win_deviation = loser_value, loser_deviation
            winner.best_win_at = moment
        result = GameResult(
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
            chance_a,
        )
        if params.gives_back:
            for key in flagged:
                self._give_back(key)
        for key, state in ((key_a, a), (key_b, b)):
            if state.wins + state.losses >= params.surprise_window:
                self.young_games.pop(key, None)
        return result

    def _follow_young(
        self, key: RatingKey, state: RatingState, opponent: RatingKey, change: float
    ) -> None:
        """Keep a counted game of a rating still young and unflagged (before the game's
        win or loss is added): its opponent and the opponent's change."""
        if state.wins + state.losses < self.params.surprise_window and not (
            state.surprise_flagged(self.params)
        ):
            opponent_state = self.ratings[opponent]
            played = opponent_state.wins + opponent_state.losses + 1
            self.young_games.setdefault(key, []).append((opponent, change, played))

    def _give_back(self, key: RatingKey) -> None:
        """At a rating's flag, its opponents get back what its games changed them by, as
        much of it as is still in their ratings (`lasting_share`: their later games have
        since pulled them back part of the way): their losses to an account rated far
        below its play said nothing about them (docs/integrity.md#giving-points-back).
        After the game's result is taken: the game's own change is given back too."""
        games = self.young_games.pop(key, [])
        if self.stored_young_games is not None:
            games = self.stored_young_games(key) + games
        returned = 0.0
        for opponent, change, played in games:
            state = self.rating(opponent)
            since = int(state.wins + state.losses) - played
            back = change * lasting_share(state.deviation, since)
            state.value -= back
            returned -= back
            self.touched_ratings.add(opponent)
        self.given_back[key] = returned


@dataclass
class MatchupLedger:
    """What counted games add beside the ratings: player matchup sums (a rating against
    an opposing character) and daily snapshots (docs/rating-model.md#matchups).

    It needs only the games and their `GameResult`s, never the ratings themselves, so
    a recompute can run it in a second process beside the `RatingLedger`. Sums do not
    depend on the order the games arrive in.
    """

    player_matchups: dict[tuple[RatingKey, CharacterId], MatchupSums] = field(default_factory=dict)
    snapshots: dict[tuple[RatingKey, int], tuple[float, float]] = field(default_factory=dict)
    touched_player_matchups: set[tuple[RatingKey, CharacterId]] = field(default_factory=set)

    def record(self, game: Game, result: GameResult) -> None:
        """Follow one rated game; games that did not count leave no trace here."""
        if not result.counted:
            return
        key_a = (game.player_a, game.character_a)
        key_b = (game.player_b, game.character_b)
        day = int(game.played_at // SECONDS_PER_DAY)
        snapshots = self.snapshots
        snapshots[(key_a, day)] = (result.new_value_a, result.new_deviation_a)
        snapshots[(key_b, day)] = (result.new_value_b, result.new_deviation_b)
        # Both sides see the same game: B's expectation is 1 - A's, the information equal.
        expected_a = expected(result.value_a - result.value_b)
        information = expected_a * (1.0 - expected_a)
        self._add((key_a, game.character_b), game.a_won, expected_a, information)
        self._add((key_b, game.character_a), not game.a_won, 1.0 - expected_a, information)

    def _add(
        self,
        matchup_key: tuple[RatingKey, CharacterId],
        won: bool,
        expected_win: float,
        information: float,
    ) -> None:
        sums = self.player_matchups.get(matchup_key)
        if sums is None:
            sums = self.player_matchups[matchup_key] = MatchupSums()
        if won:
            sums.wins += 1
        else:
            sums.losses += 1
        sums.expected_wins += expected_win
        sums.information += information
        self.touched_player_matchups.add(matchup_key)

    def take_snapshots(self) -> dict[tuple[RatingKey, int], tuple[float, float]]:
        """Remove and return the daily snapshots gathered since the last call."""
        taken, self.snapshots = self.snapshots, {}
        return taken
