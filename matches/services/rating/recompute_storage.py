"""Between the database and the compiled ledger (matches.ratings.array_ledger): games read as
arrays of rating numbers, and ratings, matchups, snapshots and results written from
arrays with binary COPY (matches.services.binary_copy). PostgreSQL only."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import psycopg
from django.db import connection

from matches.models import Match, MatchRating
from matches.rating_states import RATING_STATE_COLUMNS
from matches.ratings.array_ledger import ArrayLedger, PlayerMatchupSums
from matches.ratings.calibration import LogitBin, chance_logits, logit_bins, recent_games
from matches.ratings.integrity import Suspicion, alternate_account
from matches.ratings.ledger import RatingKey
from matches.services import binary_copy, bulk
from matches.services.character_matchups import aggregate_from_ledger
from matches.services.rating.integer_keys import Positions, first_seen_numbers, stable_order
from matches.services.rating.ledger_rows import PLAYER_MATCHUP_COLUMNS, SNAPSHOT_COLUMNS
from matches.services.rating.storage import (
    MATCH_RATING_COLUMNS,
    chunks,
    confirming_players_text,
    fetch_rows,
    select_arrays,
)
from matches.services.read_ahead import readers_in_this_snapshot
from players.models import Player, PlayerMatchup, Rating, RatingSnapshot

# Table pages read per query at most (a few million matches): each query's arrays stay
# well under PostgreSQL's 1 GB a value.
_READ_BLOCKS = 50_000


@dataclass(frozen=True, slots=True)
class History:
    """Every stored game in (played_at, id) order as arrays, its sides named by rating
    number (0, 1, ... in order of first game); and each rating's player and character."""

    match_id: np.ndarray
    played_at: np.ndarray
    rating_a: np.ndarray
    rating_b: np.ndarray
    a_won: np.ndarray
    player: np.ndarray  # player id per rating number, as UTF-8 bytes
    character: np.ndarray

    def __len__(self) -> int:
        return len(self.match_id)

    def games(self, start: int, stop: int) -> tuple[np.ndarray, ...]:
        """(match ids, epoch seconds, rating A, rating B, A won) of games start:stop."""
        part = slice(start, stop)
        return (
            self.match_id[part],
            self.played_at[part],
            self.rating_a[part],
            self.rating_b[part],
            self.a_won[part],
        )


