"""The rating pipeline (DESIGN.md section 4.6, step 2): stored matches become ratings.

One writer at a time rates unrated matches in (played_at, id) order, a batch per
transaction: load every state the batch touches in a few queries, apply the games in
memory (matches.ratings.ledger), write everything back with bulk statements and mark
the batch rated in the same transaction. A crash leaves a whole batch or nothing, and
a retried or concurrent run rates nothing twice.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from django.conf import settings
from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from matches.dbfunctions import EpochSeconds
from matches.generation import bump_generation
from matches.models import CharacterMatchup, Match, MatchRating, PendingMatch
from matches.ratings.glicko import GlickoParams, decay
from matches.ratings.ledger import (
    BRACKETS,
    Game,
    GameResult,
    MatchupLedger,
    MatchupState,
    RatingKey,
    RatingLedger,
    RatingState,
)
from matches.services import bulk
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock
from matches.services.matchup_process import (
    CHARACTER_MATCHUPS,
    PLAYER_MATCHUPS,
    SNAPSHOTS,
    MatchupProcess,
)
from matches.services.memory import paused_garbage_collection
from matches.services.rating_rows import (
    CHARACTER_MATCHUP_COLUMNS,
    PLAYER_MATCHUP_COLUMNS,
    SNAPSHOT_COLUMNS,
    character_matchup_rows,
    moment,
    player_matchup_rows,
    snapshot_rows,
)
from matches.services.read_ahead import chunks_read_ahead
from players.models import Player, PlayerMatchup, Rating, RatingSnapshot

logger = logging.getLogger(__name__)

# Keeps IN (...) lists under SQLite's limit on bound variables.
_IN_CHUNK = 10_000


def _game_columns(prefix: str = "") -> tuple[str, ...]:
    """What a Game is read from; the query annotates `epoch` (played_at in epoch seconds)."""
    fields = ("player_a_id", "character_a_id", "player_b_id", "character_b_id", "winner")
    return (f"{prefix}id", "epoch", *(prefix + field for field in fields))


RATING_STATE_COLUMNS = (
    "value",
    "deviation",
    "wins",
    "losses",
    "last_played_at",
    "last_decay_at",
    "peak_value",
    "peak_deviation",
    "peak_at",
    "best_win_opponent_id",
    "best_win_character_id",
    "best_win_value",
    "best_win_deviation",
    "best_win_at",
)
_RATING_TIME_COLUMNS = frozenset({"last_played_at", "last_decay_at", "peak_at", "best_win_at"})


@dataclass(frozen=True)
class RatingRun:
    """What one call rated; `busy` when another writer held the lock."""

    rated: int = 0
    counted: int = 0
    batches: int = 0
    busy: bool = False


def glicko_params() -> GlickoParams:
    """The site's Glicko constants, from settings."""
    return GlickoParams(
        initial_rating=settings.RATING_INITIAL,
        initial_deviation=settings.RATING_INITIAL_DEVIATION,
        minimum_deviation=settings.RATING_MINIMUM_DEVIATION,
        decay_constant=settings.RATING_DECAY_CONSTANT,
        decay_period_seconds=settings.RATING_DECAY_PERIOD_SECONDS,
        maximum_deviation=settings.RATING_MAXIMUM_DEVIATION,
        low_deviation=settings.RATING_LOW_DEVIATION,
        update_damping=settings.RATING_UPDATE_DAMPING,
        counting_margin=settings.RATING_COUNTING_MARGIN,
        counting_rms_deviation=settings.RATING_COUNTING_RMS_DEVIATION,
    )


def character_matchup_params() -> GlickoParams:
    params = glicko_params()
    return GlickoParams(
        initial_rating=params.initial_rating,
        initial_deviation=params.initial_deviation,
        minimum_deviation=settings.MATCHUP_MINIMUM_DEVIATION,
        maximum_deviation=params.maximum_deviation,
        update_damping=params.update_damping,
    )


