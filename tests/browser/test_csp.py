"""Every page, the API docs and the admin satisfy the Content-Security-Policy in a real
browser: no violation is reported, and the pages' scripts still run."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.browser.conftest import seeded_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: messages.append(f"pageerror: {error}"))
    page.messages = messages
    yield page
    context.close()


def visit(page, url: str) -> None:
    response = page.goto(url)
    assert "default-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_load_state("networkidle")


def test_no_page_violates_the_policy(live_server, page):
    rating = seeded_site(players=30, games=600)
    profile = f"/player/{rating.player_id}/{rating.character.code}"
    paths = [
        "/",
        "/?per=player",
        f"/top/{rating.character.code}",
        "/search?name=a",
        profile,
        f"{profile}?range=7d",
        "/matchups",
        "/calculator?a-rating=1700&a-uncertainty=160&b-rating=1500&b-uncertainty=100",
        "/stats",
        "/recent",
        "/lab",
        "/about",
        "/player/1",  # the 404 page
    ]
    for path in paths:
        visit(page, live_server.url + path)
    # The site's script ran: sortable tables get their buttons.
    visit(page, live_server.url + "/")
    assert page.locator("table[data-sortable] th button.sort").count() > 0

    visit(page, live_server.url + "/api/docs/")
    page.locator("#swagger-ui .info").wait_for()  # Swagger UI rendered from its own files

    User.objects.create_superuser("admin", "admin@example.org", "a-long-password-1")
    visit(page, live_server.url + "/admin/login/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "a-long-password-1")
    page.click("input[type=submit]")
    page.wait_for_load_state("networkidle")
    for path in (
        "/admin/",
        "/admin/matches/replaysource/",
        "/admin/matches/replaysource/operations/",
    ):
        visit(page, live_server.url + path)

    violations = [m for m in page.messages if "Content Security Policy" in m]
    assert violations == []
    assert [m for m in page.messages if m.startswith("pageerror")] == []
