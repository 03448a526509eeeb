"""Issue 32 end to end: a browser claims a profile, the real worker pulls the game with the
code in the name from a feed on 127.0.0.1, the key shows in that browser; private, the
player is nowhere (a crawler over pages, API and export) while every rating stays as it
was; public again, they are back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from matches.models import Match
from matches.tasks import pull_replays
from players.models import Ownership, Player, Rating
from tests.factories import replay
from tests.players.test_private_profiles import crawl, export_text
from tests.worker.conftest import broker, fake_feed, http_source, live_worker, wait_for  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("live_worker")]

A, B, C = "100000000000000001", "100000000000000002", "100000000000000003"


def league() -> list[dict]:
    """Forty games among three players, the last an hour ago."""
    start = timezone.now() - timedelta(hours=2)
    pairs = [(A, B), (A, C), (B, C)]
    return [
        replay(
            n, *pairs[n % 3], winner=1 + n % 2, names=None, played_at=start + timedelta(minutes=n)
        )
        for n in range(40)
    ]


def all_rated(count: int) -> bool:
    return Match.objects.count() == count and not Match.objects.pending().exists()


def test_claim_private_and_public_again_through_the_worker_and_the_browser(
    live_server,
    browser,
    fake_feed,  # noqa: F811
):
    feed = fake_feed(league())
    http_source(feed.url, page_size=50)
    pull_replays.delay()
    wait_for(lambda: all_rated(40), message="the league to be rated")

    claimant = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    claimant.goto(f"{live_server.url}/player/{A}/SO")
    claimant.click("text=This is me")
    claimant.click("text=Start a claim")
    code = claimant.inner_text("#claim-code")
    assert "Waiting for a game of" in claimant.inner_text("#claim-message")

    feed.replays.append(replay(100, A, B, names=(f"Anna {code}", "Bert"), played_at=timezone.now()))
    pull_replays.delay()
    claimant.wait_for_selector("#claim-key:not([hidden])", timeout=60_000)
    key = claimant.inner_text("#claim-key-text")
    assert Ownership.objects.get(player_id=A).key_hash != key and len(key) >= 32
    wait_for(lambda: all_rated(41), message="the claiming game to be rated")

    ratings = sorted(Rating.objects.values_list("id", "value", "deviation"))
    claimant.click("text=Open your settings")
    claimant.click("text=Make it private")
    assert "Make it public again" in claimant.content()
    name = Player.objects.get(id=A).name
    read, leaks = crawl(Client(), (name, A))
    assert read > 30 and leaks == []
    assert name not in export_text() and A not in export_text()
    stranger = browser.new_context(viewport={"width": 360, "height": 800}).new_page()
    stranger.goto(f"{live_server.url}/player/{B}/KY")  # B played A on KY
    assert "a private player" in stranger.content() and name not in stranger.content()
    assert sorted(Rating.objects.values_list("id", "value", "deviation")) == ratings

    claimant.click("text=Make it public again")
    answer = stranger.goto(f"{live_server.url}/player/{A}/SO")
    assert answer.status == 200 and name in stranger.content()
    stranger.goto(f"{live_server.url}/player/{B}/KY")  # B played A on KY
    assert "a private player" not in stranger.content()
    assert sorted(Rating.objects.values_list("id", "value", "deviation")) == ratings
