"""The signature features on a phone, in both colour schemes: no page wider than the
screen (at the desktop width too), a history row that keeps both ratings, a matchup
cell's details on a tap and on Enter, and matrix headings that stay in view."""

from __future__ import annotations

import pytest

from players.models import Player
from tests.browser.conftest import WIDTHS, seeded_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCHEMES = ("light", "dark")
LONG_NAME = "Supporter" + "X" * 55  # 64 characters without a space

WIDER_THAN_THE_SCREEN = "document.documentElement.scrollWidth - window.innerWidth"


@pytest.fixture
def site(live_server):
    rating = seeded_site(players=60, games=1500)
    supporter = Player.objects.exclude(pk=rating.player_id).first()
    supporter.name, supporter.supporter = LONG_NAME, True
    supporter.save(update_fields=["name", "supporter"])
    return rating


def context_for(browser, width: int, scheme: str):
    return browser.new_context(
        viewport={"width": width, "height": 740}, color_scheme=scheme, has_touch=True
    )


def test_no_page_is_wider_than_the_screen(live_server, site, browser):
    profile = f"/player/{site.player_id}/{site.character.code}"
    paths = [
        "/",
        f"/top/{site.character.code}",
        profile,
        f"{profile}?range=all",
        "/matchups",
        "/matchups?bracket=top100",
        "/matchups?bracket=proportional",
        f"/matchups?character={site.character.code}",
        "/calculator",
        "/stats",
        "/recent",
        "/about",
        "/lab",
        "/supporters",
    ]
    for scheme in SCHEMES:
        for width in WIDTHS.values():
            context = context_for(browser, width, scheme)
            page = context.new_page()
            for path in paths:
                page.goto(live_server.url + path)
                assert page.evaluate(WIDER_THAN_THE_SCREEN) == 0, (scheme, width, path)
            page.goto(live_server.url + "/supporters")
            assert page.get_by_text(LONG_NAME).is_visible()
            context.close()


def test_a_history_row_keeps_both_ratings_on_a_phone(live_server, site, browser):
    for scheme in SCHEMES:
        context = context_for(browser, WIDTHS["phone"], scheme)
        page = context.new_page()
        page.goto(f"{live_server.url}/player/{site.player_id}/{site.character.code}")
        for row in page.locator("table.sets tbody tr").all()[:6]:
            cells = row.locator("td")
            # When, [game], your rating, their rating, chance, result, change: all in view.
            ratings = row.locator("td.rating").all()
            assert len(ratings) == 2
            for cell in [*ratings, cells.last, cells.nth(cells.count() - 2)]:
                box = cell.bounding_box()
                assert box and box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= 360
            assert all("±" in cell.inner_text() for cell in ratings)
            assert "%" in cells.nth(cells.count() - 3).inner_text()
        context.close()


def test_a_matchup_cell_opens_on_a_tap_and_on_enter(live_server, site, browser):
    for scheme in SCHEMES:
        context = context_for(browser, WIDTHS["phone"], scheme)
        page = context.new_page()
        page.goto(live_server.url + "/matchups")
        details = page.locator("#cell-details")
        assert details.is_hidden()
        # One stop in the tab order for the whole matrix.
        assert page.locator("table.matrix button.cell[tabindex='0']").count() == 1
        cell = page.locator("table.matrix tbody tr").nth(1).locator("button.cell").nth(2)
        cell.tap()
        assert details.is_visible()
        title = cell.locator("xpath=..").get_attribute("title")
        assert details.inner_text().startswith(title.split("\n")[0])
        assert "games" in title or "mirror" in title or "no games" in title
        page.locator(".cell-details-close").tap()
        assert details.is_hidden()

        page.reload()  # the tap moved the matrix's one tab stop to its cell
        first = page.locator("table.matrix button.cell[tabindex='0']")
        assert first.locator("xpath=..").get_attribute("title") == page.locator(
            "table.matrix tbody tr"
        ).first.locator("td").nth(1).get_attribute("title")
        first.focus()
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowRight")
        focused = page.locator("table.matrix button.cell:focus")
        expected = page.locator("table.matrix tbody tr").nth(1).locator("td").nth(2)
        assert focused.locator("xpath=..").get_attribute("title") == expected.get_attribute("title")
        page.keyboard.press("Enter")
        assert details.is_visible()
        shown = details.locator(".cell-details-text").inner_text()
        assert shown.splitlines() == expected.get_attribute("title").splitlines()
        page.keyboard.press("Escape")
        assert details.is_hidden()
        assert page.evaluate("document.activeElement.parentNode.title") == expected.get_attribute(
            "title"
        )
        context.close()


STICKY = """() => {
  const box = document.querySelector('.matrix-wrap');
  box.scrollIntoView({block: 'start'});
  box.scrollTop = 300; box.scrollLeft = 400;
  const frame = box.getBoundingClientRect();
  const corner = document.querySelector('table.matrix thead th.corner').getBoundingClientRect();
  const column = [...document.querySelectorAll('table.matrix thead th:not(.corner)')]
    .map(th => th.getBoundingClientRect()).find(r => r.left > corner.right + 40);
  const row = [...document.querySelectorAll('table.matrix tbody th')]
    .map(th => th.getBoundingClientRect()).find(r => r.top > frame.top + 60);
  // What is drawn just inside the row name's left and right edges and under the headings.
  const at = (x, y) => document.elementFromPoint(x, y).closest('th, td');
  if (!column) return 'every column heading scrolled away';
  return {
    columnTop: column.top - frame.top, rowLeft: row.left - frame.left,
    leftEdge: at(row.left + 1, row.top + row.height / 2).tagName,
    rightEdge: at(row.right - 2, row.top + row.height / 2).tagName,
    underHeading: at(column.left + column.width / 2, column.top + 2).tagName,
  };
}"""


def test_the_matrix_headings_stay_in_view(live_server, site, browser):
    for scheme in SCHEMES:
        for width in WIDTHS.values():
            context = context_for(browser, width, scheme)
            page = context.new_page()
            page.goto(live_server.url + "/matchups")
            sticky = page.evaluate(STICKY)
            assert sticky == {
                "columnTop": pytest.approx(0, abs=1.5),
                "rowLeft": pytest.approx(0, abs=1.5),
                "leftEdge": "TH",
                "rightEdge": "TH",
                "underHeading": "TH",
            }, (scheme, width)
            context.close()
