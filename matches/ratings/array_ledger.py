"""The rating ledger compiled for the recompute: every rule of `RatingLedger.apply` and
what `MatchupLedger.record` follows, over arrays indexed by rating number
(docs/rating-model.md).

A full recompute replays every stored game through one ledger. In Python each game
costs tens of microseconds of object handling; here the states are columns of numpy
arrays and the loop is compiled by numba, so a game costs a fraction of a microsecond.
`RatingLedger` stays the reference (incremental rating uses it);
tests/ratings/test_array_ledger.py checks on random leagues that both give the same numbers
to 1e-9.

Ratings are numbered 0, 1, ... by the caller, in order of first game; a number's
player and character are the caller's to remember.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from matches.ratings.glicko import _Q2, G_FACTOR, GlickoParams, Q
from matches.ratings.integrity import TESTED_OPPONENT_DEVIATION, TESTED_START_CHANCE
from matches.ratings.ledger import RATING_FIELDS, SECONDS_PER_DAY, MatchupOffsets

# Per-game result columns, as `GameResult` names them (before and after both sides).
RESULT_COLUMNS = (
    "value_a",
    "deviation_a",
    "value_b",
    "deviation_b",
    "new_value_a",
    "new_deviation_a",
    "new_value_b",
    "new_deviation_b",
    "chance_a",
)
_NO_RATING = -1


@njit(cache=True, nogil=True)
def _g(deviation: float) -> float:
    return 1.0 / math.sqrt(1.0 + G_FACTOR * deviation * deviation)


@njit(cache=True, nogil=True)
def _chance(va: float, da: float, vb: float, db: float, offset: float, p: np.ndarray) -> float:
    # glicko.chance
    combined = _g(math.sqrt(da * da + db * db))
    if p[_ONE_CHANCE] == 0.0:
        return 1.0 / (1.0 + 10.0 ** (-combined * (va - vb) / 400.0))
    slope = combined * (1.0 - p[_DAMPING])
    return 1.0 / (1.0 + 10.0 ** (-slope * (va - vb + offset) / 400.0))


@njit(cache=True, nogil=True)
def _update_from_expected(
    rating: float,
    deviation: float,
    opponent_deviation: float,
    score: float,
    e: float,
    minimum_deviation: float,
) -> tuple[float, float]:
    # glicko.update_from_expected, term for term, so that both round alike.
    g_o = _g(opponent_deviation)
    denominator = 1.0 / (deviation * deviation) + _Q2 * g_o * g_o * e * (1.0 - e)
    new_deviation = math.sqrt(1.0 / denominator)
    if new_deviation < minimum_deviation:
        new_deviation = minimum_deviation
    return rating + Q / denominator * g_o * (score - e), new_deviation


@njit(cache=True, nogil=True)
def _expected_score(rating: float, opponent_rating: float, opponent_deviation: float, damping):
    # glicko.expected_score
    exponent = -_g(opponent_deviation) * (rating - opponent_rating) / 400.0 * (1.0 - damping)
    return 1.0 / (1.0 + 10.0**exponent)


@njit(cache=True, nogil=True)
def _counts(va: float, da: float, vb: float, db: float, a_won: bool, p_a: float, p) -> bool:
    # glicko.game_counts, with the chance of A already known
    p_winner = p_a if a_won else 1.0 - p_a
    margin = p[_COUNTING_MARGIN]
    if margin < p_winner < 1.0 - margin:
        return True
    return math.sqrt((da * da + db * db) / 2.0) >= p[_COUNTING_RMS]


@njit(cache=True, nogil=True)
def _decay_to(r: int, moment: float, deviation: np.ndarray, last_decay: np.ndarray, p: np.ndarray):
    # RatingState.decay_to with glicko.decay
    last = last_decay[r]
    if math.isnan(last):
        last_decay[r] = moment
    elif moment - last >= p[_DECAY_PERIOD]:
        periods = math.floor((moment - last) / p[_DECAY_PERIOD])
        if periods > 0:
            deviation[r] = min(
                math.sqrt(deviation[r] * deviation[r] + periods * p[_DECAY_CONSTANT] ** 2),
                p[_MAXIMUM_DEVIATION],
            )
            last_decay[r] = last + periods * p[_DECAY_PERIOD]


@njit(cache=True, nogil=True)
def _decay_all(until: float, deviation: np.ndarray, last_decay: np.ndarray, p: np.ndarray):
    for r in range(deviation.shape[0]):
        if not math.isnan(last_decay[r]):
            _decay_to(r, until, deviation, last_decay, p)


def decayed(
    deviation: np.ndarray, last_decay_at: np.ndarray, until: float, params: GlickoParams
) -> tuple[np.ndarray, np.ndarray]:
    """glicko.decay of every rating up to `until` (epoch seconds), as new arrays of
    (deviation, last_decay_at); a NaN last_decay_at never decays."""
    deviation = np.array(deviation, dtype=np.float64)
    last_decay_at = np.array(last_decay_at, dtype=np.float64)
    _decay_all(float(until), deviation, last_decay_at, _param_array(params))
    return deviation, last_decay_at


# Positions in the parameter array (`_param_array`).
(
    _MINIMUM_DEVIATION,
    _DECAY_CONSTANT,
    _DECAY_PERIOD,
    _MAXIMUM_DEVIATION,
    _LOW_DEVIATION,
    _DAMPING,
    _COUNTING_MARGIN,
    _COUNTING_RMS,
    _ONE_CHANCE,
    _SURPRISE_WINDOW,
    _SURPRISE_MIN_GAMES,
    _SURPRISE_THRESHOLD,
    _SURPRISE_MEMORY,
    _FAST_TRACK_DEVIATION,
    _FAST_TRACK_MARGIN,
    _INITIAL_RATING,
    _INITIAL_DEVIATION,
    _FAST_TRACK_THRESHOLD,
    _MIN_OPPONENTS,
    _GIVE_BACK,
    _EARLY_GAMES,
    _EARLY_THRESHOLD,
    _EARLY_DEVIATION,
) = range(23)


def _param_array(params: GlickoParams) -> np.ndarray:
    return np.array(
        [
            params.minimum_deviation,
            params.decay_constant,
            params.decay_period_seconds,
            params.maximum_deviation,
            params.low_deviation,
            params.update_damping,
            params.counting_margin,
            params.counting_rms_deviation,
            float(params.one_chance),
            float(params.surprise_window),
            float(params.surprise_min_games),
            params.surprise_threshold,
            params.surprise_memory,
            params.fast_track_deviation,
            params.fast_track_margin,
            params.initial_rating,
            params.initial_deviation,
            params.fast_track_threshold,
            float(params.ranked_min_opponents),
            float(params.gives_back),
            float(params.early_fast_track_games),
            params.early_fast_track_threshold,
            params.early_fast_track_deviation,
        ]
    )


@njit(cache=True, nogil=True)
def _surprise_beats(wins, expected, information, threshold) -> bool:
    # integrity.surprise_beats
    return information > 0.0 and wins - expected >= threshold * math.sqrt(information)


@njit(cache=True, nogil=True)
def _surprise_flagged(games, wins, expected, information, p, threshold) -> bool:
    # integrity.surprise_flagged
    return games >= p[_SURPRISE_MIN_GAMES] and _surprise_beats(
        wins, expected, information, threshold
    )


@njit(cache=True, nogil=True)
def _fast_tracked(r: int, s, p) -> bool:
    # RatingState.fast_tracked
    return (
        p[_FAST_TRACK_DEVIATION] > 0.0
        and s[_RECENT_SURPRISE, r] >= p[_FAST_TRACK_MARGIN]
        and _surprise_flagged(
            s[_SURPRISE_GAMES, r],
            s[_SURPRISE_WINS, r],
            s[_SURPRISE_EXPECTED, r],
            s[_SURPRISE_INFORMATION, r],
            p,
            p[_FAST_TRACK_THRESHOLD],
        )
    )


@njit(cache=True, nogil=True)
def _early_fast_tracked(r: int, s, p) -> bool:
    # RatingState.early_fast_tracked
    return (
        p[_FAST_TRACK_DEVIATION] > 0.0
        and s[_WINS, r] + s[_LOSSES, r] < p[_EARLY_GAMES]
        and _surprise_beats(
            s[_SURPRISE_WINS, r],
            s[_SURPRISE_EXPECTED, r],
            s[_SURPRISE_INFORMATION, r],
            p[_EARLY_THRESHOLD],
        )
    )


@njit(cache=True, nogil=True)
def _observe_surprise(
    r: int, chance: float, start_chance: float, won: bool, opponent_deviation: float, s, p
) -> bool:
    # RatingState.observe_surprise, on rating r's columns
    newly = False
    if opponent_deviation < TESTED_OPPONENT_DEVIATION * p[_LOW_DEVIATION]:
        newly = _read_surprise(r, chance, start_chance, won, s, p)
    if _early_fast_tracked(r, s, p):
        s[_DEVIATION, r] = max(s[_DEVIATION, r], p[_EARLY_DEVIATION])
    return newly


@njit(cache=True, nogil=True)
def _read_surprise(r: int, chance: float, start_chance: float, won: bool, s, p) -> bool:
    # RatingState._read_surprise
    s[_RECENT_SURPRISE, r] = p[_SURPRISE_MEMORY] * s[_RECENT_SURPRISE, r] + (
        (1.0 if won else 0.0) - chance
    )
    flagged = _surprise_flagged(
        s[_SURPRISE_GAMES, r],
        s[_SURPRISE_WINS, r],
        s[_SURPRISE_EXPECTED, r],
        s[_SURPRISE_INFORMATION, r],
        p,
        p[_SURPRISE_THRESHOLD],
    )
    young = s[_WINS, r] + s[_LOSSES, r] < p[_SURPRISE_WINDOW]
    newly = False
    if not flagged and start_chance >= TESTED_START_CHANCE and young:
        s[_SURPRISE_GAMES, r] += 1.0
        s[_SURPRISE_WINS, r] += 1.0 if won else 0.0
        s[_SURPRISE_EXPECTED, r] += start_chance
        s[_SURPRISE_INFORMATION, r] += start_chance * (1.0 - start_chance)
        newly = _surprise_flagged(
            s[_SURPRISE_GAMES, r],
            s[_SURPRISE_WINS, r],
            s[_SURPRISE_EXPECTED, r],
            s[_SURPRISE_INFORMATION, r],
            p,
            p[_SURPRISE_THRESHOLD],
        )
    if young and _fast_tracked(r, s, p):
        s[_DEVIATION, r] = max(s[_DEVIATION, r], p[_FAST_TRACK_DEVIATION])
    return newly


@njit(cache=True, nogil=True, inline="always")
def _follow_young(r: int, opponent: int, change: float, s, p, young) -> None:
    # RatingLedger._follow_young: `young` is (slot per rating, opponents, changes, the
    # opponents' counted games, lengths, free slots, how many are free); a rating takes a
    # slot at its first young game.
    slot_of, opponents, changes, played, lengths, free, free_count = young
    if s[_WINS, r] + s[_LOSSES, r] >= p[_SURPRISE_WINDOW]:
        return  # most games: a rating past its young games
    if not _surprise_flagged(
        s[_SURPRISE_GAMES, r],
        s[_SURPRISE_WINS, r],
        s[_SURPRISE_EXPECTED, r],
        s[_SURPRISE_INFORMATION, r],
        p,
        p[_SURPRISE_THRESHOLD],
    ):
        slot = slot_of[r]
        if slot < 0:
            free_count[0] -= 1
            slot = free[free_count[0]]
            slot_of[r] = slot
            lengths[slot] = 0
        k = lengths[slot]
        opponents[slot, k] = opponent
        changes[slot, k] = change
        played[slot, k] = s[_WINS, opponent] + s[_LOSSES, opponent] + 1.0
        lengths[slot] = k + 1


@njit(cache=True, nogil=True, inline="always")
def _release_young(r: int, young) -> None:
    slot_of, _, _, _, _, free, free_count = young
    if slot_of[r] >= 0:
        free[free_count[0]] = slot_of[r]
        free_count[0] += 1
        slot_of[r] = -1


@njit(cache=True, nogil=True)
def _give_back(r: int, s, young) -> None:
    # RatingLedger._give_back with glicko.lasting_share: the opponents get back what r's
    # young games changed them by, as much of it as is still in their ratings.
    slot_of, opponents, changes, played, lengths, _, _ = young
    slot = slot_of[r]
    if slot >= 0:
        for k in range(lengths[slot]):
            o = opponents[slot, k]
            since = int(s[_WINS, o] + s[_LOSSES, o]) - int(played[slot, k])
            d = s[_DEVIATION, o]
            s[_VALUE, o] -= changes[slot, k] * (1.0 + _Q2 * 0.25 * d * d) ** -float(since)
        _release_young(r, young)


@njit(cache=True, nogil=True)
def _confirm(r: int, player: np.ndarray, opponent: int, s: np.ndarray, confirmers, p) -> None:
    # RatingState.confirm_by: the opponents counted so far are confirmers[:count, r].
    count = int(s[_CONFIRMATIONS, r])
    if count >= p[_MIN_OPPONENTS] or player[r] == opponent:
        return
    for k in range(count):
        if confirmers[k, r] == opponent:
            return
    s[_CONFIRMATIONS, r] = count + 1
    if count + 1 < p[_MIN_OPPONENTS]:
        confirmers[count, r] = opponent


@njit(cache=True, nogil=True)
def _apply(
    times,
    rating_a,
    rating_b,
    a_won,
    p,
    s,
    best_win,
    excluded,
    character,
    player,
    confirmers,
    offsets,
    results,
    counted,
    snap,
    snap_slots,
    young,
):
    """Rate games in order. `s` holds the float columns of the states (see `_STATE`),
        `offsets[x, y]` what character x is worth against y (0 beyond its edges),
        `results` receives RESULT_COLUMNS per game. `snap` is the snapshot buffer (rating,
        day, value, deviation); `snap_slots[0]` its length, `snap_slots[1:]` each rating's
        last row (-1: none). `young` holds the young ratings' games (`_follow_young`), with
    room for two new ones a game. Returns nothing: everything is written in place."""
    value, deviation = s[_VALUE], s[_DEVIATION]
    low = p[_LOW_DEVIATION]
    for i in range(times.shape[0]):
        a, b, moment, won = rating_a[i], rating_b[i], times[i], a_won[i]
        _decay_to(a, moment, deviation, s[_LAST_DECAY], p)
        _decay_to(b, moment, deviation, s[_LAST_DECAY], p)
        va, da, vb, db = value[a], deviation[a], value[b], deviation[b]
        results[i, 0], results[i, 1], results[i, 2], results[i, 3] = va, da, vb, db
        ca, cb = character[a], character[b]
        offset = offsets[ca, cb] if ca < offsets.shape[0] and cb < offsets.shape[1] else 0.0
        chance_a = _chance(va, da, vb, db, offset, p)
        results[i, 8] = chance_a
        ok = not excluded[a] and not excluded[b] and _counts(va, da, vb, db, won, chance_a, p)
        counted[i] = ok
        newly_a = newly_b = False
        if ok:
            score = 1.0 if won else 0.0
            if p[_ONE_CHANCE] == 0.0:  # glicko.rate_game: the reference update
                ea = _expected_score(va, vb, db, p[_DAMPING])
                eb = _expected_score(vb, va, da, p[_DAMPING])
            else:
                ea, eb = chance_a, 1.0 - chance_a
            shield_a, shield_b = _fast_tracked(b, s, p), _fast_tracked(a, s, p)
            na, nda = _update_from_expected(va, da, db, score, ea, p[_MINIMUM_DEVIATION])
            nb, ndb = _update_from_expected(vb, db, da, 1.0 - score, eb, p[_MINIMUM_DEVIATION])
            value[a], deviation[a] = (va, da) if shield_a else (na, nda)
            value[b], deviation[b] = (vb, db) if shield_b else (nb, ndb)
            if p[_GIVE_BACK] > 0.0:
                _follow_young(a, b, value[b] - vb, s, p, young)
                _follow_young(b, a, value[a] - va, s, p, young)
            start_a = _chance(p[_INITIAL_RATING], p[_INITIAL_DEVIATION], vb, db, offset, p)
            start_b = 1.0 - _chance(va, da, p[_INITIAL_RATING], p[_INITIAL_DEVIATION], offset, p)
            newly_a = _observe_surprise(a, chance_a, start_a, won, db, s, p)
            newly_b = _observe_surprise(b, 1.0 - chance_a, start_b, not won, da, s, p)
            winner, loser = (a, b) if won else (b, a)
            loser_was_confirmed = s[_CONFIRMATIONS, loser] >= p[_MIN_OPPONENTS]
            if db < low:
                _confirm(a, player, player[b], s, confirmers, p)
            if da < low:
                _confirm(b, player, player[a], s, confirmers, p)
            s[_WINS, winner] += 1.0
            s[_LOSSES, loser] += 1.0
            for r in (a, b):
                last = s[_LAST_PLAYED, r]
                s[_LAST_PLAYED, r] = moment if math.isnan(last) else max(last, moment)
                peak = s[_PEAK_VALUE, r]
                confirmed = s[_CONFIRMATIONS, r] >= p[_MIN_OPPONENTS]
                if deviation[r] < low and confirmed and (math.isnan(peak) or value[r] > peak):
                    s[_PEAK_VALUE, r] = value[r]
                    s[_PEAK_DEVIATION, r] = deviation[r]
                    s[_PEAK_AT, r] = moment
            loser_value, loser_deviation = (vb, db) if won else (va, da)
            best = s[_BEST_WIN_VALUE, winner]
            # as RatingLedger: both rankable, the loser before the game
            rankable = (
                deviation[winner] < low
                and s[_CONFIRMATIONS, winner] >= p[_MIN_OPPONENTS]
                and loser_deviation < low
                and loser_was_confirmed
            )
            if rankable and (math.isnan(best) or loser_value > best):
                best_win[winner] = loser
                s[_BEST_WIN_VALUE, winner] = loser_value
                s[_BEST_WIN_DEVIATION, winner] = loser_deviation
                s[_BEST_WIN_AT, winner] = moment
            # MatchupLedger.record's daily snapshot: the day's last value per rating.
            day = moment // SECONDS_PER_DAY
            for r in (a, b):  # a == b in a game against oneself: the ledger's order
                row = snap_slots[1 + r]
                if row < 0 or snap[row, 1] != day:
                    row = snap_slots[0]
                    snap_slots[0] += 1
                    snap_slots[1 + r] = row
                    snap[row, 0] = r
                    snap[row, 1] = day
                snap[row, 2] = value[r]
                snap[row, 3] = deviation[r]
        results[i, 4], results[i, 5] = value[a], deviation[a]
        results[i, 6], results[i, 7] = value[b], deviation[b]
        if ok and p[_GIVE_BACK] > 0.0:
            if newly_a:
                _give_back(a, s, young)
            if newly_b:
                _give_back(b, s, young)
            for r in (a, b):
                if s[_WINS, r] + s[_LOSSES, r] >= p[_SURPRISE_WINDOW]:
                    _release_young(r, young)


# Rows of the float state matrix: a rating's fields as the ledger keeps them, less the
# best win's opponent key (kept apart, as a rating number) and the confirming players
# (kept apart, as player numbers); wins, losses and confirmations are whole numbers kept
# as floats.
_STATE = tuple(
    name
    for name in RATING_FIELDS
    if name not in ("best_win_opponent", "best_win_character", "confirming_players")
)
(
    _VALUE,
    _DEVIATION,
    _WINS,
    _LOSSES,
    _LAST_PLAYED,
    _LAST_DECAY,
    _PEAK_VALUE,
    _PEAK_DEVIATION,
    _PEAK_AT,
    _BEST_WIN_VALUE,
    _BEST_WIN_DEVIATION,
    _BEST_WIN_AT,
    _SURPRISE_GAMES,
    _SURPRISE_WINS,
    _SURPRISE_EXPECTED,
    _SURPRISE_INFORMATION,
    _RECENT_SURPRISE,
    _CONFIRMATIONS,
) = range(len(_STATE))


class PlayerMatchupSums(NamedTuple):
    """MatchupLedger.player_matchups as columns: one row per (rating, opposing character)."""

    rating: np.ndarray
    opponent_character: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    expected_wins: np.ndarray
    information: np.ndarray


class Snapshots(NamedTuple):
    """MatchupLedger.snapshots as columns: the last value of each (rating, day)."""

    rating: np.ndarray
    day: np.ndarray
    value: np.ndarray
    deviation: np.ndarray


def offset_matrix(offsets: MatchupOffsets) -> np.ndarray:
    """`RatingLedger.offsets` as the matrix `ArrayLedger` reads: [x, y] for characters x, y."""
    size = 1 + max((max(pair) for pair in offsets), default=-1)
    matrix = np.zeros((size, size))
    for (character, opponent), offset in offsets.items():
        matrix[character, opponent] = offset
    return matrix


class ArrayLedger:
    """`RatingLedger` plus `MatchupLedger` over arrays: `apply` chunks of games in
    order, then read `column()`, `counted_games()`, `player_matchups()` and
    `snapshots()`.

    Every rating number a chunk names must have been `add`ed first. Float columns use
    NaN for None; `best_win` is the rating number beaten, -1 for none.
    """

    def __init__(self, params: GlickoParams, offsets: np.ndarray | None = None) -> None:
        """`offsets[x, y]`: what character id x is worth against y in rating points (one
        chance only; `RatingLedger.offsets` as a matrix)."""
        self.params = params
        self._p = _param_array(params)
        self._offsets = np.zeros((0, 0)) if offsets is None else np.asarray(offsets, np.float64)
        self.count = 0
        self._state = np.empty((len(_STATE), 0))
        self._best_win = np.empty(0, dtype=np.int64)
        self._excluded = np.empty(0, dtype=np.bool_)
        self._character = np.empty(0, dtype=np.int64)
        self._player = np.empty(0, dtype=np.int64)
        # RatingState.confirming_players as player numbers, a row per place: a rating's
        # are rows 0 to its confirmations - 1 while it has fewer than the minimum.
        self._confirmers = np.empty((max(params.ranked_min_opponents, 1), 0), dtype=np.int64)
        self._snap = np.empty((0, 4))
        self._snap_slots = np.zeros(1, dtype=np.int64)
        # Per counted game, what the matchup sums need: both ratings, whether A won,
        # A's pre-game value minus B's (A's expectation follows from it) and the larger
        # pre-game deviation (character matchups read only games between settled
        # ratings). Buffers that double, filled a chunk at a time: no list of parts
        # joined at the end.
        self._counted_columns = (
            np.empty(0, np.int32),
            np.empty(0, np.int32),
            np.empty(0, np.bool_),
            np.empty(0, np.float64),
            np.empty(0, np.float64),
        )
        self._counted_count = 0
        self._expected: np.ndarray | None = None
        # RatingLedger.young_games in slots of `surprise_window` games, a slot per rating
        # young and unflagged that has played (`_follow_young`); freed slots are reused.
        width = max(params.surprise_window, 1)
        self._young_slot = np.empty(0, dtype=np.int64)
        self._young = (
            self._young_slot,
            np.empty((0, width), dtype=np.int64),
            np.empty((0, width)),
            np.empty((0, width)),
            np.empty(0, dtype=np.int64),
            np.empty(0, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
        )

    def add(self, excluded: np.ndarray, character: np.ndarray, player: np.ndarray) -> None:
        """New ratings, numbered on from `count`: whether their player is excluded
        (hidden or cheater), their character, and their player's number (the caller's,
        one per player)."""
        start, self.count = self.count, self.count + len(excluded)
        if self.count > self._state.shape[1]:
            self._grow(max(2 * self._state.shape[1], self.count, 1024))
        fresh = self._state[:, start : self.count]
        fresh[:] = np.nan
        fresh[_VALUE] = self.params.initial_rating
        fresh[_DEVIATION] = self.params.initial_deviation
        fresh[_SURPRISE_GAMES : _RECENT_SURPRISE + 1] = 0.0
        fresh[_WINS] = fresh[_LOSSES] = fresh[_CONFIRMATIONS] = 0.0
        self._best_win[start : self.count] = _NO_RATING
        self._excluded[start : self.count] = excluded
        self._character[start : self.count] = character
        self._player[start : self.count] = player
        self._snap_slots[1 + start : 1 + self.count] = -1
        self._young_slot[start : self.count] = -1

    def _grow(self, capacity: int) -> None:
        """Room for `capacity` ratings; arrays double, so a million ratings added a few
        at a time are copied a few dozen times, not once per chunk."""
        used = self._state.shape[1]

        def grown(array: np.ndarray, offset: int = 0) -> np.ndarray:
            bigger = np.empty((*array.shape[:-1], capacity + offset), dtype=array.dtype)
            bigger[..., : used + offset] = array
            return bigger

        self._state = grown(self._state)
        self._best_win = grown(self._best_win)
        self._excluded = grown(self._excluded)
        self._character = grown(self._character)
        self._player = grown(self._player)
        self._confirmers = grown(self._confirmers)
        self._snap_slots = grown(self._snap_slots, 1)
        self._young_slot = grown(self._young_slot)
        self._young = (self._young_slot, *self._young[1:])

    def _reserve_young(self, rating_a: np.ndarray, rating_b: np.ndarray) -> None:
        """Free young slots for every rating of a chunk that may take one: without a slot
        and under the window (slots double, as the other arrays)."""
        _, opponents, changes, played, lengths, free, free_count = self._young
        ratings = np.unique(np.concatenate([rating_a, rating_b]))
        games = self._state[_WINS, ratings] + self._state[_LOSSES, ratings]
        more = np.count_nonzero(
            (self._young_slot[ratings] < 0) & (games < self.params.surprise_window)
        )
        missing = more - int(free_count[0])
        if missing <= 0:
            return
        used, capacity = len(lengths), max(2 * len(lengths), len(lengths) + missing)
        width = opponents.shape[1]
        opponents = np.concatenate([opponents, np.empty((capacity - used, width), np.int64)])
        changes = np.concatenate([changes, np.empty((capacity - used, width))])
        played = np.concatenate([played, np.empty((capacity - used, width))])
        lengths = np.concatenate([lengths, np.zeros(capacity - used, np.int64)])
        # A stack with room for every slot; the new slots go under the free ones already
        # there, which are reused first.
        stack = np.empty(capacity, np.int64)
        added, before = capacity - used, int(free_count[0])
        stack[:added] = np.arange(capacity - 1, used - 1, -1)
        stack[added : added + before] = free[:before]
        free, free_count[0] = stack, added + before
        self._young = (self._young_slot, opponents, changes, played, lengths, free, free_count)

    def apply(
        self, times: np.ndarray, rating_a: np.ndarray, rating_b: np.ndarray, a_won: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rate a chunk of games (epoch seconds, rating numbers, whether A won) after
        every earlier one; returns (RESULT_COLUMNS per game, counted per game)."""
        n = len(times)
        self._reserve_snapshots(2 * n)
        rating_a = np.ascontiguousarray(rating_a, dtype=np.int64)
        rating_b = np.ascontiguousarray(rating_b, dtype=np.int64)
        if self.params.gives_back:
            self._reserve_young(rating_a, rating_b)
        a_won = np.ascontiguousarray(a_won, dtype=np.bool_)
        results = np.empty((n, len(RESULT_COLUMNS)))
        counted = np.empty(n, dtype=np.bool_)
        _apply(
            np.ascontiguousarray(times, dtype=np.float64),
            rating_a,
            rating_b,
            a_won,
            self._p,
            self._state,
            self._best_win,
            self._excluded,
            self._character,
            self._player,
            self._confirmers,
            self._offsets,
            results,
            counted,
            self._snap,
            self._snap_slots,
            self._young,
        )
        parts = (
            rating_a[counted],
            rating_b[counted],
            a_won[counted],
            results[counted, 0] - results[counted, 2],
            np.maximum(results[counted, 1], results[counted, 3]),
        )
        start, stop = self._counted_count, self._counted_count + len(parts[0])
        if stop > len(self._counted_columns[0]):
            capacity = max(2 * len(self._counted_columns[0]), stop)
            self._counted_columns = tuple(
                np.concatenate([column[:start], np.empty(capacity - start, column.dtype)])
                for column in self._counted_columns
            )
        for column, part in zip(self._counted_columns, parts, strict=True):
            column[start:stop] = part
        self._counted_count, self._expected = stop, None
        return results, counted

    def _reserve_snapshots(self, more: int) -> None:
        used = int(self._snap_slots[0])
        if used + more > len(self._snap):
            grown = np.empty((max(2 * len(self._snap), used + more), 4))
            grown[:used] = self._snap[:used]
            self._snap = grown

    def column(self, name: str) -> np.ndarray:
        """One state column, by RATING_FIELDS' name (best_win_opponent and
        best_win_character are `best_win`'s): a view, which writes change the state."""
        return self._state[_STATE.index(name), : self.count]

    def surprise_flagged(self) -> np.ndarray:
        """Per rating, whether the early-surprise test flagged it (RatingState's test,
        over the columns; the test reads no more games once it flags)."""
        games, wins, expected, information = (
            self.column(name)
            for name in (
                "surprise_games",
                "surprise_wins",
                "surprise_expected",
                "surprise_information",
            )
        )
        with np.errstate(invalid="ignore"):
            surplus = self.params.surprise_threshold * np.sqrt(information)
        return (
            (games >= self.params.surprise_min_games)
            & (information > 0.0)
            & (wins - expected >= surplus)
        )

    @property
    def best_win(self) -> np.ndarray:
        return self._best_win[: self.count]

    @property
    def character(self) -> np.ndarray:
        return self._character[: self.count]

    def confirming_players(self) -> list[np.ndarray]:
        """RatingState.confirming_players of each rating, as player numbers in the order
        met (none once it is confirmed)."""
        confirmations = self.column("confirmations").astype(np.int64)
        pending = np.where(confirmations < self.params.ranked_min_opponents, confirmations, 0)
        return [self._confirmers[: pending[r], r] for r in range(self.count)]

    def snapshots(self) -> Snapshots:
        rows = self._snap[: int(self._snap_slots[0])]
        return Snapshots(
            rows[:, 0].astype(np.int64), rows[:, 1].astype(np.int64), rows[:, 2], rows[:, 3]
        )

    def counted_games(self) -> tuple[np.ndarray, ...]:
        """Of every counted game: ratings A and B, whether A won, A's expectation, and
        A's pre-game value minus B's."""
        a, b, a_won, difference = (
            column[: self._counted_count] for column in self._counted_columns[:4]
        )
        if self._expected is None:
            self._expected = 1.0 / (1.0 + 10.0 ** (-difference / 400.0))  # matchup_offset.expected
        return a, b, a_won, self._expected, difference

    def counted_deviations(self) -> np.ndarray:
        """Of every counted game (as `counted_games`): the larger pre-game deviation."""
        return self._counted_columns[4][: self._counted_count]

    def close(self) -> None:
        """No more games: what the sums read is prepared once, so that they may then be
        read from several threads."""
        self.counted_games()

    def player_matchups(self) -> PlayerMatchupSums:
        """Sums per (rating, opposing character) over every counted game, each game
        adding A's then B's side in game order, as MatchupLedger does."""
        a, b, a_won, expected_a, _ = self.counted_games()
        character = self.character
        width = int(character.max(initial=0)) + 1
        return PlayerMatchupSums(
            *_player_matchup_sums(a, b, a_won, expected_a, character, self.count, width)
        )


