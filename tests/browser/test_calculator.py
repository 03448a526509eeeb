"""The calculator in a real browser: a player picked by name from the suggestions, the
result following every change, and the script's numbers (static/js/calculator-1.0.js)
equal to the server's (matches/ratings/glicko.py) to the digit shown."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from matches.selectors.calculator import Contender, win_forecast
from players.formatting import percent, rating_text, signed_text
from players.models import Rating
from tests.browser.conftest import SCREENSHOTS, WIDTHS
from tests.factories import replay
from tests.fixtures.league import rate_replays
from tests.ratings.reference import REFERENCE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

A, B, C = "200000000000000001", "200000000000000002", "200000000000000003"
OUTCOME_CELLS = ("rating", "probability", "after-win", "win-change", "after-loss", "loss-change")


@pytest.fixture
def players(live_server) -> None:
    """Mayfly (May, then Sol) and Guardian (Sol), who was "Old Guard" before."""
    rate_replays(
        [
            replay(1, A, B, characters=("MA", "SO"), names=("Mayfly", "Old Guard")),
            replay(2, A, C, characters=("MA", "KY"), names=("Mayfly", "Kestrel")),
            replay(3, A, B, characters=("SO", "SO"), names=("Mayfly", "Guardian"), winner=2),
        ]
    )


def shown(page) -> dict[str, list[str]]:
    """The result table as the reader sees it, per side."""
    return {
        side: [
            page.locator(f'[data-outcome="{side}"] [data-out="{cell}"]').inner_text()
            for cell in OUTCOME_CELLS
        ]
        for side in "ab"
    }


def rendered(forecast) -> dict[str, list[str]]:
    """The same cells as the server renders them (the templates' filters)."""
    return {
        letter: [
            rating_text(side.contender.value, side.contender.deviation),
            percent(side.win_probability),
            rating_text(side.after_win.value, side.after_win.deviation),
            f"({signed_text(side.after_win.change, 1)})",
            rating_text(side.after_loss.value, side.after_loss.deviation),
            f"({signed_text(side.after_loss.change, 1)})",
        ]
        for letter, side in zip("ab", forecast.sides, strict=True)
    }


def test_pick_a_player_by_name_and_see_the_probability_follow(live_server, players, page):
    page.goto(live_server.url + "/calculator")
    result = page.locator("[data-result]")
    expect(result).to_be_hidden()
    page.locator("#id_a-rating").fill("1700")
    page.locator("#id_a-uncertainty").fill("160")
    expect(result).to_be_hidden()  # side B is still empty

    name = page.locator("#id_b-name")
    name.press_sequentially("old gu")  # a past name, in part
    suggestion = page.locator("#b-names option")
    expect(suggestion).to_have_count(1)
    assert suggestion.get_attribute("value") == "Guardian"
    assert suggestion.text_content().startswith("formerly Old Guard · SO ")
    # Choosing a <datalist> suggestion sets the input's value, as `fill` does.
    name.fill(suggestion.get_attribute("value"))
    character = page.locator("#id_b-character")
    expect(character.locator("option")).to_have_count(1)  # Guardian plays Sol only
    expect(result).to_be_visible()
    guardian = Rating.objects.select_related("player", "character").get(player_id=B)
    expected = rendered(win_forecast(Contender(1700, 80), Contender.of(guardian)))
    assert shown(page) == expected
    assert page.locator('[data-outcome="b"] [data-out="side"] a').get_attribute("href") == (
        f"/player/{B}/SO"
    )
    assert B not in page.locator("main").inner_text()  # the id is never shown
    shoot(page, "calculator-by-name")

    # A whole name typed in another case picks the player too; the list holds exactly their
    # two characters, and choosing one updates the result.
    page.locator("#id_a-name").press_sequentially("mayfly")
    a_character = page.locator("#id_a-character")
    expect(a_character.locator("option")).to_have_count(2)
    expect(page.locator('[data-outcome="a"] [data-out="side"]')).to_have_text("A: Mayfly (May)")
    assert a_character.locator("option").all_inner_texts()[0].startswith("May")
    assert page.locator("#id_a-rating").input_value() == ""  # the name replaced the numbers
    a_character.select_option("SO")
    mayfly_sol = Rating.objects.select_related("player", "character").get(
        player_id=A, character__code="SO"
    )
    live = shown(page)
    assert live == rendered(win_forecast(Contender.of(mayfly_sol), Contender.of(guardian)))

    # The server, given the same form, renders the same numbers.
    page.get_by_role("button", name="Calculate").click()
    page.wait_for_url("**/calculator?*")
    assert page.locator("#id_a-character").input_value() == "SO"
    assert shown(page) == live
    assert page.errors == []


def test_script_and_server_agree_on_the_reference_games(live_server, page):
    page.goto(live_server.url + "/calculator")
    for game in REFERENCE:
        for side, (value, deviation) in zip("ab", (game.a, game.b), strict=True):
            page.locator(f"#id_{side}-rating").fill(repr(float(value)))
            page.locator(f"#id_{side}-uncertainty").fill(repr(2.0 * deviation))
        forecast = win_forecast(Contender(*game.a), Contender(*game.b))
        assert shown(page) == rendered(forecast)
        expect(page.locator("[data-uncounted]")).to_be_visible(visible=not forecast.counts)
    assert page.errors == []


def shoot(page, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size({"width": WIDTHS["desktop"], "height": 900})
