"""Recompute (docs/rating-model.md#late-games-and-recompute): forget every rating and rebuild
all of them from the stored matches, in one transaction, fast enough to run after any
parameter change."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from functools import partial

import numpy as np
from django.db import connection, transaction
from django.utils import timezone

from matches.dbfunctions import EpochSeconds
from matches.models import CharacterMatchup, Match, MatchRating, PendingMatch
from matches.params import glicko_params
from matches.ratings import kernel
from matches.ratings.calibration import LogitBin
from matches.ratings.glicko import GlickoParams
from matches.ratings.ledger import (
    Game,
    GameResult,
    MatchupLedger,
    RatingKey,
    RatingLedger,
    RatingState,
)
from matches.services import bulk
from matches.services.calibration import refit_calibration
from matches.services.character_matchups import rebuild_character_matchups
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock
from matches.services.matchup_process import PLAYER_MATCHUPS, SNAPSHOTS, MatchupProcess
from matches.services.memory import paused_garbage_collection
from matches.services.rating import arrays
from matches.services.rating.decay import decay_shown
from matches.services.rating.storage import (
    MATCH_RATING_COLUMNS,
    LocalMatchups,
    RatingRun,
    game_columns,
    games_of,
    insert_numbered_ratings,
    matches_in_order,
    new_rating_ledger,
    number_ratings,
    result_rows,
)
from matches.services.rating_rows import PLAYER_MATCHUP_COLUMNS, SNAPSHOT_COLUMNS
from matches.services.read_ahead import chunks_read_ahead, other_connections_see_this_transaction
from players.models import Player, PlayerMatchup, Rating, RatingSnapshot
from web.generation import bump_generation

# Connections reading the stored games at once: the server hashes and aggregates them,
# a core a connection, on a machine of two cores.
HISTORY_READERS = 2


class _MatchupsInChildProcess:
    """The MatchupLedger on the second core (a recompute on PostgreSQL). Its rows arrive
    as COPY files, encoded while this process goes on after `close`; they can only
    load emptied tables (`fresh`)."""

    TABLES = {
        PLAYER_MATCHUPS: (PlayerMatchup, PLAYER_MATCHUP_COLUMNS),
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
) -> Iterator[LocalMatchups | _MatchupsInChildProcess]:
    # A daemonic process (a Celery pool worker, say) may not start one of its own.
    if connection.vendor != "postgresql" or multiprocessing.current_process().daemon:
        yield LocalMatchups(ledger)
        return
    types = {
        name: bulk.column_types(model, columns)
        for name, (model, columns) in _MatchupsInChildProcess.TABLES.items()
    }
    with MatchupProcess(ledger, bulk.plain_connection_params(), types) as process:
        yield _MatchupsInChildProcess(process)


@contextmanager
def _matches_in_results_out(
    chunk_size: int,
) -> Iterator[tuple[Iterable[list[Game]], Callable[[Iterable[tuple]], object]]]:
    """Every match in (played_at, id) order a chunk of Games at a time, and a function
    that stores rows of MATCH_RATING_COLUMNS.

    On PostgreSQL the matches are read a chunk ahead on a second connection
    (matches.services.read_ahead), which leaves this one free to stream every result
    through one COPY. That connection sees only committed matches, so inside a caller's
    transaction (savepoints mark one), which may hold more, and on SQLite, this
    connection takes turns: read a chunk, insert its results.
    """
    columns = (MatchRating, MATCH_RATING_COLUMNS)
    if not other_connections_see_this_transaction():
        yield matches_in_order(Match.objects.all(), chunk_size), partial(bulk.insert, *columns)
        return
    queryset = (
        Match.objects.order_by("played_at", "id")
        .annotate(epoch=EpochSeconds("played_at"))
        .values_list(*game_columns())
    )
    with (
        chunks_read_ahead(queryset, chunk_size, games_of) as chunks,
        bulk.insert_stream(*columns) as write_results,
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
    with connection.cursor() as cursor:
        for model in _DERIVED_MODELS:
            cursor.execute(f"DELETE FROM {model._meta.db_table}")


def recompute_all_ratings(
    *,
    chunk_size: int = 50_000,
    progress: Callable[[int], None] | None = None,
    now: datetime | None = None,
) -> RatingRun:
    """Forget every rating and rebuild all of them from the stored matches, in one transaction.

    The whole history runs through one in-memory ledger: on PostgreSQL with numba
    installed the compiled kernel over arrays (matches.ratings.kernel), otherwise the
    pure ledgers, the matchup ledger then in a second process on PostgreSQL (see
    matches.services.matchup_process). Match results are written a chunk at a time and
    ratings, matchups and snapshots once at the end, into tables whose indexes are
    built after the load. The tables are emptied with TRUNCATE, so their readers wait
    for the commit (cached pages are still served). The ratings are stored decayed up to
    `now` as the periodic decay would leave them (decay.decay_shown), so the next refresh
    has no backlog to write. The character matchups and the calibration of shown chances
    are rebuilt afterwards from the new ratings.
    """
    until = (now or timezone.now()).timestamp()
    with paused_garbage_collection(), transaction.atomic():
        acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
        _reset_derived_tables()
        excluded = Player.objects.flagged().values_list("id", flat=True)
        predictions: list[LogitBin] | None = None  # read back from the stored games
        if kernel.COMPILED and connection.vendor == "postgresql":
            run, predictions = _recompute_compiled(excluded, chunk_size, progress, until)
        else:
            run = _recompute_with_ledgers(excluded, chunk_size, progress, until)
    bulk.analyze(_DERIVED_MODELS)
    # The shown chances go through a calibration fitted on the old ratings' predictions.
    refit_calibration(predictions)
    bump_generation()
    return run


def _recompute_compiled(
    excluded: Iterable[str], chunk_size: int, progress: Callable[[int], None] | None, until: float
) -> tuple[RatingRun, list[LogitBin]]:
    """The compiled recompute, and the bins of the predictions the calibration is
    fitted on."""
    history = arrays.read_history(
        readers=HISTORY_READERS if other_connections_see_this_transaction() else 1
    )
    ledger = kernel.ArrayLedger(glicko_params())
    flagged = np.array([player.encode() for player in excluded], dtype=bytes)
    flagged_ratings = np.isin(history.player, flagged)
    ledger.add(flagged_ratings, history.character)
    predictions = arrays.RecentPredictions(history.match_id, flagged_ratings)
    run = _rate_history(ledger, history, chunk_size, progress, predictions)
    players = history.player
    del history  # hundreds of megabytes at ten million games, for the steps below
    ledger.close()
    deviation, last_decay_at = ledger.column("deviation"), ledger.column("last_decay_at")
    decayed, decayed_at, shown = decay_shown(deviation, last_decay_at, until, ledger.params)
    deviation[shown], last_decay_at[shown] = decayed[shown], decayed_at[shown]
    with ThreadPoolExecutor(max_workers=1) as second_core:
        # The compiled sums release the GIL: they add up on the other core while this
        # one waits for the database to store the ratings and fit the character matchups.
        sums = second_core.submit(ledger.player_matchups)
        with bulk.indexes_built_after((Rating,)):
            arrays.insert_ratings(ledger, players)
        rebuild_character_matchups(arrays.character_matchup_groups(ledger))
        with bulk.indexes_built_after((RatingSnapshot, PlayerMatchup)):
            arrays.insert_matchups_and_snapshots(ledger, sums.result())
    return run, predictions.bins()


def _rate_history(
    ledger: kernel.ArrayLedger,
    history: arrays.History,
    chunk_size: int,
    progress: Callable[[int], None] | None,
    predictions: arrays.RecentPredictions,
) -> RatingRun:
    """Rate every game a chunk at a time, streaming the MatchRating rows through COPY."""
    rated = batches = counted = 0
    rated_at = timezone.now().timestamp()
    # Asked before the COPY opens: this connection can run nothing else meanwhile.
    types = arrays.match_rating_types()
    with (
        bulk.indexes_built_after((MatchRating,)),
        bulk.encoded_stream(MatchRating, MATCH_RATING_COLUMNS) as write,
    ):
        for start in range(0, len(history), chunk_size):
            games = history.games(start, start + chunk_size)
            rows, chunk_counted = arrays.apply(ledger, games, rated_at, types, predictions)
            write(rows)
            counted += chunk_counted
            rated += len(games[0])
            batches += 1
            if progress is not None:
                progress(rated)
    return RatingRun(rated, counted, batches)


def _recompute_with_ledgers(
    excluded: Iterable[str], chunk_size: int, progress: Callable[[int], None] | None, until: float
) -> RatingRun:
    ledger = new_rating_ledger(excluded)
    with (
        bulk.indexes_built_after((RatingSnapshot, PlayerMatchup)),
        _recompute_matchups(MatchupLedger()) as matchups,
    ):
        with bulk.indexes_built_after((MatchRating,)):
            rated, batches, counted = _replay_history(ledger, matchups, chunk_size, progress)
            # On PostgreSQL the matchup process now encodes its rows while this one
            # builds indexes and writes the ratings.
            matchups.close(number_ratings(ledger))
        _decay_states(list(ledger.ratings.values()), until, ledger.params)
        with bulk.indexes_built_after((Rating,)):
            insert_numbered_ratings(ledger)
        # On PostgreSQL, while the matchup process is still encoding.
        rebuild_character_matchups()
        matchups.write(fresh=True)
    return RatingRun(rated, counted, batches)


def _decay_states(states: list[RatingState], until: float, params: GlickoParams) -> None:
    nan = float("nan")
    deviation = np.array([state.deviation for state in states])
    last_decay_at = np.array([nan if s.last_decay_at is None else s.last_decay_at for s in states])
    decayed, decayed_at, write = decay_shown(deviation, last_decay_at, until, params)
    for i in np.flatnonzero(write).tolist():
        states[i].deviation, states[i].last_decay_at = float(decayed[i]), float(decayed_at[i])


def _replay_history(
    ledger: RatingLedger,
    matchups: LocalMatchups | _MatchupsInChildProcess,
    chunk_size: int,
    progress: Callable[[int], None] | None,
) -> tuple[int, int, int]:
    """Rate every match in order a chunk at a time, handing each chunk's results to the
    matchups and storing them; returns (games rated, chunks, games counted)."""
    rated = batches = counted = 0
    rated_at = timezone.now()
    with _matches_in_results_out(chunk_size) as (chunks, write_results):
        for games in chunks:
            results = [ledger.apply(game) for game in games]
            matchups.record(games, results)
            write_results(result_rows(results, rated_at))
            counted += sum(r.counted for r in results)
            rated += len(results)
            batches += 1
            if progress is not None:
                progress(rated)
    return rated, batches, counted
