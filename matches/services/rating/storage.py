"""Between the database and the in-memory ledgers of incremental rating: load the rating
and matchup states a batch of games touches, and write ratings, matchups, snapshots and
results back with bulk statements (matches.services.bulk); and the reads the recompute
shares with it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

import numpy as np
import psycopg
from django.db import connection
from django.db.models import Q, QuerySet

from matches.dbfunctions import EpochSeconds
from matches.models import Match
from matches.rating_states import RATING_STATE_COLUMNS, RATING_TIME_COLUMNS, rating_state
from matches.ratings.ledger import (
    RATING_FIELDS,
    Game,
    GameResult,
    MatchupLedger,
    MatchupSums,
    RatingKey,
    RatingLedger,
    RatingState,
    YoungGame,
)
from matches.selectors.chances import chance_model
from matches.services import binary_copy, bulk
from matches.services.rating.ledger_rows import (
    PLAYER_MATCHUP_COLUMNS,
    SNAPSHOT_COLUMNS,
    moment,
    player_matchup_rows,
    snapshot_rows,
)
from players.models import Player, PlayerMatchup, Rating, RatingSnapshot

Chunk = TypeVar("Chunk")

# Ids one IN (...) list names at most: a batch of a hundred thousand players is read in
# a few statements of bounded size.
_IN_CHUNK = 10_000


def game_columns(prefix: str = "") -> tuple[str, ...]:
    """What a Game is read from; the query annotates `epoch` (played_at in epoch seconds)."""
    fields = ("player_a_id", "character_a_id", "player_b_id", "character_b_id", "winner")
    return (f"{prefix}id", "epoch", *(prefix + field for field in fields))


@dataclass(frozen=True)
class RatingRun:
    """What one call rated; `busy` when another writer held the lock."""

    rated: int = 0
    counted: int = 0
    batches: int = 0
    busy: bool = False


def fetch_rows(queryset: QuerySet) -> list[tuple]:
    """A values_list queryset's rows straight from the driver: at a million rows, Django's
    row-by-row iterator costs more than the query."""
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def select_arrays(
    expressions: Sequence[str],
    source: str,
    params: Sequence | Mapping,
    oids: Sequence[int],
    *,
    on: psycopg.Connection | None = None,
) -> list[np.ndarray] | None:
    """`expressions` over the rows of `source` (what follows FROM, with `params`) as one
    numpy array each, their PostgreSQL types `oids` (fixed-width ones of
    binary_copy.FORMATS); None when there are no rows. Each column arrives as one
    binary array that numpy reads whole, not as a Python object a value.
    Read on Django's connection, or `on` another one."""
    arrays = ", ".join(f"array_send(array_agg({expression}))" for expression in expressions)
    if on is None:
        connection.ensure_connection()
        on = connection.connection
    # psycopg's own cursor: Django's binds parameters client-side, which cannot return
    # binary results.
    with connection.wrap_database_errors, psycopg.Cursor(on) as cursor:
        cursor.execute(f"SELECT {arrays} FROM {source}", params, binary=True)
        row = cursor.fetchone()
    if row[0] is None:
        return None
    return [
        binary_copy.decode_array(data, oid).astype(binary_copy.native_dtype(oid))
        for data, oid in zip(row, oids, strict=True)
    ]


def fetch_columns(queryset: QuerySet, oids: Sequence[int]) -> list[np.ndarray]:
    """A values_list queryset's columns as numpy arrays, their PostgreSQL types `oids`
    (fixed-width ones of binary_copy.FORMATS), by `select_arrays`: the refresh's two
    million ratings in a fraction of a second, where a Python tuple a row cost seconds."""
    formats = [binary_copy.native_dtype(oid) for oid in oids]
    sql, params = queryset.query.sql_with_params()
    names = [f"c{n}" for n in range(len(oids))]
    arrays = select_arrays(names, f"({sql}) AS rows ({', '.join(names)})", params, oids)
    return arrays or [np.empty(0, dtype) for dtype in formats]


