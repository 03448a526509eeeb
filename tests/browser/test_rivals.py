"""The head-to-head page on a phone and a desktop: nothing scrolls sideways, and a set's
change opens on what was expected of it, on a tap and on Enter."""

from __future__ import annotations

import pytest

from matches.selectors.rivals import players_met_most
from players.models import Rating
from tests.browser.conftest import WIDTHS
from tests.browser.test_phone_layout import OVERFLOW
from tests.fixtures.league import seed_league

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_head_to_head_fits_and_opens_a_sets_expected_wins(live_server, browser, scheme):
    seed_league(players=30, games=800)
    rating = Rating.objects.select_related("character", "player").order_by("-wins").first()
    rival = players_met_most(rating)[0]
    path = f"/player/{rating.player_id}/{rating.character.code}/vs/{rival.id}"
    for width in WIDTHS.values():
        context = browser.new_context(
            viewport={"width": width, "height": 800}, color_scheme=scheme, has_touch=True
        )
        page = context.new_page()
        page.goto(live_server.url + path)
        assert page.evaluate(OVERFLOW) == {"page": 0, "boxes": []}, width
        changes = page.locator("table.sets details.why")
        assert changes.count() >= 2
        tapped, entered = changes.nth(0), changes.nth(1)
        tapped.locator("summary").tap()
        note = tapped.locator(".why-note")
        assert note.is_visible() and note.inner_text().startswith("expected ")
        box = note.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
        assert not entered.locator(".why-note").is_visible()
        entered.locator("summary").focus()
        page.keyboard.press("Enter")
        assert entered.locator(".why-note").is_visible()
        assert page.evaluate(OVERFLOW) == {"page": 0, "boxes": []}, width
        context.close()
