"""The calculator in a real browser: a player picked by name from the suggestions, and the
live result (static/js/calculator-1.4.js, which asks /api/v1/probability/) following every
change and equal, cell by cell, to the page the server renders for the same form; a reply
to older inputs never overwrites a newer one, and a failed request says so."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from players.models import Character
from tests.browser.conftest import SCREENSHOTS, WIDTHS
from tests.factories import RatingFactory, replay
from tests.fixtures.league import rate_replays
from tests.matches.test_calculator import OUTCOME_CELLS
from tests.matches.test_calculator_rules import FAST_TRACKED
from tests.ratings.reference import REFERENCE
from web.generation import bump_generation

# The typed-in games are §4.3's reference numbers: under the reference formulas.
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.usefixtures("reference_formulas"),
]

A, B, C = "200000000000000001", "200000000000000002", "200000000000000003"
PROBABILITY_API = "**/api/v1/probability/**"


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


def shown(page) -> dict[str, list[str] | bool]:
    """The result as the reader sees it: each side's cells, and whether the game counts."""
    cells: dict[str, list[str] | bool] = {
        side: [
            page.locator(f'[data-outcome="{side}"] [data-out="{cell}"]').inner_text()
            for cell in OUTCOME_CELLS
        ]
        for side in "ab"
    }
    cells["counts"] = not page.locator("[data-uncounted]").is_visible()
    spared = page.locator("[data-spared]")
    cells["spared"] = spared.inner_text() if spared.is_visible() else ""
    return cells


def settled(page) -> dict[str, list[str] | bool]:
    """The live result once the answer to the latest inputs is in."""
    result = page.locator("[data-result]")
    expect(result).to_have_attribute("aria-busy", "false")
    expect(result).to_be_visible()
    return shown(page)


def server_rendered(page) -> dict[str, list[str] | bool]:
    """The result the server renders for the form as it stands now, read in another tab."""
    query = page.evaluate(
        "() => new URLSearchParams(new FormData(document.querySelector('form[data-calculator]')))"
        ".toString()"
    )
    other = page.context.new_page()
    try:
        other.goto(page.url.split("?")[0] + "?" + query)
        expect(other.locator("[data-result]")).to_be_visible()
        return shown(other)
    finally:
        other.close()


def follows(page) -> dict[str, list[str] | bool]:
    """The live result, asserted equal to the server's page for the same inputs."""
    live = settled(page)
    assert live == server_rendered(page)
    return live


def test_the_result_follows_every_change_as_the_server_renders_it(live_server, players, page):
    page.goto(live_server.url + "/calculator")
    result = page.locator("[data-result]")
    expect(result).to_be_hidden()
    page.locator("#id_a-rating").fill("1700")
    page.locator("#id_a-uncertainty").fill("160")
    expect(result).to_be_hidden()  # side B is still empty

    name = page.locator("#id_b-name")
    name.press_sequentially("old gu")  # a past name, in part
    suggestion = page.locator("#id_b-name-suggestions [role=option]")
    expect(suggestion).to_have_count(1)
    assert suggestion.locator(".suggestion-name").inner_text() == "Guardian"
    assert "formerly Old Guard" in suggestion.inner_text()
    assert "Sol 1502 ±512 · PlayStation" in suggestion.inner_text()  # main character, rating
    # Picked from the keyboard, as from a click.
    name.press("ArrowDown")
    name.press("Enter")
    expect(name).to_have_value("Guardian")
    character = page.locator("#id_b-character")
    expect(character.locator("option")).to_have_count(1)  # Guardian plays Sol only
    first = follows(page)
    assert first["b"][0] == "B: Guardian (Sol)"
    assert page.locator('[data-outcome="b"] [data-out="side"] a').get_attribute("href") == (
        f"/player/{B}/SO"
    )
    assert B not in page.locator("main").inner_text()  # the id is never shown
    shoot(page, "calculator-by-name")

    # Each typed number moves the result.
    page.locator("#id_a-rating").fill("1850.7")
    higher = follows(page)
    assert higher["a"][1] == "1851 ±160" and higher != first
    page.locator("#id_a-uncertainty").fill("60")
    narrower = follows(page)
    assert narrower["a"][1] == "1851 ±60" and narrower["a"][2] != higher["a"][2]

    # A whole name typed in another case picks the player too; the list holds exactly their
    # two characters, and choosing one updates the result.
    page.locator("#id_a-name").press_sequentially("mayfly")
    a_character = page.locator("#id_a-character")
    expect(a_character.locator("option")).to_have_count(2)
    assert follows(page)["a"][0] == "A: Mayfly (May)"
    assert a_character.locator("option").all_inner_texts()[0].startswith("May")
    assert page.locator("#id_a-rating").input_value() == ""  # the name replaced the numbers
    a_character.select_option("SO")
    live = follows(page)
    assert live["a"][0] == "A: Mayfly (Sol)"

    # Numbers typed for side B replace the player picked there.
    page.locator("#id_b-rating").fill("1500")
    expect(result).to_be_hidden()  # no ± yet
    page.locator("#id_b-uncertainty").fill("400")
    assert follows(page)["b"][0] == "B"

    # The server, given the same form, renders the same numbers on this page too.
    live = shown(page)
    page.get_by_role("button", name="Calculate").click()
    page.wait_for_url("**/calculator?*")
    assert page.locator("#id_a-character").input_value() == "SO"
    assert shown(page) == live
    assert page.errors == []