def _epoch(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def _rows(queryset: QuerySet) -> list[tuple]:
    """A values_list queryset's rows straight from the driver: at a million rows, Django's
    row-by-row iterator costs more than the query."""
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _games(rows: Iterable[tuple]) -> list[Game]:
    """Games from rows of GAME_COLUMNS (played_at already in epoch seconds)."""
    return [
        Game(match_id, played_at, pa, ca, pb, cb, winner == Match.Winner.A)
        for match_id, played_at, pa, ca, pb, cb, winner in rows
    ]


def _chunks(values: list, size: int = _IN_CHUNK) -> Iterator[list]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _new_rating_ledger(excluded: Iterable[str]) -> RatingLedger:
    return RatingLedger(params=glicko_params(), excluded_players=frozenset(excluded))


def _new_matchup_ledger(
    ranks: dict[RatingKey, int], brackets: tuple[tuple[str, int | None], ...] = BRACKETS
) -> MatchupLedger:
    return MatchupLedger(
        params=glicko_params(),
        character_matchup_params=character_matchup_params(),
        character_ranks=ranks,
        brackets=brackets,
    )


def _load_ledgers(games: list[Game]) -> tuple[RatingLedger, MatchupLedger]:
    """Every state the batch touches, in one query per table."""
    player_ids = sorted({p for game in games for p in (game.player_a, game.player_b)})
    excluded: list[str] = []
    ratings: dict[RatingKey, RatingState] = {}
    ranks: dict[RatingKey, int] = {}
    for chunk in _chunks(player_ids):
        excluded += Player.objects.filter(
            Q(hidden=True) | Q(cheater=True), id__in=chunk
        ).values_list("id", flat=True)
        for row in Rating.objects.filter(player_id__in=chunk).values_list(
            "id", "player_id", "character_id", "character_rank", *RATING_STATE_COLUMNS
        ):
            key = (row[1], row[2])
            ratings[key] = _rating_state(row[0], row[4:])
            if row[3] is not None:
                ranks[key] = row[3]
    ledger = _new_rating_ledger(excluded)
    ledger.ratings = ratings
    matchups = _new_matchup_ledger(ranks)
    by_id = {state.rating_id: key for key, state in ratings.items()}
    for chunk in _chunks(list(by_id)):
        for (
            rating_id,
            opponent,
            wins,
            losses,
            value,
            deviation,
            last_decay,
        ) in PlayerMatchup.objects.filter(rating_id__in=chunk).values_list(*PLAYER_MATCHUP_COLUMNS):
            matchups.player_matchups[(by_id[rating_id], opponent)] = MatchupState(
                value, deviation, wins, losses, last_decay.timestamp()
            )
    for (
        bracket,
        character,
        opponent,
        wins,
        losses,
        value,
        deviation,
    ) in CharacterMatchup.objects.values_list(*CHARACTER_MATCHUP_COLUMNS):
        matchups.character_matchups[(bracket, character, opponent)] = MatchupState(
            value, deviation, wins, losses
        )
    return ledger, matchups


def _rating_state(rating_id: int, values: tuple) -> RatingState:
    fields = dict(zip(RATING_STATE_COLUMNS, values, strict=True))
    for name in _RATING_TIME_COLUMNS:
        fields[name] = _epoch(fields[name])
    fields["best_win_opponent"] = fields.pop("best_win_opponent_id")
    fields["best_win_character"] = fields.pop("best_win_character_id")
    value, deviation = fields.pop("value"), fields.pop("deviation")
    return RatingState(value, deviation, rating_id=rating_id, **fields)


def _rating_row(key: RatingKey, state: RatingState) -> tuple:
    return (
        key[0],
        key[1],
        state.value,
        state.deviation,
        state.wins,
        state.losses,
        moment(state.last_played_at),
        moment(state.last_decay_at),
        state.peak_value,
        state.peak_deviation,
        moment(state.peak_at),
        state.best_win_opponent,
        state.best_win_character,
        state.best_win_value,
        state.best_win_deviation,
        moment(state.best_win_at),
    )


def _save(
    model: type, columns: tuple, rows: Iterable[tuple], conflict_columns: tuple, *, fresh: bool
) -> None:
    """Write rows: straight in when the table was just emptied (a recompute), else upsert."""
    if fresh:
        bulk.insert(model, columns, rows)
    else:
        bulk.upsert(model, columns, rows, conflict_columns=conflict_columns)


def _write_ratings(ledger: RatingLedger, keys: Iterable[RatingKey]) -> None:
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
    for chunk in _chunks(new_players):
        for rating_id, player_id, character_id in _rows(ids.filter(player_id__in=chunk)):
            state = ledger.ratings.get((player_id, character_id))
            if state is not None:
                state.rating_id = rating_id


def _number_ratings(ledger: RatingLedger) -> dict[RatingKey, int]:
    """After a reset, give every rating its id (1, 2, ... in order of first game) before
    any is written, so that rows naming them can be built meanwhile; returns the ids."""
    ids = {}
    for number, (key, state) in enumerate(ledger.ratings.items(), start=1):
        state.rating_id = ids[key] = number
    return ids


def _insert_numbered_ratings(ledger: RatingLedger) -> None:
    """Insert every rating with the id `_number_ratings` gave it, into the emptied table."""
    bulk.insert(
        Rating,
        ("id", "player_id", "character_id", *RATING_STATE_COLUMNS),
        ((state.rating_id, *_rating_row(key, state)) for key, state in ledger.ratings.items()),
    )
    with connection.cursor() as cursor:
        # The id sequence continues after the highest id given here.
        for statement in connection.ops.sequence_reset_sql(no_style(), [Rating]):
            cursor.execute(statement)


def _rating_ids(ledger: RatingLedger) -> dict[RatingKey, int]:
    return {key: state.rating_id for key, state in ledger.ratings.items()}


def _write_matchups(
    matchups: MatchupLedger, rating_ids: Mapping[RatingKey, int], *, fresh: bool
) -> None:
    _save(
        PlayerMatchup,
        PLAYER_MATCHUP_COLUMNS,
        player_matchup_rows(matchups, rating_ids),
        ("rating_id", "opponent_character_id"),
        fresh=fresh,
    )
    _save(
        CharacterMatchup,
        CHARACTER_MATCHUP_COLUMNS,
        character_matchup_rows(matchups),
        ("bracket", "character_id", "opponent_id"),
        fresh=fresh,
    )
    matchups.touched_player_matchups.clear()
    matchups.touched_character_matchups.clear()
    _save(
        RatingSnapshot,
        SNAPSHOT_COLUMNS,
        snapshot_rows(matchups.take_snapshots(), rating_ids),
        ("rating_id", "day"),
        fresh=fresh,
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
)


def _result_rows(results: list[GameResult], rated_at: datetime) -> Iterator[tuple]:
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
        )


