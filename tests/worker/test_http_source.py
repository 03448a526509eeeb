"""The `http` source against a feed on 127.0.0.1 that fails in every way issue 3 lists."""

from __future__ import annotations

import pytest

from matches.models import IngestRun, Match, RejectedReplay, ReplaySource
from matches.services import ingest
from matches.services.sources import pull_source
from matches.sources.http import HttpSettings, backoff_delay, page_url
from tests.factories import replay
from tests.worker.conftest import http_source

pytestmark = pytest.mark.django_db

A, B = "100000000000000001", "100000000000000002"


def games(count: int, start: int = 1) -> list[dict]:
    return [replay(n) for n in range(start, start + count)]


def stored_ids() -> set[str]:
    return set(Match.objects.values_list("source_replay_id", flat=True))


def test_follows_pages_until_drained_and_saves_the_cursor(fake_feed):
    feed = fake_feed(games(7))
    source = http_source(feed.url)
    run = pull_source(source)
    assert (run.fetched, run.new, run.duplicate, run.rejected, run.error) == (7, 7, 0, 0, "")
    assert feed.requests == ["", "3", "6", "7"]
    source.refresh_from_db()
    assert source.cursor == "7"
    feed.replays += games(2, start=8)
    run = pull_source(source)
    assert (run.fetched, run.new) == (2, 2)
    assert feed.requests[4:] == ["7", "9"]


def test_a_run_stops_at_its_cap_and_the_next_run_goes_on(fake_feed):
    feed = fake_feed(games(10))
    source = http_source(feed.url, max_replays=5)
    assert pull_source(source).fetched == 6  # the page that reaches the cap is finished
    assert pull_source(source).fetched == 4
    assert len(stored_ids()) == 10


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        ("500", "HTTP 500"),
        ("hang", "timed out"),
        ("close", "RemoteDisconnected"),
        ("invalid_json", "invalid JSON"),
        ("truncated", "truncated page"),
        ("not_a_page", "not a feed page"),
    ],
)
def test_a_failing_page_is_recorded_and_the_next_run_goes_on(fake_feed, fault, error):
    feed = fake_feed(games(8))
    source = http_source(feed.url)
    feed.fail("3", fault, times=2)  # every attempt of one run at the second page
    run = pull_source(source)
    assert error in run.error and "gave up after 2 attempts" in run.error
    assert (run.fetched, run.new) == (3, 3)  # the first page is kept
    assert feed.requests == ["", "3", "3"]
    source.refresh_from_db()
    assert source.cursor == "3"  # not past the page that was not stored
    run = pull_source(source)
    assert (run.error, run.fetched, run.new) == ("", 5, 5)
    assert stored_ids() == {f"r-{n:06d}" for n in range(1, 9)}
    assert IngestRun.objects.filter(source=source).count() == 2


def test_a_transient_fault_is_retried_within_the_run(fake_feed):
    feed = fake_feed(games(4))
    source = http_source(feed.url)
    feed.fail("", "500")
    feed.fail("3", "close")
    run = pull_source(source)
    assert (run.error, run.new) == ("", 4)
    assert feed.requests == ["", "", "3", "3", "4"]


def test_client_errors_are_not_retried(fake_feed):
    feed = fake_feed(games(2))
    source = http_source(feed.url, attempts=5)
    feed.fail("", "404")
    run = pull_source(source)
    assert "HTTP 404" in run.error and "gave up" not in run.error
    assert feed.requests == [""]
    assert pull_source(source).new == 2


def test_a_page_with_some_invalid_replays_keeps_the_valid_ones(fake_feed):
    page = [
        replay(1),
        replay(2, characters=("SO", "XX")),  # unknown character
        replay(3, A, A),  # a player against themself
        "not an object",
        replay(4, winner=3),
        replay(5),
    ]
    feed = fake_feed(page)
    source = http_source(feed.url, page_size=10)
    run = pull_source(source)
    assert (run.fetched, run.new, run.rejected, run.error) == (6, 2, 4, "")
    assert stored_ids() == {"r-000001", "r-000005"}
    reasons = list(RejectedReplay.objects.filter(run=run).values_list("reason", flat=True))
    assert len(reasons) == 4 and any("character" in reason for reason in reasons)
    source.refresh_from_db()
    assert source.cursor == "6"  # the rejected replays are kept in RejectedReplay, not re-read


def test_the_same_replay_many_times_is_stored_once(fake_feed):
    same = replay(1)
    swapped = replay(2, B, A, winner=2)  # game 2 reported with the sides the other way round
    page = [same, same, replay(2), same, swapped, replay(3), same]
    feed = fake_feed(page)
    source = http_source(feed.url)  # pages of 3: duplicates within and across pages
    run = pull_source(source)
    assert (run.fetched, run.new, run.duplicate) == (7, 3, 4)
    # Across sources: another feed delivering the same games under other ids.
    other = fake_feed([{**game, "id": f"other-{game['id']}"} for game in page])
    run = pull_source(http_source(other.url, name="mirror"))
    assert (run.fetched, run.new, run.duplicate) == (7, 0, 7)
    assert Match.objects.count() == 3


def test_a_page_that_fails_to_store_leaves_the_cursor_before_it(fake_feed, monkeypatch):
    feed = fake_feed(games(6))
    source = http_source(feed.url)
    calls = []

    def failing_store(**kwargs):
        calls.append(1)
        result = ingest.store_replays(**kwargs)
        if len(calls) == 2:
            raise RuntimeError("the database went away mid-page")
        return result

    monkeypatch.setattr("matches.sources.base.store_replays", failing_store)
    with pytest.raises(RuntimeError):
        pull_source(source)
    source.refresh_from_db()
    assert source.cursor == "3"
    assert stored_ids() == {f"r-{n:06d}" for n in range(1, 4)}  # the second page rolled back
    run = IngestRun.objects.get()
    assert "went away" in run.error and run.finished_at is not None
    monkeypatch.undo()
    assert pull_source(source).new == 3


def test_invalid_settings_are_recorded_on_the_run():
    source = ReplaySource.objects.create(name="bad", kind="http", settings={"url": "ftp://x"})
    run = pull_source(source)
    assert run.error.startswith("invalid settings") and run.fetched == 0


def test_page_url_and_backoff():
    assert page_url("http://h:1/f?key=k&after=9", "5", 10) == "http://h:1/f?key=k&after=5&limit=10"
    settings = HttpSettings(url="http://h/", backoff=1.0, max_backoff=4.0)
    for attempt, ceiling in ((0, 1.0), (1, 2.0), (2, 4.0), (6, 4.0)):
        delays = {backoff_delay(settings, attempt) for _ in range(20)}
        assert all(ceiling / 2 <= delay <= ceiling for delay in delays)
        assert len(delays) > 1  # jitter
