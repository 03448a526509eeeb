"""Recompute (docs/rating-model.md#late-games-and-recompute): forget every rating and rebuild
all of them from the stored matches, in one transaction, fast enough to run after any
parameter change."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import numpy as np
from django.db import connection, transaction
from django.utils import timezone

from matches.models import CharacterMatchup, MatchRating, PendingMatch
from matches.ratings.array_ledger import ArrayLedger, offset_matrix
from matches.ratings.calibration import LogitBin
from matches.selectors.chances import ChanceModel, chance_model
from matches.selectors.monitoring import LAST_RECOMPUTE
from matches.services import bulk
from matches.services.calibration import refit_calibration
from matches.services.character_matchups import forget_matchup_sums, rebuild_character_matchups
from matches.services.garbage_collection import paused_garbage_collection
from matches.services.integrity import record_suspicions
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock
from matches.services.rating import recompute_storage
from matches.services.rating.decay import decay_shown
from matches.services.rating.storage import MATCH_RATING_COLUMNS, RatingRun
from matches.services.read_ahead import other_connections_see_this_transaction
from matches.services.seasons import forget_season_games
from matches.services.site_statistic import timed_run
from players.models import Player, PlayerMatchup, Rating, RatingSnapshot
from web.generation import bump_generation

# Connections reading the stored games at once: the server hashes and aggregates them,
# a core a connection, on a machine of two cores.
HISTORY_READERS = 2


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
    tables = [model._meta.db_table for model in _DERIVED_MODELS]
    with connection.cursor() as cursor:
        # TRUNCATE refuses to run while deferred foreign-key checks are pending.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"TRUNCATE {', '.join(tables)}")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def recompute_all_ratings(
    *,
    chunk_size: int = 50_000,
    progress: Callable[[int], None] | None = None,
    now: datetime | None = None,
) -> RatingRun:
    """Forget every rating and rebuild all of them from the stored matches, in one transaction.

    The whole history runs through the compiled ledger over arrays
    (matches.ratings.array_ledger), the games read as whole columns
    (rating.recompute_storage). Match results are streamed through COPY a chunk at a
    time as they are rated, and ratings, matchups and snapshots written once at the end,
    into tables whose indexes are built after the load. The tables are emptied with
    TRUNCATE, so their readers wait for the commit (cached pages are still served). The
    ratings are stored decayed up to `now` as the periodic decay would leave them
    (decay.decay_shown), so the next refresh has no backlog to write. The character
    matchups and the calibration of shown chances are rebuilt afterwards from the new
    ratings.
    """
    until = (now or timezone.now()).timestamp()
    with timed_run(LAST_RECOMPUTE):
        with paused_garbage_collection(), transaction.atomic():
            acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
            # The matchup offsets in force, read before the table is emptied and refitted.
            model = chance_model()
            _reset_derived_tables()
            forget_season_games()
            forget_matchup_sums()
            excluded = Player.objects.unrated().values_list("id", flat=True)
            run, predictions = _recompute_compiled(model, excluded, chunk_size, progress, until)
            # The calibration measured on the new predictions, committed with them: a
            # recompute killed after its commit leaves no stale measurement behind (issue 35).
            refit_calibration(predictions)
        bump_generation()
        bulk.analyze(_DERIVED_MODELS)
    return run


def _recompute_compiled(
    model: ChanceModel,
    excluded: Iterable[str],
    chunk_size: int,
    progress: Callable[[int], None] | None,
    until: float,
) -> tuple[RatingRun, list[LogitBin]]:
    """The compiled recompute, and the bins of the predictions the calibration is
    fitted on."""
    history = recompute_storage.read_history(
        readers=HISTORY_READERS if other_connections_see_this_transaction() else 1
    )
    ledger = ArrayLedger(model.params, offset_matrix(model.offsets))
    flagged = np.array([player.encode() for player in excluded], dtype=bytes)
    flagged_ratings = np.isin(history.player, flagged)
    # Players numbered by their place among the distinct ids (np.unique's order), as
    # recompute_storage reads them back.
    player_numbers = np.unique(history.player, return_inverse=True)[1]
    ledger.add(flagged_ratings, history.character, player_numbers)
    predictions = recompute_storage.RecentPredictions(history.match_id, flagged_ratings)
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
            recompute_storage.insert_ratings(ledger, players)
        rebuild_character_matchups(recompute_storage.character_matchup_groups(ledger))
        with bulk.indexes_built_after((RatingSnapshot, PlayerMatchup)):
            recompute_storage.insert_matchups_and_snapshots(ledger, sums.result())
    record_suspicions(recompute_storage.alternate_account_suspicions(ledger, players))
    return run, predictions.bins()


def _rate_history(
    ledger: ArrayLedger,
    history: recompute_storage.History,
    chunk_size: int,
    progress: Callable[[int], None] | None,
    predictions: recompute_storage.RecentPredictions,
) -> RatingRun:
    """Rate every game a chunk at a time, streaming the MatchRating rows through COPY."""
    rated = batches = counted = 0
    rated_at = timezone.now().timestamp()
    # Asked before the COPY opens: this connection can run nothing else meanwhile.
    types = recompute_storage.match_rating_types()
    with (
        bulk.indexes_built_after((MatchRating,)),
        bulk.encoded_stream(MatchRating, MATCH_RATING_COLUMNS) as write,
    ):
        for start in range(0, len(history), chunk_size):
            games = history.games(start, start + chunk_size)
            rows, chunk_counted = recompute_storage.apply(
                ledger, games, rated_at, types, predictions
            )
            write(rows)
            counted += chunk_counted
            rated += len(games[0])
            batches += 1
            if progress is not None:
                progress(rated)
    return RatingRun(rated, counted, batches)