@njit(cache=True, nogil=True)
def _player_matchup_sums(a, b, a_won, expected_a, character, count, width):
    """PlayerMatchupSums' columns, rows by rating then opposing character. Each game
    has two sides (2g: A's, 2g + 1: B's); a rating's sides are visited in that order,
    so every sum adds in game order, A before B."""
    n = a.shape[0]
    starts = np.zeros(count + 1, dtype=np.int64)
    for g in range(n):
        starts[a[g] + 1] += 1
        starts[b[g] + 1] += 1
    for r in range(count):
        starts[r + 1] += starts[r]
    sides = np.empty(2 * n, dtype=np.int64)
    fill = starts[:-1].copy()
    for g in range(n):
        sides[fill[a[g]]] = 2 * g
        fill[a[g]] += 1
        sides[fill[b[g]]] = 2 * g + 1
        fill[b[g]] += 1
    # Rows: one per (rating, opposing character) met.
    last_rating = np.full(width, -1, dtype=np.int64)
    rows = 0
    for r in range(count):
        for i in range(starts[r], starts[r + 1]):
            g = sides[i] // 2
            opponent = character[a[g]] if sides[i] % 2 else character[b[g]]
            if last_rating[opponent] != r:
                last_rating[opponent] = r
                rows += 1
    rating = np.empty(rows, dtype=np.int64)
    opponent_character = np.empty(rows, dtype=np.int64)
    wins = np.empty(rows, dtype=np.int64)
    losses = np.empty(rows, dtype=np.int64)
    expected = np.empty(rows, dtype=np.float64)
    information = np.empty(rows, dtype=np.float64)
    games_of = np.zeros(width, dtype=np.int64)
    wins_of = np.zeros(width, dtype=np.int64)
    expected_of = np.zeros(width, dtype=np.float64)
    information_of = np.zeros(width, dtype=np.float64)
    row = 0
    for r in range(count):
        for i in range(starts[r], starts[r + 1]):
            g, side_b = sides[i] // 2, sides[i] % 2
            e = expected_a[g]
            opponent = character[a[g]] if side_b else character[b[g]]
            games_of[opponent] += 1
            if a_won[g] != (side_b == 1):
                wins_of[opponent] += 1
            expected_of[opponent] += 1.0 - e if side_b else e
            information_of[opponent] += e * (1.0 - e)
        for opponent in range(width):
            if games_of[opponent]:
                rating[row] = r
                opponent_character[row] = opponent
                wins[row] = wins_of[opponent]
                losses[row] = games_of[opponent] - wins_of[opponent]
                expected[row] = expected_of[opponent]
                information[row] = information_of[opponent]
                row += 1
                games_of[opponent] = wins_of[opponent] = 0
                expected_of[opponent] = information_of[opponent] = 0.0
    return rating, opponent_character, wins, losses, expected, information
