"""Search in a real browser: the header's suggestions on a page other than the calculator
(static/js/suggest-1.0.js), and a name behind a right-to-left override that never displays
as another name wherever it is shown."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from players.formatting import shown_name
from players.models import Player
from tests.browser.conftest import SCREENSHOTS, WIDTHS
from tests.factories import RatingFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IMPOSTOR = "\u202eniaM yK"  # displays as "Ky Main" where the override is left in


@pytest.fixture
def named(live_server) -> dict[str, Player]:
    """Two players named "TrapDaisy" (told apart by character, rating, platform), one
    named by an override, and a real "Ky Main"."""
    made = {
        "daisy-ps": RatingFactory(player__name="TrapDaisy", player__platform="ps", value=1700.0),
        "daisy-pc": RatingFactory(player__name="TrapDaisy", player__platform="pc", value=1400.0),
        "impostor": RatingFactory(player__name=IMPOSTOR, value=2400.0, deviation=50.0),
        "real": RatingFactory(player__name="Ky Main", value=2300.0, deviation=50.0),
    }
    return {key: rating.player for key, rating in made.items()}


def shoot(page, name: str) -> None:
    """Screenshots at both widths in both colour schemes (the viewport alone: the open
    suggestions are what is looked at)."""
    SCREENSHOTS.mkdir(exist_ok=True)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for label, width in WIDTHS.items():
            page.set_viewport_size({"width": width, "height": 700})
            page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}-{scheme}.png"))
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": WIDTHS["desktop"], "height": 900})


def test_header_suggestions_forgive_typos_and_tell_players_apart(live_server, named, page):
    page.goto(live_server.url + "/stats")
    box = page.locator("#search-name")
    box.press_sequentially("trap dasy")  # a space and a letter missing
    options = page.locator("#search-name-suggestions [role=option]")
    expect(options).to_have_count(2)
    assert options.locator(".suggestion-name").all_inner_texts() == ["TrapDaisy", "TrapDaisy"]
    details = options.all_inner_texts()
    assert "Sol 1700 ±120 · PlayStation · last seen" in details[0]
    assert "Sol 1400 ±120 · PC · last seen" in details[1]
    expect(box).to_have_attribute("aria-expanded", "true")
    shoot(page, "header-suggestions")
    box.press("ArrowDown")
    box.press("ArrowDown")
    expect(options.nth(1)).to_have_attribute("aria-selected", "true")
    box.press("Enter")
    page.wait_for_url(f"**/player/{named['daisy-pc'].id}/SO")
    assert page.errors == []


def test_escape_closes_and_plain_enter_still_searches(live_server, named, page):
    page.goto(live_server.url + "/")
    box = page.locator("#search-name")
    box.press_sequentially("ky main")
    expect(page.locator("#search-name-suggestions [role=option]")).to_have_count(2)
    box.press("Escape")
    expect(page.locator("#search-name-suggestions")).to_be_hidden()
    box.press("Enter")  # no suggestion chosen: the form's own search
    page.wait_for_url("**/player/*/SO")  # "Ky Main" is one player's very name
    assert page.url.endswith(f"/player/{named['real'].id}/SO")


def test_an_overridden_name_never_displays_as_another(live_server, named, page):
    """Chromium's own rendering of the name, read back as text, is the stored name without
    its override, wherever it is shown: it never reads "Ky Main"."""
    impostor = named["impostor"]
    shown = shown_name(IMPOSTOR)
    page.goto(f"{live_server.url}/player/{impostor.id}/SO")
    assert page.locator("h1 bdi").inner_text() == shown
    assert page.title().strip("\u2068\u2069").startswith(shown)
    page.goto(f"{live_server.url}/")
    row = page.locator(f'a[href="/player/{impostor.id}/SO"]')
    assert row.inner_text() == shown
    page.goto(f"{live_server.url}/search?name=Ky+Ma")
    names = page.locator(".result-name > a").all_inner_texts()
    assert sorted(names) == sorted([shown, "Ky Main"])
    shoot(page, "search-results")
    # The same through the header's suggestions.
    box = page.locator("#search-name")
    box.fill("")
    box.press_sequentially("kymain")
    suggested = page.locator("#search-name-suggestions .suggestion-name")
    expect(suggested).to_have_count(2)
    assert sorted(suggested.all_inner_texts()) == sorted([shown, "Ky Main"])
    assert page.errors == []
