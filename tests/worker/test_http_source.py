"""The `http` source against a feed on 127.0.0.1 that fails in every way issue 3 lists."""

from __future__ import annotations

import json

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.models import IngestRun, Match, RejectedReplay, ReplaySource
from matches.services import ingest
from matches.sources import http
from matches.sources.feed_pages import FeedError, parse_page
from matches.sources.http import HttpSettings, backoff_delay, page_url
from matches.sources.pulling import pull_enabled_sources, pull_source
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


def page_body(*replays: bytes, next_cursor: str = "null") -> bytes:
    """A feed page written by hand, so that single replays can be broken."""
    return b'{"replays": [' + b", ".join(replays) + b'], "next": ' + next_cursor.encode() + b"}"


def encoded(replay_object: dict) -> bytes:
    return json.dumps(replay_object).encode()


@pytest.mark.parametrize("drip_seconds", [0.05, 0.002], ids=["in-the-headers", "in-the-body"])
def test_a_feed_that_drips_its_answer_fails_at_the_page_deadline(fake_feed, drip_seconds):
    feed = fake_feed(games(6))
    feed.drip_seconds = drip_seconds  # a byte every interval: the read timeout never trips
    source = http_source(feed.url, read_timeout=5.0, page_timeout=0.5)
    feed.fail("3", "drip", times=2)
    run = pull_source(source)
    assert "page took longer than 0.5 s (gave up after 2 attempts)" in run.error
    assert (run.fetched, run.new) == (3, 3)
    source.refresh_from_db()
    assert source.cursor == "3"
    assert pull_source(source).new == 3


def test_a_slow_source_stops_at_max_seconds_and_the_sources_after_it_are_pulled(fake_feed):
    slow, other = fake_feed(games(6)), fake_feed(games(2, start=7))
    source = http_source(slow.url, attempts=4, read_timeout=30.0, page_timeout=30.0)
    source.settings["max_seconds"] = 1.0
    source.save()
    http_source(other.url, name="other")
    slow.fail("3", "hang", times=4)  # four attempts of 30 s each without the run's deadline
    first, second = pull_enabled_sources()
    assert "took longer than max_seconds (1 s)" in first.error and first.new == 3
    assert (second.error, second.new) == ("", 2)
    source.refresh_from_db()
    assert source.cursor == "3"


def test_empty_pages_that_name_a_next_cursor_are_followed(fake_feed):
    feed = fake_feed([*games(3), *[None] * 6, *games(2, start=4)])  # a gap of two pages
    source = http_source(feed.url)
    run = pull_source(source)
    assert (run.error, run.fetched, run.new) == ("", 5, 5)
    assert feed.requests == ["", "3", "6", "9", "11"]
    source.refresh_from_db()
    assert source.cursor == "11"


def test_a_run_follows_a_bounded_number_of_empty_pages(fake_feed, monkeypatch):
    monkeypatch.setattr(http, "MAX_EMPTY_PAGES", 2)
    feed = fake_feed([*[None] * 9, *games(1)])
    source = http_source(feed.url)
    run = pull_source(source)
    assert run.error == "stopped after 2 empty pages in a row, at cursor '6'"
    source.refresh_from_db()
    assert source.cursor == "6"  # the next run goes on from there
    feed.answer("9", b'{"replays": [], "next": "9"}')  # a next that does not move: drained
    run = pull_source(source)
    assert (run.error, run.new, feed.requests[-2:]) == ("", 0, ["6", "9"])
    assert (pull_source(source).new, stored_ids()) == (1, {"r-000001"})


