"""Release day: a real Celery worker (in this process) pulls a simulated league served over
HTTP on 127.0.0.1 in which a character the roster lacks appears mid-feed. Its games wait,
the source goes on pulling and the other games are rated; once an operator adds the
character in the admin, every one of its games is stored once and rated."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from matches.models import IngestRun, Match, RejectedReplay
from matches.simulation.league import LeagueSimulator
from matches.sources.feed import LeagueFeed, feed_server
from matches.tasks import pull_replays
from tests.worker.conftest import games_counted_twice, http_source, rated_count, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("live_worker")]

NEW = "XX"
# A league of 60 players at a game a second whose character XX comes out 200 s in: seed 11
# plays it in 35 of its first 900 games, the first at game 205.
PLAYERS, SEED, RATE, RELEASE_SECONDS = 60, 11, 1.0, 200
START = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)


def league() -> LeagueSimulator:
    return LeagueSimulator(PLAYERS, SEED, START, rate=RATE, releases={NEW: RELEASE_SECONDS / 86400})


def with_new_character(games: list[dict]) -> set[str]:
    return {
        game["id"] for game in games if any(side["character"] == NEW for side in game["players"])
    }


class Clock:
    """The feed's time: the league has played up to `seconds` after its start."""

    def __init__(self) -> None:
        self.seconds = 0

    def __call__(self) -> datetime:
        return START + timedelta(seconds=self.seconds)


@pytest.fixture
def feed_clock() -> Iterator[tuple[str, Clock]]:
    clock = Clock()
    server = feed_server(LeagueFeed(league(), clock=clock), 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", clock
    finally:
        server.shutdown()
        server.server_close()


def pull_until(seconds: int, clock: Clock) -> IngestRun:
    """Let the league play on, pull once, and wait for that run and its rating."""
    clock.seconds = seconds
    runs = IngestRun.objects.count()
    pull_replays.delay()
    wait_for(
        lambda: IngestRun.objects.filter(finished_at__isnull=False).count() > runs,
        message="the pull",
    )
    run = IngestRun.objects.order_by("-started_at").first()
    wait_for(lambda: rated_count() == Match.objects.count(), message="the stored games rated")
    return run


def waiting() -> int:
    return RejectedReplay.objects.filter(waiting_for=NEW, ingested_at__isnull=True).count()


def test_a_new_characters_games_wait_and_are_rated_once_it_is_added(feed_clock, admin_client):
    url, clock = feed_clock
    source = http_source(url, page_size=100)
    every_game = list(league().games(900))
    expected = with_new_character(every_game)

    first = pull_until(400, clock)
    waiting_first = waiting()
    assert first.error == "" and first.fetched == 401
    assert waiting_first == len(with_new_character(every_game[:401])) > 0
    assert first.new == 401 - waiting_first  # every other game stored, and rated (pull_until)
    page = admin_client.get("/admin/matches/replaysource/operations/").content.decode()
    assert f"<strong>{waiting_first}</strong> replays wait for character <code>{NEW}</code>" in page
    assert f"/admin/players/character/add/?code={NEW}" in page

    second = pull_until(600, clock)  # the source never stopped
    assert second.error == "" and second.fetched == 200
    assert waiting() == len(with_new_character(every_game[:601])) > waiting_first
    source.refresh_from_db()
    assert source.cursor == "601"

    form = admin_client.get(f"/admin/players/character/add/?code={NEW}").content.decode()
    assert f'value="{NEW}"' in form  # the operations page's link fills the code
    added = admin_client.post(
        "/admin/players/character/add/",
        {"code": NEW, "name": "Newcomer", "display_order": 27, "release_date": "", "_save": "1"},
    )
    assert added.status_code == 302, added.content.decode()[-2000:]
    wait_for(lambda: waiting() == 0, message="the waiting replays stored")
    wait_for(lambda: rated_count() == Match.objects.count() == 601, message="them rated")

    third = pull_until(899, clock)  # from now on the feed's new games are stored at once
    assert third.error == "" and third.new == third.fetched == 299
    stored = set(
        Match.objects.filter(source=source)
        .filter(character_a__code=NEW)
        .values_list("source_replay_id", flat=True)
        .union(
            Match.objects.filter(source=source, character_b__code=NEW).values_list(
                "source_replay_id", flat=True
            )
        )
    )
    assert stored == expected
    assert Match.objects.count() == 900 and not Match.objects.pending().exists()
    assert games_counted_twice() == 0
