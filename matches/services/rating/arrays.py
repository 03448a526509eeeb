"""Between the database and the compiled kernel (matches.ratings.kernel): games read as
arrays of rating numbers, and ratings, matchups, snapshots and results written from
arrays with binary COPY (matches.services.binary_copy). PostgreSQL only."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from django.core.management.color import no_style
from django.db import connection

from matches.models import Match, MatchRating
from matches.ratings.kernel import ArrayLedger
from matches.ratings.ledger import RatingKey
from matches.services import binary_copy, bulk
from matches.services.character_matchups import DIFFERENCE_BIN_POINTS
from matches.services.rating.storage import MATCH_RATING_COLUMNS, RATING_STATE_COLUMNS
from matches.services.rating_rows import PLAYER_MATCHUP_COLUMNS, SNAPSHOT_COLUMNS
from players.models import PlayerMatchup, Rating, RatingSnapshot


@dataclass(frozen=True, slots=True)
class GameArrays:
    """A chunk of games in order, sides named by rating number, and the ratings first
    seen in it (whose player is excluded, which character)."""

    match_id: np.ndarray
    played_at: np.ndarray
    rating_a: np.ndarray
    rating_b: np.ndarray
    a_won: np.ndarray
    new_excluded: np.ndarray
    new_character: np.ndarray

    def __len__(self) -> int:
        return len(self.match_id)


class RatingNumbers:
    """Numbers every (player, character) 0, 1, ... in order of first game, as the chunks
    of rows of storage.game_columns() pass through `games`, in order."""

    def __init__(self, excluded_players: Iterable[str]) -> None:
        self.excluded_players = frozenset(excluded_players)
        self.keys: dict[RatingKey, int] = {}

    def games(self, rows: list[tuple]) -> GameArrays:
        match_ids, times, players_a, characters_a, players_b, characters_b, winners = zip(
            *rows, strict=True
        )
        keys = self.keys
        new: list[RatingKey] = []
        numbers = []
        for pa, ca, pb, cb in zip(players_a, characters_a, players_b, characters_b, strict=True):
            for key in ((pa, ca), (pb, cb)):
                number = keys.get(key)
                if number is None:
                    number = keys[key] = len(keys)
                    new.append(key)
                numbers.append(number)
        sides = np.array(numbers, dtype=np.int64).reshape(-1, 2)
        excluded = self.excluded_players
        return GameArrays(
            np.array(match_ids, dtype=np.int64),
            np.array(times, dtype=np.float64),
            sides[:, 0],
            sides[:, 1],
            np.array(winners) == Match.Winner.A,
            np.array([player in excluded for player, _ in new], dtype=np.bool_),
            np.array([character for _, character in new], dtype=np.int64),
        )


def apply(
    ledger: ArrayLedger, games: GameArrays, rated_at: float, types: list[int]
) -> tuple[bytes, int]:
    """Rate a chunk; its MatchRating rows encoded for COPY (of `match_rating_types`),
    and how many counted."""
    ledger.add(games.new_excluded, games.new_character)
    results, counted = ledger.apply(games.played_at, games.rating_a, games.rating_b, games.a_won)
    rows = binary_copy.encode(
        types,
        [
            games.match_id,
            np.full(len(counted), rated_at),
            counted,
            results[:, 0],
            results[:, 1],
            results[:, 4] - results[:, 0],
            results[:, 2],
            results[:, 3],
            results[:, 6] - results[:, 2],
        ],
    )
    return rows, int(counted.sum())


def match_rating_types() -> list[int]:
    return bulk.column_types(MatchRating, MATCH_RATING_COLUMNS)


def insert_ratings(ledger: ArrayLedger, numbers: RatingNumbers) -> None:
    """Every rating, rating number n as id n + 1, into the emptied table."""
    keys = list(numbers.keys)
    players = np.char.encode(np.array([player for player, _ in keys], dtype=str), "utf-8")
    characters = np.array([character for _, character in keys], dtype=np.int64)
    beaten = ledger.best_win
    no_win = beaten < 0
    beaten = np.where(no_win, 0, beaten)
    columns = {
        "id": np.arange(1, len(keys) + 1),
        "player_id": players,
        "character_id": characters,
        "best_win_opponent_id": np.ma.array(players[beaten], mask=no_win),
        "best_win_character_id": np.ma.array(characters[beaten], mask=no_win),
    }
    for name in RATING_STATE_COLUMNS:
        if name not in columns:
            columns[name] = ledger.column(name)
    for name in ("wins", "losses"):
        columns[name] = columns[name].astype(np.int64)
    names = ("id", "player_id", "character_id", *RATING_STATE_COLUMNS)
    bulk.copy_arrays(Rating, names, [columns[name] for name in names])
    with connection.cursor() as cursor:
        # The id sequence continues after the highest id given here.
        for statement in connection.ops.sequence_reset_sql(no_style(), [Rating]):
            cursor.execute(statement)


def insert_matchups_and_snapshots(ledger: ArrayLedger) -> None:
    """Player matchup sums and daily snapshots into their emptied tables."""
    sums = ledger.player_matchups()
    bulk.copy_arrays(PlayerMatchup, PLAYER_MATCHUP_COLUMNS, [sums.rating + 1, *sums[1:]])
    snapshots = ledger.snapshots()
    # Stored by rating, each one's days in order (the ledger has them by day): a rating's
    # history is then a few neighbouring pages to read, and its index is built from
    # sorted input.
    bulk.copy_arrays(
        RatingSnapshot,
        SNAPSHOT_COLUMNS,
        [snapshots.rating + 1, *snapshots[1:]],
        order=np.argsort(snapshots.rating, kind="stable"),
    )


def character_matchup_groups(
    ledger: ArrayLedger, numbers: RatingNumbers
) -> Callable[[dict[RatingKey, int], int | None], list[tuple]]:
    """services.character_matchups' aggregate, from the games the ledger counted."""

    def groups_of(members: dict[RatingKey, int], limit: int | None) -> list[tuple]:
        rank = np.full(ledger.count, np.inf)
        for key, position in members.items():
            number = numbers.keys.get(key)
            if number is not None:
                rank[number] = position
        return ledger.character_matchup_groups(
            rank, np.inf if limit is None else limit, float(DIFFERENCE_BIN_POINTS)
        )

    return groups_of
