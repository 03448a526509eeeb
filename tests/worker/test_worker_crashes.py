"""Real worker processes (`celery -A ratingsite worker`) against PostgreSQL, killed and cut off.

Each test stores a simulated league's games, lets worker processes rate them in small
batches and checks that, whatever happened meanwhile, every match is rated exactly
once and the ratings are those `recompute_ratings` rebuilds from the same matches.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.utils import timezone

from bench.faults import terminate_connections
from matches.models import Match, MatchRating
from matches.replays.readers import iter_replay_payloads
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.services.locks import RATING_WRITER_LOCK
from matches.services.rating.decay import decay_all_ratings
from matches.services.rating.incremental import rate_pending_matches
from matches.services.rating.recompute import recompute_all_ratings
from matches.simulation.league import LeagueSimulator
from matches.tasks import rate_matches
from players.models import Rating
from tests.factories import BASE_TIME
from tests.worker.conftest import games_counted_twice, rated_count, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

BATCH = 250
WORKER_ENV = {"RATING_BATCH_SIZE": str(BATCH)}


def store_league(games: int, *, skip: int = 0) -> None:
    league = LeagueSimulator(300, 11, BASE_TIME, rate=0.05, position=skip)
    store_replays(source=file_import_source(), replays=iter_replay_payloads(league.games(games)))


def writer_lock_held() -> bool:
    """Whether a rating batch transaction is open on this database right now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND classid = 0 AND objid = %s "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            [RATING_WRITER_LOCK],
        )
        return cursor.fetchone()[0] > 0


def results() -> tuple[dict, dict]:
    ratings = {
        (r.player_id, r.character_id): (
            r.value,
            r.deviation,
            r.wins,
            r.losses,
            r.last_decay_at.timestamp(),
        )
        for r in Rating.objects.all()
    }
    matches = {
        m[0]: m[1:]
        for m in MatchRating.objects.values_list(
            "match_id", "counted", "value_a", "deviation_a", "change_a", "value_b", "change_b"
        )
    }
    return ratings, matches


def assert_rated_once_and_equal_to_a_recompute() -> None:
    assert not Match.objects.pending().exists()
    assert games_counted_twice() == 0
    # A recompute stores the ratings decayed as the periodic decay leaves them.
    now = timezone.now()
    decay_all_ratings(now)
    live_ratings, live_matches = results()
    recompute_all_ratings(now=now)
    ratings, matches = results()
    assert live_ratings.keys() == ratings.keys() and live_matches.keys() == matches.keys()
    for key, values in ratings.items():
        assert live_ratings[key] == pytest.approx(values, abs=1e-6), key
    for key, values in matches.items():
        assert live_matches[key] == pytest.approx(values, abs=1e-6), key


def test_sigkill_in_the_middle_of_a_rating_batch(worker_processes):
    store_league(10_000)
    worker = worker_processes.start(pause_at_batch=2, **WORKER_ENV)
    rate_matches.delay()
    worker_processes.wait_until_paused()  # batch 2's ratings are written, not committed
    worker_processes.kill(worker)
    wait_for(lambda: not writer_lock_held(), message="the killed worker's transaction to end")
    assert rated_count() == BATCH  # batch 1 committed, batch 2 rolled back whole
    worker_processes.start(**WORKER_ENV)
    rate_matches.delay()  # as beat would; the killed task's message is delivered again too
    wait_for(lambda: rated_count() == 10_000, message=worker_processes.logs())
    assert_rated_once_and_equal_to_a_recompute()


def test_two_workers_rating_at_once_give_what_one_gives(worker_processes):
    store_league(6_000)
    for _ in range(2):
        worker_processes.start(pause_at_batch=2, **WORKER_ENV)
    for _ in range(4):
        rate_matches.delay()
    # One worker waits inside its second batch: the other's tasks and a third writer in
    # this process meet the held writer lock.
    worker_processes.wait_until_paused()
    assert writer_lock_held()
    assert rate_pending_matches(batch_size=BATCH).busy
    worker_processes.resume()
    local = threading.Thread(target=lambda: rate_pending_matches(batch_size=BATCH))
    local.start()
    local.join(timeout=120)
    wait_for(lambda: rated_count() == 6_000, message=worker_processes.logs())
    wait_for(lambda: not writer_lock_held())
    assert_rated_once_and_equal_to_a_recompute()


def test_the_worker_reconnects_after_losing_its_database_connections(worker_processes):
    store_league(8_000)
    worker_processes.start(pause_at_batch=2, **WORKER_ENV)
    rate_matches.delay()
    worker_processes.wait_until_paused()
    assert terminate_connections(worker_processes.application_name) >= 1
    worker_processes.resume()
    # The task fails with the database's error and is retried; the retry connects again.
    wait_for(lambda: rated_count() == 8_000, message=worker_processes.logs())
    assert "Retry in" in worker_processes.logs()
    # New work after the outage goes on as usual.
    store_league(500, skip=8_000)
    rate_matches.delay()
    wait_for(lambda: rated_count() == 8_500, message=worker_processes.logs())
    assert_rated_once_and_equal_to_a_recompute()