def _claim(games: list[Game]) -> int:
    """Take the batch off the pending queue; returns how many of its matches were still there."""
    ids = [game.match_id for game in games]
    return sum(
        PendingMatch.objects.filter(match_id__in=chunk)._raw_delete(PendingMatch.objects.db)
        for chunk in _chunks(ids)
    )


class _LocalMatchups:
    """The MatchupLedger in this process: every incremental batch, and recomputes on SQLite."""

    def __init__(self, ledger: MatchupLedger) -> None:
        self.ledger = ledger
        self.rating_ids: Mapping[RatingKey, int] = {}

    def record(self, games: Sequence[Game], results: Sequence[GameResult]) -> None:
        record = self.ledger.record
        for game, result in zip(games, results, strict=True):
            record(game, result)

    def close(self, rating_ids: Mapping[RatingKey, int]) -> None:
        """No more games; rows will name ratings by these ids."""
        self.rating_ids = rating_ids

    def write(self, *, fresh: bool) -> None:
        _write_matchups(self.ledger, self.rating_ids, fresh=fresh)


class _MatchupsInChildProcess:
    """The MatchupLedger on the second core (a recompute on PostgreSQL). Its rows arrive
    as COPY files, encoded while this process goes on after `close`; they can only
    load emptied tables (`fresh`)."""

    TABLES = {
        PLAYER_MATCHUPS: (PlayerMatchup, PLAYER_MATCHUP_COLUMNS),
        CHARACTER_MATCHUPS: (CharacterMatchup, CHARACTER_MATCHUP_COLUMNS),
        SNAPSHOTS: (RatingSnapshot, SNAPSHOT_COLUMNS),
    }

    def __init__(self, process: MatchupProcess) -> None:
        self.process = process

    def record(self, games: Sequence[Game], results: Sequence[GameResult]) -> None:
        self.process.record(games, results)

    def close(self, rating_ids: Mapping[RatingKey, int]) -> None:
        self.process.close(rating_ids)

    def write(self, *, fresh: bool) -> None:
        if not fresh:
            raise ValueError("COPY files only load emptied tables")
        for name, path in self.process.encoded_files():
            model, columns = self.TABLES[name]
            bulk.copy_file(model, columns, path)


@contextmanager
def _recompute_matchups(
    ledger: MatchupLedger,
) -> Iterator[_LocalMatchups | _MatchupsInChildProcess]:
    # A daemonic process (a Celery pool worker, say) may not start one of its own.
    if connection.vendor != "postgresql" or multiprocessing.current_process().daemon:
        yield _LocalMatchups(ledger)
        return
    types = {
        name: bulk.column_types(model, columns)
        for name, (model, columns) in _MatchupsInChildProcess.TABLES.items()
    }
    with MatchupProcess(ledger, bulk.plain_connection_params(), types) as process:
        yield _MatchupsInChildProcess(process)


class ClaimLost(RuntimeError):
    """Some matches of a batch were rated by someone else meanwhile; the batch rolls back."""


