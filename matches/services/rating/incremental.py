"""Incremental rating (docs/architecture.md#from-a-replay-to-a-page, step 2): the pending
matches become ratings.

One writer at a time rates pending matches in (played_at, id) order, a batch per
transaction: load every state the batch touches in a few queries, apply the games in
memory (matches.ratings.ledger), write everything back with bulk statements and mark
the batch rated in the same transaction. A crash leaves a whole batch or nothing, and
a retried or concurrent run rates nothing twice.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from matches.dbfunctions import EpochSeconds
from matches.metrics import count_rated
from matches.models import MatchRating, PendingMatch
from matches.ratings.ledger import Game
from matches.services import bulk
from matches.services.integrity import record_suspicions
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock
from matches.services.rating.storage import (
    MATCH_RATING_COLUMNS,
    RatingRun,
    chunks,
    game_columns,
    games_of,
    load_ledgers,
    rating_ids_of,
    result_rows,
    write_matchups,
    write_ratings,
)
from web.generation import bump_generation


def _claim(games: list[Game]) -> int:
    """Take the batch off the pending queue; returns how many of its matches were still there.

    Nothing refers to a queue row, so each chunk is one plain DELETE (Django's fast delete).
    """
    ids = [game.match_id for game in games]
    return sum(PendingMatch.objects.filter(match_id__in=chunk).delete()[0] for chunk in chunks(ids))


class ClaimLost(RuntimeError):
    """Some matches of a batch were rated by someone else meanwhile; the batch rolls back."""


def rate_pending_matches(
    *, batch_size: int | None = None, max_batches: int | None = None, wait: bool = False
) -> RatingRun:
    """Rate unrated matches in (played_at, id) order until none remain (or max_batches).
    While another writer (a refresh, a recompute) holds the lock: stop (busy), or with
    `wait` wait for it before each batch, as a command run by hand must (issue 35)."""
    batch_size = batch_size or settings.RATING_BATCH_SIZE
    rated = counted = batches = 0
    while max_batches is None or batches < max_batches:
        with transaction.atomic():
            if not acquire_transaction_lock(RATING_WRITER_LOCK, wait=wait):
                return RatingRun(rated, counted, batches, busy=True)
            games = games_of(
                PendingMatch.objects.order_by("played_at", "match_id")
                .annotate(epoch=EpochSeconds("match__played_at"))
                .values_list(*game_columns("match__"))[:batch_size]
            )
            if not games:
                break
            if _claim(games) != len(games):
                raise ClaimLost("a concurrent writer rated part of this batch")
            ledger, matchups = load_ledgers(games)
            results = [ledger.apply(game) for game in games]
            for game, result in zip(games, results, strict=True):
                matchups.record(game, result)
            write_ratings(ledger, ledger.touched_ratings)
            write_matchups(matchups, rating_ids_of(ledger))
            bulk.insert(MatchRating, MATCH_RATING_COLUMNS, result_rows(results, timezone.now()))
            # Suspected alternate accounts go to the review queue with the batch.
            record_suspicions(ledger.take_suspicions())
        rated += len(results)
        counted += sum(r.counted for r in results)
        batches += 1
    if rated:
        bump_generation()
    count_rated(rated, batches)
    return RatingRun(rated, counted, batches)
