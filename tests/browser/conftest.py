"""Playwright against a live server, driving Debian's Chromium (never a downloaded browser)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from matches.services.refresh import refresh_site
from players.models import Rating
from tests.fixtures.league import DAYS, seed_league

# Playwright's sync API runs an event loop in this thread; Django's ORM calls made from
# the test itself (seeding, assertions) are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).parent / "screenshots"
WIDTHS = {"desktop": 1280, "phone": 360}


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: install Debian's chromium (make browser-deps)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A desktop-wide page that collects console errors, page errors and any dialog
    opened in `page.errors`, for a test to assert there were none."""
    context = browser.new_context(viewport={"width": WIDTHS["desktop"], "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: errors.append(f"dialog opened: {dialog.message}"))
    page.errors = errors
    yield page
    context.close()


def seeded_site(*, players: int, games: int) -> Rating:
    """A simulated league, stored, rated and refreshed (calibration, statistics, the lab):
    returns its busiest rating, whose profile the page tours visit. Its games end a day
    ago, whatever today is: a league of fixed dates idles out of the rankings as its
    deviations grow with the time since."""
    start = timezone.now() - timedelta(days=DAYS + 1)
    seed_league(players=players, games=games, start=start)
    refresh_site()
    return Rating.objects.select_related("character", "player").order_by("-wins").first()
