"""The integrity review queue end to end in a real browser (issue 31): an open flag is
listed first, its page shows the evidence, and "Mark cheater" takes the player out of
every ranking list, page and API, on the next request (their games stop counting once the
queued recompute has run, tests/matches/test_flags.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from matches.models import IntegrityFlag
from matches.ratings.integrity import Suspicion, SuspicionKind
from matches.services.integrity import record_suspicions
from players.models import Player
from tests.browser.conftest import SCREENSHOTS, WIDTHS
from tests.factories import RatingFactory
from tests.matches.test_character_matchups import counted_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def ring(live_server, queued_recomputes) -> dict[str, Player]:
    """Settled, ranked players; a booster who beat its feeder 6 times, flagged as a ring
    by the detectors' write path; and an older flag already dismissed."""
    booster = RatingFactory(player__name="RingBooster", value=2400.0, deviation=50.0).player
    feeder = RatingFactory(player__name="RingFeeder", value=1300.0, deviation=50.0).player
    honest = RatingFactory(player__name="HonestHero", value=2000.0, deviation=50.0).player
    games = [counted_game(booster, feeder, 1500, 1500, a_won=True) for _ in range(6)]
    record_suspicions(
        [
            Suspicion(
                kind=SuspicionKind.WIN_TRADING,
                player=honest.pk,
                character=None,
                games=14,
                wins=11,
                expected_wins=7.0,
                probability=2e-7,
            )
        ]
    )
    IntegrityFlag.objects.filter(player=honest).update(status=IntegrityFlag.Status.DISMISSED)
    record_suspicions(
        [
            Suspicion(
                kind=SuspicionKind.WIN_TRADING,
                player=booster.pk,
                character=None,
                games=6,
                wins=6,
                expected_wins=3.0,
                probability=1.6e-8,
                partners=(feeder.pk,),
                match_ids=tuple(game.pk for game in games),
            )
        ]
    )
    return {"booster": booster, "feeder": feeder, "honest": honest}


def log_in(page, url: str) -> None:
    User.objects.create_superuser("operator", "op@example.org", "a-long-password-1")
    page.goto(url + "/admin/login/")
    page.fill("#id_username", "operator")
    page.fill("#id_password", "a-long-password-1")
    page.click("input[type=submit]")
    page.wait_for_url(url + "/admin/")


def test_flag_evidence_mark_cheater_and_gone_from_every_ranking(live_server, ring, page):
    url, booster = live_server.url, ring["booster"]
    assert "RingBooster" in page.goto(url + "/").text()
    api = page.request.get(url + "/api/v1/rankings/").json()
    assert booster.pk in {row["player"]["id"] for row in api["results"]}

    log_in(page, url)
    page.goto(url + "/admin/matches/integrityflag/")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("RingBooster")  # the open flag first
    expect(rows.nth(0)).to_contain_text("Open")
    expect(rows.nth(1)).to_contain_text("Dismissed")
    SCREENSHOTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": WIDTHS["desktop"], "height": 700})
    page.screenshot(path=str(SCREENSHOTS / "integrity-queue-desktop.png"))

    rows.nth(0).locator("th a").click()
    evidence = page.locator(".integrity-evidence dd")
    expect(evidence).to_have_count(5)
    games, wins, expected, probability, partners = evidence.all_inner_texts()
    assert (games, wins, expected, probability) == ("6", "6", "3.0", "1.6e-08")
    assert "RingFeeder" in partners
    expect(page.locator(".field-evidence table tbody tr")).to_have_count(6)
    page.screenshot(path=str(SCREENSHOTS / "integrity-flag-desktop.png"), full_page=True)

    page.get_by_role("button", name="Mark cheater").click()
    page.wait_for_url(url + "/admin/matches/integrityflag/")
    expect(page.locator(".messagelist")).to_contain_text("marked cheater")
    flag = IntegrityFlag.objects.get(player=booster)
    assert (flag.status, flag.reviewed_by) == ("cheater", "operator")
    assert flag.reviewed_at is not None
    assert Player.objects.get(pk=booster.pk).cheater

    # The next request: out of the rankings, page and API; search names them a cheater.
    ranking = page.goto(url + "/").text()
    assert "RingBooster" not in ranking and "HonestHero" in ranking
    assert "RingBooster" not in page.goto(url + "/top/SO").text()
    api = page.request.get(url + "/api/v1/rankings/").json()
    assert booster.pk not in {row["player"]["id"] for row in api["results"]}
    assert booster.pk not in {
        row["player"]["id"]
        for row in page.request.get(url + "/api/v1/rankings/SO/").json()["results"]
    }
    hits = page.request.get(url + "/api/v1/players/?name=RingBooster").json()["results"]
    assert [(hit["id"], hit["cheater"]) for hit in hits] == [(booster.pk, True)]
    # The admin's pages name no favicon, so the browser's own request for one 404s.
    assert [error for error in page.errors if not error.startswith("Failed to load")] == []
