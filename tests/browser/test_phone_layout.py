"""Every page at a phone's 360 px: nothing scrolls sideways, the tables keep their main
column in view, the rankings start on the first screen, and chart labels stay no larger
than body text (at the desktop width too)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from matches.models import Match, Season, SeasonStanding
from matches.services.seasons import refresh_seasons
from tests.browser.conftest import WIDTHS, seeded_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": WIDTHS["phone"], "height": 740}
# Tables wider than a phone by nature scroll inside their box: the matchup matrix and the
# popularity per rating bracket (their first column held in place), and the lab's
# calibration bins (a pair of columns per scope, folded away by default).
SCROLLING_TABLES = "table.matrix, table.popularity, table.lab-bins"

OVERFLOW = """() => ({
  page: document.documentElement.scrollWidth - window.innerWidth,
  boxes: [...document.querySelectorAll('.scroll')]
    .filter(box => !box.querySelector('SCROLLING') && box.scrollWidth > box.clientWidth)
    .map(box => box.querySelector('table').className || box.innerText.slice(0, 40)),
})""".replace("SCROLLING", SCROLLING_TABLES)

# The size a chart label takes on screen: its font size times the SVG's scale.
LABEL_SIZES = """() => [...document.querySelectorAll('svg.chart .chart-label')].map(label =>
  parseFloat(getComputedStyle(label).fontSize) * label.ownerSVGElement.getScreenCTM().a)"""


ONE_WORD_NAMES_ON_SEVERAL_LINES = """() => [...document.querySelectorAll('table.ranking bdi')]
  .filter(name => !/\\s/.test(name.textContent) && name.textContent.length <= 16)
  .filter(name => name.getClientRects().length > 1)
  .map(name => name.textContent)"""


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=PHONE)
    yield context.new_page()
    context.close()


def test_every_page_fits_a_phone(live_server, phone, browser):
    rating = seeded_site(players=60, games=1500)
    first_game = Match.objects.order_by("played_at").first().played_at
    season = Season.objects.create(
        name="now", start=first_game.date(), end=first_game.date() + timedelta(days=400)
    )
    refresh_seasons(timezone.now())
    assert SeasonStanding.objects.filter(season=season).exists()
    profile = f"/player/{rating.player_id}/{rating.character.code}"
    paths = [
        "/",
        "/?per=player",
        f"/top/{rating.character.code}",
        f"/search?name={rating.player.name[:3]}",
        profile,
        f"{profile}?range=7d",
        f"{profile}?range=all",
        "/matchups",
        "/calculator",
        "/calculator?a-rating=1700&a-uncertainty=160&b-rating=1500&b-uncertainty=100",
        "/stats",
        "/recent",
        "/seasons/",
        "/seasons/now",
        f"/seasons/now?character={rating.character.code}",
        "/about",
        "/lab",
        "/supporters",
        "/admin/login/",
    ]
    body_text = 16.0
    desktop = browser.new_page(viewport={"width": WIDTHS["desktop"], "height": 900})
    for path in paths:
        phone.goto(live_server.url + path)
        overflow = phone.evaluate(OVERFLOW)
        assert overflow == {"page": 0, "boxes": []}, path
        desktop.goto(live_server.url + path)
        for page in (phone, desktop):
            sizes = page.evaluate(LABEL_SIZES)
            assert all(10 <= size <= body_text for size in sizes), (path, sizes)
    desktop.close()

    # Profiles show charts: their labels were measured above.
    phone.goto(live_server.url + profile + "?range=all")
    assert phone.locator("svg#rating-history .chart-label").count() > 0

    for path in ("/", f"/top/{rating.character.code}"):
        phone.goto(live_server.url + path)
        first_row = phone.locator("table.ranking tbody tr").first
        box = first_row.bounding_box()
        assert box["y"] + box["height"] <= PHONE["height"], path
        # Names wrap between words: a one-word name of up to 16 letters keeps to one line.
        broken = phone.evaluate(ONE_WORD_NAMES_ON_SEVERAL_LINES)
        assert broken == [], path
        rating_cell = first_row.locator("td.num").nth(1)
        cell = rating_cell.bounding_box()
        assert "±" in rating_cell.inner_text() and cell["x"] + cell["width"] <= PHONE["width"]

    # The match history keeps its change column in view.
    phone.goto(live_server.url + profile)
    change = phone.locator("table.sets tbody tr").first.locator("td").last
    box = change.bounding_box()
    assert box["width"] > 0 and box["x"] + box["width"] <= PHONE["width"]

    User.objects.create_superuser("admin", "admin@example.org", "a-long-password-1")
    phone.goto(live_server.url + "/admin/login/")
    phone.fill("#id_username", "admin")
    phone.fill("#id_password", "a-long-password-1")
    phone.click("input[type=submit]")
    phone.wait_for_url(live_server.url + "/admin/")
    assert phone.evaluate(OVERFLOW)["page"] <= 0