def rate_pending_matches(
    *, batch_size: int | None = None, max_batches: int | None = None
) -> RatingRun:
    """Rate unrated matches in (played_at, id) order until none remain (or max_batches)."""
    batch_size = batch_size or settings.RATING_BATCH_SIZE
    rated = counted = batches = 0
    while max_batches is None or batches < max_batches:
        with transaction.atomic():
            if not acquire_transaction_lock(RATING_WRITER_LOCK, wait=False):
                return RatingRun(rated, counted, batches, busy=True)
            games = _games(
                PendingMatch.objects.order_by("played_at", "match_id")
                .annotate(epoch=EpochSeconds("match__played_at"))
                .values_list(*_game_columns("match__"))[:batch_size]
            )
            if not games:
                break
            if _claim(games) != len(games):
                raise ClaimLost("a concurrent writer rated part of this batch")
            ledger, matchup_ledger = _load_ledgers(games)
            matchups = _LocalMatchups(matchup_ledger)
            results = [ledger.apply(game) for game in games]
            matchups.record(games, results)
            _write_ratings(ledger, ledger.touched_ratings)
            matchups.close(_rating_ids(ledger))
            matchups.write(fresh=False)
            bulk.insert(MatchRating, MATCH_RATING_COLUMNS, _result_rows(results, timezone.now()))
        rated += len(results)
        counted += sum(r.counted for r in results)
        batches += 1
    if rated:
        bump_generation()
    return RatingRun(rated, counted, batches)


def matches_in_order(matches: QuerySet[Match], chunk_size: int = 50_000) -> Iterator[list[Game]]:
    """The matches in (played_at, id) order, a chunk at a time (keyset pages, no open cursor)."""
    queryset = (
        matches.order_by("played_at", "id")
        .annotate(epoch=EpochSeconds("played_at"))
        .values_list(*_game_columns())
    )
    page = _rows(queryset[:chunk_size])
    while page:
        yield _games(page)
        last_id = page[-1][0]
        last_played_at = Match.objects.values_list("played_at", flat=True).get(id=last_id)
        # The redundant `played_at >= last` is what the index can seek to; the OR alone
        # would make every page scan the index from the first game.
        page = _rows(
            queryset.filter(
                Q(played_at__gt=last_played_at) | Q(id__gt=last_id),
                played_at__gte=last_played_at,
            )[:chunk_size]
        )


@contextmanager
def _matches_in_results_out(
    chunk_size: int,
) -> Iterator[tuple[Iterable[list[Game]], Callable[[Iterable[tuple]], object]]]:
    """Every match as Games in (played_at, id) order a chunk at a time, and a function
    that stores rows of MATCH_RATING_COLUMNS.

    On PostgreSQL the matches are read a chunk ahead on a second connection
    (matches.services.read_ahead), which leaves this one free to stream every result
    through one COPY. That connection sees only committed matches, so inside a caller's
    transaction (savepoints mark one), which may hold more, and on SQLite, this
    connection takes turns: read a chunk, insert its results.
    """
    if connection.vendor != "postgresql" or connection.savepoint_ids:
        yield (
            matches_in_order(Match.objects.all(), chunk_size),
            partial(bulk.insert, MatchRating, MATCH_RATING_COLUMNS),
        )
        return
    queryset = (
        Match.objects.order_by("played_at", "id")
        .annotate(epoch=EpochSeconds("played_at"))
        .values_list(*_game_columns())
    )
    with (
        chunks_read_ahead(queryset, chunk_size, _games) as chunks,
        bulk.insert_stream(MatchRating, MATCH_RATING_COLUMNS) as write_results,
    ):
        yield chunks, write_results


_DERIVED_MODELS = (
    MatchRating,
    PendingMatch,
    RatingSnapshot,
    PlayerMatchup,
    CharacterMatchup,
    Rating,
)


def _reset_derived_tables() -> None:
    """Empty everything rating derives from matches, the pending queue included."""
    if connection.vendor == "postgresql":
        tables = [model._meta.db_table for model in _DERIVED_MODELS]
        with connection.cursor() as cursor:
            # TRUNCATE refuses to run while deferred foreign-key checks are pending.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"TRUNCATE {', '.join(tables)}")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        return
    for model in _DERIVED_MODELS:
        model.objects.all()._raw_delete(model.objects.db)


