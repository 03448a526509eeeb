"""A real Celery worker (in this process) pulls a feed on 127.0.0.1 and rates what it stores."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import IngestRun, Match
from matches.simulation.league import LeagueSimulator
from matches.sources.feed import LeagueFeed, feed_server
from matches.tasks import pull_replays
from players.models import Rating
from tests.factories import BASE_TIME, replay
from tests.worker.conftest import games_counted_twice, http_source, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("live_worker")]

A, B, C = "100000000000000001", "100000000000000002", "100000000000000003"


def all_rated(count: int) -> bool:
    return Match.objects.count() == count and not Match.objects.pending().exists()


def test_a_pull_that_stores_games_has_them_rated():
    league_start = (timezone.now() - timedelta(seconds=120)).replace(microsecond=0)
    feed = LeagueFeed(LeagueSimulator(40, 3, league_start, rate=2.0))
    server = feed_server(feed, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        http_source(f"http://127.0.0.1:{server.server_address[1]}/", page_size=100)
        pull_replays.delay()
        run = wait_for(lambda: IngestRun.objects.filter(finished_at__isnull=False).first())
        # Two games a second since the league started, up to when the pull read the feed
        # (on a busy machine some seconds after the 120 the league had when it began).
        played = 2.0 * (run.finished_at - league_start).total_seconds()
        assert run.error == "" and 240 <= run.new <= played + 4
        wait_for(lambda: all_rated(run.new), message="the pulled games to be rated")
    finally:
        server.shutdown()
        server.server_close()
    assert games_counted_twice() == 0


def test_games_that_arrive_late_are_stored_and_rated(fake_feed):
    newer = [replay(n, A, B) for n in range(50, 60)]
    older = [replay(n, A, C, winner=2) for n in range(1, 5)] + [replay(5, A, B, winner=2)]
    feed = fake_feed(newer)
    source = http_source(feed.url, page_size=4)
    pull_replays.delay()
    wait_for(lambda: all_rated(10), message="the newer games to be rated")
    before = Rating.objects.get(player_id=A, character__code="SO")
    feed.replays += older
    pull_replays.delay()
    wait_for(lambda: all_rated(15), message="the late games to be rated")
    assert games_counted_twice() == 0
    first_late = Match.objects.get(source=source, source_replay_id="r-000001").rating
    # Rated against A's rating as it was when the game arrived; no decay runs backwards.
    assert (first_late.value_a, first_late.deviation_a) == (before.value, before.deviation)
    assert Match.objects.filter(played_at__lt=BASE_TIME + timedelta(minutes=6)).count() == 5