def read_history(readers: int = 1) -> History:
    """Every stored match, read as arrays in a few queries and put in order here; with
    `readers` > 1 the queries are spread over that many other connections in this
    transaction's snapshot, which only a transaction holding no uncommitted match of
    its own may ask for (the recompute's: `other_connections_see_this_transaction`).

    Rows one at a time cost microseconds each in Python, most of a recompute at ten
    million games. Instead each query returns whole columns (array_send of array_agg:
    one binary value a column, decoded by numpy), with players named by a 64-bit hash
    of their id rather than the id: no join, no per-row text. The hash's seed is one
    under which no two players' ids collide (checked over every player, so the map
    back to players is exact), and every hash a match names must belong to a player.
    Read after the matches, the players include everyone they name.
    """
    for seed in itertools.count():
        columns = _match_columns(seed, readers)
        players, hashes = _players(seed)
        positions = Positions(hashes)
        if positions.distinct:
            break
    sides = [positions.of(columns["hash_a"]), positions.of(columns["hash_b"])]
    if any((side < 0).any() for side in sides):
        raise RuntimeError("a stored match names a player missing from the players table")
    games = np.lexsort((columns["id"], columns["played_at"]))
    width = int(max(columns["character_a"].max(initial=0), columns["character_b"].max(initial=0)))
    width += 1
    # Each game's two sides interleaved, A first, as ratings are met game by game.
    keys = np.stack(
        [sides[0][games] * width + columns["character_a"][games],
         sides[1][games] * width + columns["character_b"][games]],
        axis=1,
    ).ravel()  # fmt: skip
    numbers, key_of = first_seen_numbers(keys, max(len(players), 1) * width)
    return History(
        columns["id"][games],
        columns["played_at"][games],
        numbers[0::2],
        numbers[1::2],
        columns["a_won"][games],
        players[key_of // width],
        key_of % width,
    )


def _match_columns(seed: int, readers: int) -> dict[str, np.ndarray]:
    """Every match's id, time (epoch seconds), players' id hashes, characters and
    whether A won, in no particular order.

    The table is read in ranges of its pages (TID range scans), the last one open-ended,
    spread over `readers` connections in this transaction's snapshot when more than
    one: the server's part of the read, hashing and aggregating, takes a core a query."""
    match = Match._meta.db_table
    names = ("id", "played_at", "hash_a", "character_a", "hash_b", "character_b", "a_won")
    types = (20, 701, 20, 21, 20, 21, 16)  # bigint, double, bigint, smallint, ..., boolean
    expressions = (
        "id",
        # EXTRACT(EPOCH ...)::float8, which EpochSeconds reads: the same double, without
        # computing a numeric first.
        "date_part('epoch', played_at)",
        "hashtextextended(player_a_id, %(seed)s)",
        "character_a_id::smallint",
        "hashtextextended(player_b_id, %(seed)s)",
        "character_b_id::smallint",
        "winner = %(a)s",
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_relation_size(%s) / current_setting('block_size')::int", [match])
        (blocks,) = cursor.fetchone()
    # As few ranges as keep each query's arrays small, the same number for every reader.
    pages = max(blocks, 1)
    ranges = -(-pages // _READ_BLOCKS)
    ranges = -(-ranges // readers) * readers
    step = -(-pages // ranges)
    lows = range(0, pages, step)

    def read(share: Sequence[int], on: psycopg.Connection | None) -> list[list[np.ndarray]]:
        parts = []
        for low in share:
            high = "" if low + step >= blocks else " AND ctid < %(high)s::tid"
            arrays = select_arrays(
                expressions,
                f"{match} WHERE ctid >= %(low)s::tid{high}",
                {"seed": seed, "a": Match.Winner.A, "low": f"({low},0)",
                 "high": f"({low + step},0)"},
                types,
                on=on,
            )  # fmt: skip
            if arrays is not None:  # None: an empty range
                parts.append(arrays)
        return parts

    if readers > 1:
        with (
            readers_in_this_snapshot(readers) as connections,
            ThreadPoolExecutor(readers) as pool,
        ):
            shares = [lows[n::readers] for n in range(readers)]
            parts = [part for share in pool.map(read, shares, connections) for part in share]
    else:
        parts = read(lows, None)
    columns = list(zip(*parts, strict=True)) or [()] * len(types)
    return {
        name: np.concatenate(column) if column else np.empty(0, binary_copy.native_dtype(oid))
        for name, column, oid in zip(names, columns, types, strict=True)
    }


def _players(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every player's id (UTF-8 bytes) and its hash under `seed`."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, hashtextextended(id, %s) FROM {Player._meta.db_table}", [seed])
        rows = cursor.fetchall()
    ids = [player_id for player_id, _ in rows]
    return (
        np.char.encode(np.array(ids, dtype=str), "utf-8") if ids else np.empty(0, "S1"),
        np.array([hash_ for _, hash_ in rows], dtype=np.int64),
    )


class RecentPredictions:
    """The model's prediction of each game that services.calibration.recent_predictions
    would read back from MatchRating once the history is stored (the latest
    `recent_games` by arrival, that is by match id; none of a flagged player's), taken
    as the history is rated: the recompute then fits the calibration without reading a
    million stored games again."""

    def __init__(self, match_id: np.ndarray, excluded: np.ndarray) -> None:
        """`match_id`: every game's (History.match_id); `excluded`: per rating number,
        whether its player is flagged."""
        window = recent_games(len(match_id))
        cut = len(match_id) - window
        self.first = np.partition(match_id, cut)[cut] if window else np.iinfo(np.int64).max
        self.excluded = excluded
        self.logits: list[np.ndarray] = []
        self.scores: list[np.ndarray] = []

    def add(self, games: tuple[np.ndarray, ...], results: np.ndarray) -> None:
        """A chunk's games (History.games) and its results (ArrayLedger.apply)."""
        match_id, _, rating_a, rating_b, a_won = games
        kept = (match_id >= self.first) & ~self.excluded[rating_a] & ~self.excluded[rating_b]
        # The chance each game was shown, as a logit, as recent_predictions reads it.
        self.logits.append(chance_logits(results[kept, 8]))
        self.scores.append(a_won[kept].astype(np.float64))

    def bins(self) -> list[LogitBin]:
        if not self.logits:
            return []
        return logit_bins(np.concatenate(self.logits), np.concatenate(self.scores))


def apply(
    ledger: ArrayLedger,
    games: tuple[np.ndarray, ...],
    rated_at: float,
    types: list[int],
    predictions: RecentPredictions,
) -> tuple[bytes, int]:
    """Rate a chunk (History.games); its MatchRating rows encoded for COPY (of
    `match_rating_types`), and how many counted. The chunk's predictions go to
    `predictions`."""
    match_id, played_at, rating_a, rating_b, a_won = games
    results, counted = ledger.apply(played_at, rating_a, rating_b, a_won)
    predictions.add(games, results)
    rows = binary_copy.encode(
        types,
        [
            match_id,
            np.full(len(counted), rated_at),
            counted,
            results[:, 0],
            results[:, 1],
            results[:, 4] - results[:, 0],
            results[:, 2],
            results[:, 3],
            results[:, 6] - results[:, 2],
            results[:, 8],
        ],
    )
    return rows, int(counted.sum())


def match_rating_types() -> list[int]:
    return bulk.column_types(MatchRating, MATCH_RATING_COLUMNS)


def insert_ratings(ledger: ArrayLedger, players: np.ndarray) -> None:
    """Every rating, rating number n as id n + 1, into the emptied table; `players`
    holds each one's player id (History.player)."""
    characters = ledger.character
    beaten = ledger.best_win
    no_win = beaten < 0
    beaten = np.where(no_win, 0, beaten)
    columns = {
        "id": np.arange(1, len(players) + 1),
        "player_id": players,
        "character_id": characters,
        "best_win_opponent_id": np.ma.array(players[beaten], mask=no_win),
        "best_win_character_id": np.ma.array(characters[beaten], mask=no_win),
        "confirming_players": _confirming_players(ledger, players),
    }
    for name in RATING_STATE_COLUMNS:
        if name not in columns:
            columns[name] = ledger.column(name)
    for name in ("wins", "losses", "surprise_games", "surprise_wins", "confirmations"):
        columns[name] = columns[name].astype(np.int64)
    names = ("id", "player_id", "character_id", *RATING_STATE_COLUMNS)
    bulk.copy_arrays(Rating, names, [columns[name] for name in names])
    _ids_continue_after(Rating, len(players))


def alternate_account_suspicions(ledger: ArrayLedger, players: np.ndarray) -> list[Suspicion]:
    """The suspicions of every rating the early-surprise test flagged over the history;
    `players` as for insert_ratings."""
    flagged = np.flatnonzero(ledger.surprise_flagged())
    columns = [
        ledger.column(name)[flagged]
        for name in ("surprise_games", "surprise_wins", "surprise_expected", "surprise_information")
    ]
    return [
        alternate_account(_player_id(players[number]), int(character), *sums)
        for number, character, *sums in zip(
            flagged, ledger.character[flagged], *columns, strict=True
        )
    ]


def _player_id(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _confirming_players(ledger: ArrayLedger, players: np.ndarray) -> np.ndarray:
    """Rating.confirming_players of every rating from the ledger's player numbers (each
    rating's position in `players`' distinct ids), as UTF-8 bytes."""
    distinct = np.unique(players)
    return np.array(
        [
            confirming_players_text(name.decode() for name in distinct[numbers])
            if len(numbers)
            else ""
            for numbers in ledger.confirming_players()
        ],
        dtype=bytes,
    )


def _ids_continue_after(model: type, highest: int) -> None:
    """The id sequence of a table just loaded with ids 1 to `highest` (told, not read:
    MAX(id) would scan a table whose index is not built yet)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence(%s, 'id'), %s, %s)",
            [model._meta.db_table, max(highest, 1), highest > 0],
        )


def insert_matchups_and_snapshots(ledger: ArrayLedger, sums: PlayerMatchupSums) -> None:
    """Player matchup sums (ledger.player_matchups) and daily snapshots into their
    emptied tables."""
    bulk.copy_arrays(PlayerMatchup, PLAYER_MATCHUP_COLUMNS, [sums.rating + 1, *sums[1:]])
    snapshots = ledger.snapshots()
    # Stored by rating, each one's days in order (the ledger has them by day): a rating's
    # history is then a few neighbouring pages to read, and its key is built from sorted
    # input.
    order = stable_order(snapshots.rating, ledger.count)
    bulk.copy_arrays(
        RatingSnapshot, SNAPSHOT_COLUMNS, [snapshots.rating + 1, *snapshots[1:]], order=order
    )


def character_matchup_groups(
    ledger: ArrayLedger,
) -> Callable[[dict[RatingKey, int], int | None], list[tuple]]:
    """services.character_matchups' aggregate, from the games the ledger counted
    (`aggregate_from_ledger`), for the members' ranks read once the ratings are stored,
    each as its number + 1."""

    asked: list[tuple[dict[RatingKey, int], np.ndarray]] = []  # members, and their ranks

    def rank_of(members: dict[RatingKey, int]) -> np.ndarray:
        """The members' ranks by rating number (inf: not a member)."""
        rank = np.full(ledger.count, np.inf)
        players = sorted({player for player, _ in members})
        for chunk in chunks(players):
            ids = Rating.objects.filter(player_id__in=chunk).values_list(
                "id", "player_id", "character_id"
            )
            for rating_id, player, character in fetch_rows(ids):
                position = members.get((player, character))
                if position is not None:
                    rank[rating_id - 1] = position
        return rank

    def groups_of(members: dict[RatingKey, int], limit: int | None) -> list[tuple]:
        if not asked or asked[0][0] is not members:  # every bracket asks with the same
            asked[:] = [(members, rank_of(members))]
        return aggregate_from_ledger(ledger, asked[0][1], np.inf if limit is None else limit)

    return groups_of