def games_of(rows: Iterable[tuple]) -> list[Game]:
    """Games from rows of GAME_COLUMNS (played_at already in epoch seconds)."""
    return [
        Game(match_id, played_at, pa, ca, pb, cb, winner == Match.Winner.A)
        for match_id, played_at, pa, ca, pb, cb, winner in rows
    ]


def chunks(values: list, size: int = _IN_CHUNK) -> Iterator[list]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def load_ledgers(games: list[Game]) -> tuple[RatingLedger, MatchupLedger]:
    """Every state the batch touches, in one query per table."""
    player_ids = sorted({p for game in games for p in (game.player_a, game.player_b)})
    excluded: list[str] = []
    ratings: dict[RatingKey, RatingState] = {}
    for chunk in chunks(player_ids):
        excluded += Player.objects.unrated().filter(id__in=chunk).values_list("id", flat=True)
        for row in Rating.objects.filter(player_id__in=chunk).values_list(
            "id", "player_id", "character_id", *RATING_STATE_COLUMNS
        ):
            ratings[(row[1], row[2])] = rating_state(row[0], row[3:])
    model = chance_model()
    ledger = RatingLedger(
        params=model.params, excluded_players=frozenset(excluded), offsets=model.offsets
    )
    ledger.ratings = ratings
    if model.params.gives_back:
        ledger.stored_young_games = StoredYoungGames(ledger)
    matchups = MatchupLedger()
    by_id = {state.rating_id: key for key, state in ratings.items()}
    for chunk in chunks(list(by_id)):
        for rating_id, opponent, *sums in PlayerMatchup.objects.filter(
            rating_id__in=chunk
        ).values_list(*PLAYER_MATCHUP_COLUMNS):
            matchups.player_matchups[(by_id[rating_id], opponent)] = MatchupSums(*sums)
    return ledger, matchups


def _counted_games_of(key: RatingKey) -> QuerySet[Match]:
    player, character = key
    return Match.objects.filter(
        Q(player_a_id=player, character_a_id=character)
        | Q(player_b_id=player, character_b_id=character),
        rating__counted=True,
    )


@dataclass(frozen=True)
class StoredYoungGames:
    """`RatingLedger.stored_young_games` for incremental rating: at a rating's flag (a
    handful a day), its counted games already stored, in the order rated, each with its
    opponent, the opponent's change and the opponent's counted games up to it; the
    opponents the batch did not load are loaded into the ledger. A flagged rating is
    young: at most the test's window of games, a count query each."""

    ledger: RatingLedger

    def __call__(self, key: RatingKey) -> list[YoungGame]:
        rows = (
            _counted_games_of(key)
            .order_by("played_at", "id")
            .values_list(
                "id",
                "played_at",
                "player_a_id",
                "character_a_id",
                "player_b_id",
                "character_b_id",
                "rating__change_a",
                "rating__change_b",
            )
        )
        games = []
        for match_id, played_at, pa, ca, pb, cb, change_a, change_b in rows:
            opponent, change = ((pb, cb), change_b) if (pa, ca) == key else ((pa, ca), change_a)
            played = (
                _counted_games_of(opponent)
                .filter(Q(played_at__lt=played_at) | Q(played_at=played_at, id__lte=match_id))
                .count()
            )
            games.append((opponent, change, played))
        missing = {opponent for opponent, _, _ in games} - self.ledger.ratings.keys()
        for opponent_player, opponent_character in missing:
            row = Rating.objects.values_list("id", *RATING_STATE_COLUMNS).get(
                player_id=opponent_player, character_id=opponent_character
            )
            self.ledger.ratings[opponent_player, opponent_character] = rating_state(row[0], row[1:])
        return games