def test_a_replay_that_cannot_be_decoded_costs_only_itself(fake_feed):
    feed = fake_feed(games(8))
    deep = b"[" * 100_000 + b"]" * 100_000
    broken = [
        b'{"id": "deep", "floor": ' + deep + b"}",
        encoded(replay(2)).replace(b"name-0001", b"\\ud800"),  # a lone surrogate
        encoded(replay(3)).replace(b"name-0001", b"\xff\xfe"),  # not UTF-8
        b'{"id": "r-000004", "floor": NaN}',
    ]
    feed.answer("", page_body(encoded(replay(1)), *broken, encoded(replay(5)), next_cursor='"5"'))
    source = http_source(feed.url, page_size=5)
    run = pull_source(source)
    assert (run.error, run.fetched, run.new, run.rejected) == ("", 9, 5, 4)
    assert stored_ids() == {f"r-{n:06d}" for n in (1, 5, 6, 7, 8)}
    rejected = RejectedReplay.objects.filter(run=run)
    assert all(
        reason.startswith("invalid JSON") for reason in rejected.values_list("reason", flat=True)
    )
    assert {raw[:15] for raw in rejected.values_list("raw", flat=True)} == {
        '{"id": "deep", ',
        '{"id": "r-00000',
    }
    source.refresh_from_db()
    assert source.cursor == "8"


@pytest.mark.parametrize(
    "body",
    [b"[" * 100_000, b'{"replays": [' + b"[" * 100_000, b"<html>Bad gateway</html>"],
    ids=["nested", "nested-in-replays", "html"],
)
def test_a_page_that_cannot_be_read_is_retried_then_recorded(fake_feed, body):
    feed = fake_feed(games(2))
    source = http_source(feed.url)
    feed.answer("", body, times=2)
    run = pull_source(source)
    assert run.error.startswith("page after '': invalid JSON") and "gave up after 2" in run.error
    assert feed.requests == ["", ""]
    assert pull_source(source).new == 2


@pytest.mark.parametrize(
    ("next_cursor", "error"),
    [
        ('"3\\u0000"', "holds characters that cannot be stored"),
        ('"3\\n"', "holds characters that cannot be stored"),
        ('"\\ud800"', "invalid next cursor"),
        (f'"{"9" * 256}"', "next cursor longer than 255 characters"),
        ("[3]", "invalid next cursor: a list"),
    ],
    ids=["nul", "control", "lone-surrogate", "too-long", "not-a-string"],
)
def test_a_next_cursor_that_cannot_be_stored_ends_the_run(fake_feed, next_cursor, error):
    feed = fake_feed(games(3))
    feed.answer("", page_body(encoded(replay(1)), next_cursor=next_cursor))
    source = http_source(feed.url)
    run = pull_source(source)
    assert error in run.error and (run.fetched, run.new) == (0, 0)
    assert feed.requests == [""]  # not retried: the feed would send the same again
    source.refresh_from_db()
    assert source.cursor == ""


def test_the_task_time_limit_stops_the_pull_of_every_source_and_is_recorded(fake_feed, monkeypatch):
    feed = fake_feed(games(6))
    source = http_source(feed.url)
    other = http_source(feed.url, name="other")
    fetch_page = http.fetch_page

    def fetch_then_stop(settings, after, deadline):
        if after:
            raise SoftTimeLimitExceeded()  # what the worker raises in a task past its limit
        return fetch_page(settings, after, deadline)

    monkeypatch.setattr(http, "fetch_page", fetch_then_stop)
    with pytest.raises(SoftTimeLimitExceeded):
        pull_enabled_sources()
    run = IngestRun.objects.get()
    assert (run.source, run.new) == (source, 3)
    assert run.error == "stopped: the pull task reached its time limit"
    assert run.finished_at is not None
    source.refresh_from_db()
    assert source.cursor == "3"  # the stored page moved the cursor with it
    assert not IngestRun.objects.filter(source=other).exists()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(json_values, max_size=4), st.binary(max_size=12), st.integers(min_value=0))
def test_any_page_is_read_replay_by_replay_or_refused_with_a_feed_error(items, junk, where):
    body = json.dumps({"replays": items, "next": "4"}).encode()
    expected = [item if isinstance(item, dict) else None for item in items]
    assert [replay.payload for replay in parse_page(body).replays] == expected
    where %= len(body) + 1
    try:
        page = parse_page(body[:where] + junk + body[where:])
    except FeedError:
        return
    assert [replay.line for replay in page.replays] == list(range(1, len(page.replays) + 1))
    assert all((replay.payload is None) != (replay.error is None) for replay in page.replays)