def recompute_all_ratings(
    *, chunk_size: int = 50_000, progress: Callable[[int], None] | None = None
) -> RatingRun:
    """Forget every rating and rebuild all of them from the stored matches, in one transaction.

    The whole history runs through one pair of in-memory ledgers: on PostgreSQL the
    matchup ledger runs in a second process, beside the ratings (see
    matches.services.matchup_process). Match results are written a chunk at a time and
    ratings, matchups and snapshots once at the end, into tables whose indexes are
    built after the load. The tables are emptied with TRUNCATE, so their readers wait
    for the commit (cached pages are still served). Ranks and the top-N matchup
    brackets are rebuilt afterwards from the new ratings.
    """
    from matches.services.statistics import refresh_ranks

    with paused_garbage_collection(), transaction.atomic():
        acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
        _reset_derived_tables()
        ledger = _new_rating_ledger(
            Player.objects.filter(Q(hidden=True) | Q(cheater=True)).values_list("id", flat=True)
        )
        with (
            bulk.indexes_built_after((RatingSnapshot, PlayerMatchup)),
            _recompute_matchups(_new_matchup_ledger({}, BRACKETS[:1])) as matchups,
        ):
            with bulk.indexes_built_after((MatchRating,)):
                rated, batches, counted_games = _replay_history(
                    ledger, matchups, chunk_size, progress
                )
                # On PostgreSQL the matchup process now encodes its rows while this one
                # builds indexes, writes the ratings and ranks them.
                matchups.close(_number_ratings(ledger))
            with bulk.indexes_built_after((Rating,)):
                _insert_numbered_ratings(ledger)
                refresh_ranks()
            rebuild_bracket_matchups(counted_games)
            matchups.write(fresh=True)
    bulk.analyze(_DERIVED_MODELS)
    bump_generation()
    return RatingRun(rated, len(counted_games), batches)


def _replay_history(
    ledger: RatingLedger,
    matchups: _LocalMatchups | _MatchupsInChildProcess,
    chunk_size: int,
    progress: Callable[[int], None] | None,
) -> tuple[int, int, list[Game]]:
    """Rate every match in order a chunk at a time, handing each chunk's results to the
    matchups and storing them; returns (games rated, chunks, the counted games)."""
    rated = batches = 0
    rated_at = timezone.now()
    # Kept for the top-N brackets, which need the final ranks: cheaper in memory than
    # reading a million games back from the database.
    counted_games: list[Game] = []
    with _matches_in_results_out(chunk_size) as (chunks, write_results):
        for games in chunks:
            results = [ledger.apply(game) for game in games]
            matchups.record(games, results)
            write_results(_result_rows(results, rated_at))
            counted_games += [g for g, r in zip(games, results, strict=True) if r.counted]
            rated += len(results)
            batches += 1
            if progress is not None:
                progress(rated)
    return rated, batches, counted_games


def rebuild_bracket_matchups(counted_games: Iterable[Game] | None = None) -> None:
    """Rebuild the top-N character matchup brackets from all counted games and current ranks.

    Live rating files a game under a top-N bracket by the ranks of the moment; after a
    recompute there are no such moments to replay, so the current ranks decide. The
    counted games are read from the database unless given (in time order).
    """
    largest = max(limit for _, limit in BRACKETS if limit is not None)
    ranks = {
        (player_id, character_id): rank
        for player_id, character_id, rank in Rating.objects.filter(
            character_rank__lte=largest
        ).values_list("player_id", "character_id", "character_rank")
    }
    matchups = _new_matchup_ledger(ranks, BRACKETS[1:])
    if counted_games is None:
        counted_games = (
            game
            for games in matches_in_order(Match.objects.filter(rating__counted=True))
            for game in games
        )
    for game in counted_games:
        matchups.apply_character_matchups(game)
    CharacterMatchup.objects.exclude(bracket=CharacterMatchup.Bracket.ALL).delete()
    _write_matchups(matchups, {}, fresh=True)


def decay_all_ratings(now: datetime | None = None) -> int:
    """Grow the deviation of every idle rating below the cap up to `now`; returns how many changed.

    Runs under the rating writer lock, so it never overwrites a batch's fresh ratings.
    """
    params = glicko_params()
    until = (now or timezone.now()).timestamp()
    with transaction.atomic():
        acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
        rows = []
        for rating_id, deviation, last_decay_at in Rating.objects.filter(
            deviation__lt=params.maximum_deviation, last_decay_at__isnull=False
        ).values_list("id", "deviation", "last_decay_at"):
            new_deviation, new_last_decay = decay(
                deviation, last_decay_at.timestamp(), until, params
            )
            if new_last_decay != last_decay_at.timestamp():
                rows.append((rating_id, new_deviation, moment(new_last_decay)))
        return bulk.update(Rating, "id", ("deviation", "last_decay_at"), rows) if rows else 0
