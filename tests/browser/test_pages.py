"""The site in a real browser: search, profile (with its good matches), history pages,
matchups, calculator, the rating systems lab.

Screenshots of every page at desktop and phone widths go to tests/browser/screenshots/
for review (ignored by git).
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from matches.selectors.calculator import Contender, win_forecast
from matches.selectors.opponents import fair_opponents
from matches.services.evaluation import refresh_lab
from players.formatting import shown_name
from players.models import Rating
from tests.browser.conftest import SCREENSHOTS, WIDTHS
from tests.factories import replay
from tests.fixtures.league import END, SeededLeague, seed_league

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCRIPT_NAME = "<script>alert(1)</script>"
RTL_NAME = "\u202eevil\u202c name"


@pytest.fixture
def seeded(live_server) -> SeededLeague:
    hostile = [
        replay(
            i, "900000000000000001", "900000000000000002",
            winner=1 + i % 2, names=(SCRIPT_NAME, RTL_NAME), played_at=END + timedelta(minutes=i),
        )
        for i in range(1, 4)
    ]  # fmt: skip
    return seed_league(players=60, games=3000, extra=hostile)


def shoot(page, name: str) -> None:
    """Full-page screenshots at both widths, back at the desktop width afterwards."""
    SCREENSHOTS.mkdir(exist_ok=True)
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size({"width": WIDTHS["desktop"], "height": 900})


def shoot_element(page, selector: str, name: str) -> None:
    """Screenshots of one part of the page at both widths."""
    SCREENSHOTS.mkdir(exist_ok=True)
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.locator(selector).screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"))
    page.set_viewport_size({"width": WIDTHS["desktop"], "height": 900})


def test_search_profile_history_matchups_calculator(live_server, seeded, page, settings):
    settings.FAIR_OPPONENT_DAYS = 3650  # the simulated league played weeks ago
    busiest = max(Rating.objects.select_related("player", "character"), key=lambda r: r.games)
    name = busiest.player.name
    page.goto(live_server.url + "/")
    shoot(page, "top")

    page.get_by_label("Player name").fill(name[1:-1])
    page.get_by_role("button", name="Search").click()
    page.wait_for_url(re.compile(r"/search\?name="))
    shoot(page, "search")
    page.get_by_role("link", name=name, exact=True).first.click()
    page.wait_for_url(re.compile(rf"/player/{busiest.player_id}/[A-Z]{{2}}$"))
    assert name in page.locator("h1").inner_text()
    opponents = page.locator("section.opponents")
    assert opponents.get_by_role("heading").inner_text() == "Good matches for you"
    expected = fair_opponents(busiest.player_id, busiest.character_id)
    rows = opponents.locator("tbody tr")
    assert rows.count() == len(expected) == 10
    first = rows.first.inner_text()
    assert expected[0]["name"] in first and f"{100 * expected[0]['win_probability']:.0f}%" in first
    assert page.locator(".card .big .tier").is_visible()
    shoot(page, "profile")
    shoot_element(page, "section.opponents", "profile-opponents")
    page.emulate_media(color_scheme="dark")
    shoot(page, "profile-dark")
    page.emulate_media(color_scheme="light")

    page.goto(f"{live_server.url}/player/{busiest.player_id}/{busiest.character.code}")
    first_set = page.locator("table.sets tbody tr").first.inner_text()
    page.get_by_role("link", name="Older games →").click()
    page.wait_for_url(re.compile(r"before="))
    assert page.locator("table.sets tbody tr").first.inner_text() != first_set
    shoot(page, "profile-older")
    page.get_by_role("link", name="← Newer games").click()
    page.wait_for_url(re.compile(r"after="))
    assert page.locator("table.sets tbody tr").first.inner_text() == first_set
    page.get_by_role("link", name="Older games →").click()
    page.wait_for_url(re.compile(r"before="))
    page.get_by_role("link", name="Newest games").click()
    page.wait_for_url(re.compile(r"range=30d#"))
    assert page.locator("table.sets tbody tr").first.inner_text() == first_set
    page.get_by_role("link", name="All", exact=True).click()
    assert page.locator("svg#rating-history polyline").count() == 1

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Matchups").click()
    page.wait_for_url(re.compile(r"/matchups$"))
    heading = page.locator("table.matrix thead th").nth(2)
    heading.locator("button").click()
    assert heading.get_attribute("aria-sort") == "descending"
    values = [
        float(cell.get_attribute("data-sort"))
        for cell in page.locator("table.matrix tbody tr td:nth-child(3)").all()
    ]
    assert values == sorted(values, reverse=True)
    shoot(page, "matchups")

    page.goto(f"{live_server.url}/player/{busiest.player_id}/{busiest.character.code}")
    page.get_by_role("link", name="Compare with…").click()
    page.wait_for_url(re.compile(r"/calculator\?a-player="))
    assert page.locator("#id_a-name").input_value() == name
    page.locator("#id_b-rating").fill("1700")
    page.locator("#id_b-uncertainty").fill("160")
    page.get_by_role("button", name="Calculate").click()
    expected = win_forecast(Contender.of(busiest), Contender(1700, 80))
    result = page.locator(".forecast tbody tr").first.inner_text()
    assert f"{100 * expected.a.win_probability:.1f}%" in result
    shoot(page, "calculator")

    for path, shot in (("/stats", "stats"), ("/about", "about")):
        page.goto(live_server.url + path)
        shoot(page, shot)

    page.get_by_role("link", name="rating systems lab").click()
    page.wait_for_url(re.compile(r"/lab$"))
    assert "No evaluation yet." in page.locator("main").inner_text()
    shoot(page, "lab-empty")
    refresh_lab()  # bumps the generation: the cached page gives way
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Lab").click()
    page.wait_for_url(re.compile(r"/lab$"))
    assert page.locator("article.lab-system").count() == 5
    assert "Moonstone has no probability model" in page.locator("main").inner_text()
    assert page.locator("svg#calibration-overall polyline").count() == 5
    assert page.locator("svg#calibration-overall .chart-diagonal").is_visible()
    page.locator("article.lab-system details summary").first.click()
    assert page.locator("article.lab-system table.lab-bins").first.is_visible()
    shoot(page, "lab")
    page.emulate_media(color_scheme="dark")
    shoot(page, "lab-dark")
    page.emulate_media(color_scheme="light")
    page.goto(f"{live_server.url}/search?name=alert")
    assert SCRIPT_NAME in page.locator("main").inner_text()
    page.get_by_role("link", name=SCRIPT_NAME).click()
    assert page.locator("h1 bdi").inner_text() == SCRIPT_NAME
    shoot(page, "profile-hostile-name")
    page.goto(f"{live_server.url}/search?name=evil")
    # Shown without its override, the name reads in its stored order.
    assert page.locator(".result-name bdi").first.inner_text() == shown_name(RTL_NAME)
    assert page.errors == []

    response = page.goto(f"{live_server.url}/player/1")  # a well-formed id nobody has
    assert response.status == 404
    assert "know no rated player" in page.locator("main").inner_text()
    shoot(page, "404")
