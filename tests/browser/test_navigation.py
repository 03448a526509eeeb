"""Navigation in a real browser (issue 29, item 5): times in the reader's time zone with
UTC on hover (static/js/local-time-1.0.js), and the calculator's state in its URL
(static/js/calculator-1.1.js), restored by the server from that URL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import WIDTHS
from tests.browser.test_calculator import settled, shown
from tests.factories import replay
from tests.fixtures.league import rate_replays

pytestmark = [pytest.mark.browser, pytest.mark.slow]

A, B = "200000000000000001", "200000000000000002"


@pytest.fixture
def tokyo(browser):
    """A desktop-wide page in Tokyo (UTC+9 all year: no daylight saving to step over)."""
    context = browser.new_context(
        viewport={"width": WIDTHS["desktop"], "height": 900}, timezone_id="Asia/Tokyo"
    )
    yield context.new_page()
    context.close()


def test_times_show_in_the_readers_time_zone_with_utc_on_hover(live_server, tokyo):
    # 20:30 UTC is 05:30 the next day in Tokyo: the day changes too.
    played_at = (datetime.now(UTC) - timedelta(days=2)).replace(
        hour=20, minute=30, second=0, microsecond=0
    )
    rate_replays([replay(1, A, B, played_at=played_at)])
    in_tokyo = played_at + timedelta(hours=9)

    tokyo.goto(f"{live_server.url}/player/{A}/SO")

    when = tokyo.locator("tbody.set time").first
    expect(when).to_have_text(f"{in_tokyo:%b} {in_tokyo.day}, 05:30")
    expect(when).to_have_attribute("title", f"{played_at:%Y-%m-%d} 20:30 UTC")
    expect(when).to_have_attribute("datetime", f"{played_at:%Y-%m-%d}T20:30:00Z")
    expect(tokyo.get_by_role("columnheader", name="When (Asia/Tokyo)")).to_be_visible()
    last_seen = tokyo.locator('time[data-local="day"]').first
    expect(last_seen).to_have_text(f"{in_tokyo:%Y-%m-%d}")


def test_the_calculator_keeps_its_state_in_the_url(live_server, page):
    start = "/calculator?a-rating=1700&a-uncertainty=160&b-rating=1500&b-uncertainty=100"

    page.goto(live_server.url + start)
    from_the_url = shown(page)  # rendered by the server, before any input
    page.fill('[name="a-rating"]', "1850")
    changed = settled(page)
    shared = page.url

    assert from_the_url["a"][1] == "1700 ±160"
    assert changed["a"][1] == "1850 ±160"
    assert "a-rating=1850" in shared and "b-uncertainty=100" in shared
    other = page.context.new_page()
    other.goto(shared)
    expect(other.locator("[data-result]")).to_be_visible()
    assert other.input_value('[name="a-rating"]') == "1850"
    assert shown(other) == changed
    other.close()
    assert page.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_api_docs_follow_the_colour_scheme_and_lead_back(live_server, browser, scheme):
    context = browser.new_context(color_scheme=scheme)
    docs = context.new_page()

    docs.goto(f"{live_server.url}/api/docs/")
    docs.locator("#swagger-ui .info").wait_for()
    background = docs.evaluate("getComputedStyle(document.body).backgroundColor")
    docs.get_by_role("link", name="← Rating Update").click()

    assert background == ("rgb(28, 32, 34)" if scheme == "dark" else "rgb(250, 250, 250)")
    assert docs.url == f"{live_server.url}/"
    context.close()