def test_the_reference_games_as_the_server_renders_them(live_server, page):
    page.goto(live_server.url + "/calculator")
    for game in REFERENCE:
        for side, (value, deviation) in zip("ab", (game.a, game.b), strict=True):
            page.locator(f"#id_{side}-rating").fill(repr(float(value)))
            page.locator(f"#id_{side}-uncertainty").fill(repr(2.0 * deviation))
        assert follows(page)["counts"] is (game in REFERENCE[:4])
    assert page.errors == []


def test_a_reply_to_older_inputs_never_overwrites_a_newer_one(live_server, page):
    held = []

    def hold_the_first(route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)  # answered only after the newer request

    page.route(PROBABILITY_API, hold_the_first)
    page.goto(live_server.url + "/calculator")
    page.locator("#id_b-rating").fill("1500")
    page.locator("#id_b-uncertainty").fill("200")
    page.locator("#id_a-rating").fill("1700")
    page.locator("#id_a-uncertainty").fill("160")
    for _ in range(1000):  # until Playwright has handed the request to the route
        if held:
            break
        page.wait_for_timeout(10)
    assert held
    page.locator("#id_a-rating").fill("1900")
    newer = follows(page)
    assert newer["a"][1] == "1900 ±160"
    with page.expect_console_message(lambda message: "older inputs" in message.text):
        held[0].continue_()
    assert shown(page) == newer
    assert page.errors == []


def test_a_failed_request_says_so_and_the_form_still_works(live_server, page):
    page.route(PROBABILITY_API, lambda route: route.fulfill(status=503, body="down"))
    page.goto(live_server.url + "/calculator")
    for field, value in (("a-rating", "1700"), ("a-uncertainty", "160")):
        page.locator(f"#id_{field}").fill(value)
    page.locator("#id_b-rating").fill("1500")
    page.locator("#id_b-uncertainty").fill("200")
    failed = page.locator("[data-failed]")
    expect(failed).to_be_visible()
    expect(failed).to_contain_text("could not be updated")
    expect(page.locator("[data-result]")).to_be_hidden()  # no numbers of other inputs

    page.unroute(PROBABILITY_API)
    page.locator("#id_b-uncertainty").fill("100")
    live = follows(page)
    expect(failed).to_be_hidden()
    page.get_by_role("button", name="Calculate").click()
    page.wait_for_url("**/calculator?*")
    assert shown(page) == live


def shoot(page, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size({"width": WIDTHS["desktop"], "height": 900})


def test_the_picker_offers_no_retired_character(live_server, players, page):
    """Mayfly plays May and Sol; with May retired, picking Mayfly offers Sol alone."""
    Character.objects.filter(code="MA").update(retired=True)
    bump_generation()
    page.goto(live_server.url + "/calculator")
    name = page.locator("#id_a-name")
    name.press_sequentially("mayfl")
    expect(page.locator("#id_a-name-suggestions [role=option]")).to_have_count(1)
    name.press("ArrowDown")
    name.press("Enter")
    options = page.locator("#id_a-character option")
    expect(options).to_have_count(1)
    assert options.get_attribute("value") == "SO"
    assert page.errors == []


def test_against_a_fast_tracked_account_the_spared_side_is_told_why(live_server, page):
    """A young account on the fast track (docs/integrity.md) leaves its opponent's rating
    as it was: the result says so, live as on the server's page, and stops saying it once
    that side is typed-in numbers."""
    fast = RatingFactory(losses=0, confirmations=0, **FAST_TRACKED)
    settled = RatingFactory(value=1500.0, deviation=60.0, wins=100, losses=100)
    page.goto(
        live_server.url + f"/calculator?a-player={fast.player_id}&a-character=SO"
        f"&b-player={settled.player_id}&b-character=SO"
    )
    server = shown(page)
    assert server["b"][3:] == ["1500 ±120", "(0.0)", "1500 ±120", "(0.0)"]
    assert server["spared"].startswith("B's rating would not move, whoever wins: A's is new")
    assert server["spared"].endswith("New accounts.")
    shoot(page, "calculator-spared")

    # Typed-in numbers for side B: still spared (the account on side A is the reason)...
    page.locator("#id_b-rating").fill("1500")
    page.locator("#id_b-uncertainty").fill("120")
    assert follows(page)["spared"] == server["spared"]
    # ...and for side A: no young account, no note, B's rating moves.
    page.locator("#id_a-rating").fill("1800")
    page.locator("#id_a-uncertainty").fill("400")
    live = follows(page)
    assert live["spared"] == "" and live["b"][4] != "(0.0)"
    assert page.errors == []