def _rating_row(key: RatingKey, state: RatingState) -> tuple:
    """(player_id, character_id, *RATING_STATE_COLUMNS) of a state."""
    return (*key, *(_column_value(state, name) for name in RATING_FIELDS))


def _column_value(state: RatingState, name: str) -> object:
    value = getattr(state, name)
    if name in RATING_TIME_COLUMNS:
        return moment(value)
    if name == "confirming_players":
        return confirming_players_text(value)
    return value


def confirming_players_text(players: Iterable[str]) -> str:
    """Rating.confirming_players of a state's tuple of ids."""
    return " ".join(players)


def write_ratings(ledger: RatingLedger, keys: Iterable[RatingKey]) -> None:
    """Upsert the given ratings, then learn the ids of those that were new."""
    keys = list(keys)
    bulk.upsert(
        Rating,
        ("player_id", "character_id", *RATING_STATE_COLUMNS),
        (_rating_row(key, ledger.ratings[key]) for key in keys),
        conflict_columns=("player_id", "character_id"),
    )
    new_players = sorted({key[0] for key in keys if ledger.ratings[key].rating_id is None})
    ids = Rating.objects.values_list("id", "player_id", "character_id")
    for chunk in chunks(new_players):
        for rating_id, player_id, character_id in fetch_rows(ids.filter(player_id__in=chunk)):
            state = ledger.ratings.get((player_id, character_id))
            if state is not None:
                state.rating_id = rating_id


def rating_ids_of(ledger: RatingLedger) -> dict[RatingKey, int]:
    return {key: state.rating_id for key, state in ledger.ratings.items()}


def write_matchups(matchups: MatchupLedger, rating_ids: Mapping[RatingKey, int]) -> None:
    """Upsert the player matchups and daily snapshots the ledger touched."""
    bulk.upsert(
        PlayerMatchup,
        PLAYER_MATCHUP_COLUMNS,
        player_matchup_rows(matchups, rating_ids),
        conflict_columns=("rating_id", "opponent_character_id"),
    )
    matchups.touched_player_matchups.clear()
    bulk.upsert(
        RatingSnapshot,
        SNAPSHOT_COLUMNS,
        snapshot_rows(matchups.take_snapshots(), rating_ids),
        conflict_columns=("rating_id", "day"),
    )


MATCH_RATING_COLUMNS = (
    "match_id",
    "rated_at",
    "counted",
    "value_a",
    "deviation_a",
    "change_a",
    "value_b",
    "deviation_b",
    "change_b",
    "chance_a",
)


def result_rows(results: list[GameResult], rated_at: datetime) -> Iterator[tuple]:
    """Rows of MATCH_RATING_COLUMNS."""
    for r in results:
        yield (
            r.match_id,
            rated_at,
            r.counted,
            r.value_a,
            r.deviation_a,
            r.new_value_a - r.value_a,
            r.value_b,
            r.deviation_b,
            r.new_value_b - r.value_b,
            r.chance_a,
        )


def matches_in_order(
    matches: QuerySet[Match],
    chunk_size: int = 50_000,
    convert: Callable[[list[tuple]], Chunk] = games_of,
) -> Iterator[Chunk]:
    """The matches in (played_at, id) order, a chunk at a time (keyset pages, no open
    cursor), each chunk made by `convert` from rows of game_columns()."""
    queryset = (
        matches.order_by("played_at", "id")
        .annotate(epoch=EpochSeconds("played_at"))
        .values_list(*game_columns())
    )
    page = fetch_rows(queryset[:chunk_size])
    while page:
        yield convert(page)
        last_id = page[-1][0]
        last_played_at = Match.objects.values_list("played_at", flat=True).get(id=last_id)
        # The redundant `played_at >= last` is what the index can seek to; the OR alone
        # would make every page scan the index from the first game.
        page = fetch_rows(
            queryset.filter(
                Q(played_at__gt=last_played_at) | Q(id__gt=last_id),
                played_at__gte=last_played_at,
            )[:chunk_size]
        )
